"""The web pages speak the server's language (SPEC 13): with language = fr the leaderboard,
player, match and match-list pages are French (their words and html lang); with auto (the web
cannot see the server's preferred locale) they stay English."""

from __future__ import annotations

from bot.services import Actor, Services
from tests.web.conftest import Client
from tests.web.data import GUILD

MODERATOR = Actor(1, is_moderator=True)


async def test_the_leaderboard_page_follows_the_servers_language(
    client: Client, services: Services
) -> None:
    english = await (await client.get(f"/g/{GUILD}")).text()
    assert '<html lang="en-US">' in english and ">Leaderboard</h1>" in english
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
