"""Idempotent imports (SPEC 8.3) on both engines: a match keeps its CSV label as its key in
the guild, so importing a file twice, or a guild's export back into it, changes nothing and
says how many matches it skipped; another match under a stored key is refused."""

from __future__ import annotations

import pytest

from bot.services import Actor, Services, UserError, parse_lineup
from bot.services.matchcsv.format import match_key, native_id
from tests.services.conftest import Clock
from tests.storage.reads import applied_matches

GUILD = 5
COPY = 6
MOD = Actor(999, is_moderator=True)
HEADER = "match,played_at,side,player,score,minutes"
FILE = "\n".join(
    (
        HEADER,
        "a,2023-01-01T10:00:00Z,x,1,3,20",
        "a,2023-01-01T10:00:00Z,y,2,1,20",
        "b,2023-01-02T10:00:00Z,x,2,2,20",
        "b,2023-01-02T10:00:00Z,y,~guest,2,20",
        "b,2023-01-02T10:00:00Z,z,3,0,20",
        "",
    )
)


async def test_importing_a_file_twice_skips_every_match_and_changes_nothing(
    services: Services,
) -> None:
    first = await services.transfers.import_csv(GUILD, MOD, FILE)
    assert (first.matches, first.skipped) == (2, 0)
    before = await services.context.db.read.dump()
    again = await services.transfers.import_csv(GUILD, MOD, FILE)
    assert (again.matches, again.replayed, again.skipped) == (0, 0, 2)
    assert await services.context.db.read.dump() == before


async def test_a_file_with_old_and_new_matches_imports_only_the_new(services: Services) -> None:
    await services.transfers.import_csv(GUILD, MOD, FILE)
    grown = FILE + "c,2023-01-03T10:00:00Z,x,1,1,20\nc,2023-01-03T10:00:00Z,y,3,0,20\n"
    result = await services.transfers.import_csv(GUILD, MOD, grown)
    assert (result.matches, result.skipped) == (1, 2)
    assert len(await applied_matches(services.context.db.read, GUILD)) == 3


async def test_a_guilds_export_imported_back_changes_nothing(
    services: Services, clock: Clock
) -> None:
    await services.transfers.import_csv(GUILD, MOD, FILE)
    for _ in range(3):
        clock.now += 60
        lineup = parse_lineup("<@1> 2 30 | <@3> 1 30")
        await services.matches.report(GUILD, MOD, lineup, request_id=f"r{clock.now}")
    clock.now += 60
    exported = await services.transfers.export_csv(GUILD)
    before = await services.context.db.read.dump()
    result = await services.transfers.import_csv(GUILD, MOD, exported)
    assert (result.matches, result.skipped) == (0, 5)
    assert await services.context.db.read.dump() == before
    # Into another guild the same export imports every applied match once, and again none.
    assert (await services.transfers.import_csv(COPY, MOD, exported)).matches == 5
    again = await services.transfers.import_csv(
        COPY, MOD, await services.transfers.export_csv(COPY)
    )
    assert (again.matches, again.skipped) == (0, 5)


@pytest.mark.parametrize(
    "row",
    [
        "a,2023-01-01T10:00:01Z,x,1,3,20\na,2023-01-01T10:00:01Z,y,2,1,20",  # another time
        "a,2023-01-01T10:00:00Z,x,1,3,20\na,2023-01-01T10:00:00Z,y,3,1,20",  # other players
    ],
)
async def test_another_match_under_a_stored_key_is_refused_and_changes_nothing(
    services: Services, row: str
) -> None:
    await services.transfers.import_csv(GUILD, MOD, FILE)
    before = await services.context.db.read.dump()
    with pytest.raises(UserError) as refusal:
        await services.transfers.import_csv(
            GUILD, MOD, f"{HEADER}\nnew,2023-01-05,x,1,1,20\nnew,2023-01-05,y,2,0,20\n{row}\n"
        )
    assert str(refusal.value).startswith("line 4: match 'a' is already in the guild (match #")
    assert "\n" not in str(refusal.value)
    assert await services.context.db.read.dump() == before


def test_a_native_label_names_its_match_id_and_nothing_else() -> None:
    assert match_key(17, None) == "#17" and native_id("#17") == 17
    assert match_key(17, "#17x") == "#17x" and native_id("#17x") is None
    assert native_id("17") is None and native_id("#" + "9" * 30) is None
    assert native_id("#9223372036854775808") is None
