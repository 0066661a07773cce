"""The web pages speak the server's language (SPEC 13): with language = fr the leaderboard,
player, match and match-list pages are French (their words and html lang); with auto (the web
cannot see the server's preferred locale) they stay English."""

from __future__ import annotations

from bot.present.language import words
from bot.services import Actor, Services
from tests.web.conftest import Client
from tests.web.data import GUILD

MODERATOR = Actor(1, is_moderator=True)


async def test_the_leaderboard_page_follows_the_servers_language(
    client: Client, services: Services
) -> None:
    english = await (await client.get(f"/g/{GUILD}")).text()
    assert '<html lang="en-US">' in english and ">Leaderboard</h1>" in english
    assert ">Nov 14, 2023, 22:13 UTC</time>" in english
    await services.settings.change(GUILD, MODERATOR, {"language": "fr"})
    french = await (await client.get(f"/g/{GUILD}")).text()
    assert '<html lang="fr">' in french
    assert ">Classement</h1>" in french and ">Joueur</th>" in french
    assert "Leaderboard" not in french and "Player" not in french
    player = await (await client.get(f"/g/{GUILD}/players/1")).text()
    assert "<dt>Cote ladder</dt>" in player and "<dt>Cette saison</dt>" in player
    listed = await (await client.get(f"/g/{GUILD}/matches")).text()
    assert "<h1>Matchs</h1>" in listed
    match = await (await client.get(f"/g/{GUILD}/matches/1")).text()
    assert "Joué" in match and ">Joueur</th>" in match


async def test_match_states_sides_moves_and_the_chart_speak_the_servers_language(
    client: Client, services: Services
) -> None:
    await services.settings.change(GUILD, MODERATOR, {"language": "fr"})
    match = await (await client.get(f"/g/{GUILD}/matches/1")).text()
    assert '<span class="status status-applied">validé</span>' in match
    assert '<bdi>Équipe A</bdi> <span class="outcome outcome-won">a gagné</span>' in match
    assert ">500,0 → 480,0 (-20,0)</td>" in match
    assert ">14 nov. 2023, 22:13 UTC</time>" in match  # the clock's 1,700,000,000 s
    listed = await (await client.get(f"/g/{GUILD}/matches")).text()
    assert ">contesté</span>" in listed and ">en attente</span>" in listed
    assert ">invalidé</span>" in listed
    player = await (await client.get(f"/g/{GUILD}/players/1")).text()
    assert "Cote ladder sur 5 matchs et 1 début de saison : de 500,0 à 528,5" in player
    assert 'text-anchor="middle">début</text>' in player
    assert "la ligne en tirets est la cote de départ" in player
    assert ">511,4 → 528,5 (+17,1)</td>" in player
    missing = await (await client.get(f"/g/{GUILD}/players/999999")).text()
    assert "<h1>Introuvable</h1>" in missing and "pas de fiche ladder sur ce" in missing


async def test_pages_of_no_server_follow_the_browsers_language(client: Client) -> None:
    index = await client.get("/", headers={"Accept-Language": "de-AT,de;q=0.9,en;q=0.5"})
    assert index.headers["Vary"] == "Accept-Language"
    assert "Die Tabelle eines Discord-Servers" in await index.text()
    refused = await client.get(f"/g/{GUILD}?by=elo", headers={"Accept-Language": "xx, ru;q=0.2"})
    assert refused.status == 400
    russian = words("ru").gettext("Cannot show this")
    assert russian != "Cannot show this" and f"<h1>{russian}</h1>" in await refused.text()
    english = await client.get(f"/g/{GUILD}?by=elo", headers={"Accept-Language": "en, ru;q=0.9"})
    assert "<h1>Cannot show this</h1>" in await english.text()
    api = await client.get(
        f"/api/v1/guilds/{GUILD}/leaderboard?by=elo", headers={"Accept-Language": "ru"}
    )
    assert (await api.json())["error"].startswith("by 'elo' must be one of")  # scripts: English
