"""The web pages speak the server's language (SPEC 13): with language = fr the leaderboard
is French (its words and its html lang); with auto (the web cannot see the server's
preferred locale) it stays English."""

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
