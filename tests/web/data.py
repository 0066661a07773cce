"""A small guild for the web tests: duels, a free-for-all, teams with guests, a pending, a
disputed and a void match, an edit, a closed season, and names that must stay text."""

from __future__ import annotations

from typing import Final

from bot.services import Actor, MemberInfo, Services, parse_lineup

GUILD: Final = 7
HIDDEN: Final = 8
"""A guild with matches whose setting `web` stays off."""
UNKNOWN: Final = 9
MOD: Final = Actor(999, is_moderator=True)
SCRIPT_NAME: Final = "<script>alert('x')</script>"
QUOTED_NAME: Final = "\"Quote\" & 'Apostrophe'"
MARKDOWN_NAME: Final = "**bold** _it_ [link](https://example.org) `code`"
GUEST_NAME: Final = "o'neil\"**x**"
NAMES: Final = {
    1: SCRIPT_NAME,
    2: QUOTED_NAME,
    3: MARKDOWN_NAME,
    4: "Dana",
    5: "Eve",
    6: "Fay",
}
MEMBERS: Final = [MemberInfo(user_id, name) for user_id, name in NAMES.items()]


async def report(services: Services, guild: int, text: str, number: int, actor: Actor = MOD) -> int:
    result = await services.matches.report(
        guild, actor, parse_lineup(text), request_id=f"web{number}", members=MEMBERS
    )
    return result.match.id


async def seed(services: Services, *, shown: bool = True) -> None:
    """GUILD with everything the pages show (its `web` on when `shown`), and HIDDEN."""
    lineups = [
        "<@1> 3 | <@2> 1",
        "<@2> 2 | <@3> 2",
        "<@1> 10 | <@3> 5 | <@4> 7 | <@5> 1",
        f"<@1> 5, {GUEST_NAME} 3 | <@2> 4, <@4> 6",
        "<@4> 1 12 | <@5> 0 15",
        "<@3> 2 | <@1> 1",
    ]
    for number, text in enumerate(lineups):
        await report(services, GUILD, text, number)
    await services.seasons.start(GUILD, MOD, "spring", 0.5)
    for number, text in enumerate(["<@1> 1 | <@5> 0", "<@2> 3 | <@6> 1", "<@6> 2 | <@4> 1"]):
        await report(services, GUILD, text, 10 + number)
    voided = await report(services, GUILD, "<@3> 9 | <@6> 1", 20)
    await services.matches.void(GUILD, MOD, voided, "reported by mistake <b>twice</b>")
    edited = await report(services, GUILD, "<@5> 1 | <@6> 2", 21)
    await services.matches.edit(GUILD, MOD, edited, parse_lineup("<@5> 2 | <@6> 1"))
    await services.settings.change(GUILD, MOD, {"confirm": "opponent"})
    await report(services, GUILD, "<@4> 1 | <@1> 0", 30, Actor(4))  # pending
    disputed = await report(services, GUILD, "<@5> 1 | <@2> 0", 31, Actor(5))
    await services.matches.dispute(GUILD, Actor(2), disputed)
    if shown:
        await services.settings.change(GUILD, MOD, {"web": True})
    await report(services, HIDDEN, "<@1> 1 | <@2> 0", 40)
