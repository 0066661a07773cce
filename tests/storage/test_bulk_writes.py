"""Storage: bulk writes store exactly what they are given, to the bit, on both engines: a
bulk insert (SQLite: ROWS_PER_INSERT rows a statement, then the rest one by one) and a bulk
update of participants' ratings (SQLite: each match's rows by one statement, `grouped`)."""

from __future__ import annotations

import numpy as np
import pytest

from bot.config import GuildSettings
from bot.storage import Database, NewMatch, NewParticipant, engine, sqlite

GUILD = 1
SIZES = (2, 3, 8, 32, 5, 8)
"""Participants per match: a duel, an odd free-for-all, teams, the most SPEC allows."""


def _match(number: int, size: int) -> NewMatch:
    """A match whose every third participant is a guest (not rated, no ratings stored)."""
    participants = tuple(
        NewParticipant(None, f"guest {position}", str(position % 2), 1.0, 10.0, False, None)
        if position % 3 == 2
        else NewParticipant(
            100 + position, None, str(position % 2), 1.0, 10.0, True, "draw", 1.0, 2.0
        )
        for position in range(size)
    )
    return NewMatch(None, 1000.0 + number, 1000.0 + number, f"request {number}", participants)


@pytest.mark.parametrize("chunk_rows", [7, sqlite.CHUNK_ROWS])
async def test_a_bulk_update_sets_the_rows_it_names_and_no_other(
    database: Database, monkeypatch: pytest.MonkeyPatch, chunk_rows: int
) -> None:
    """Some rated participants of each match get new ratings (floats of every bit, in log
    order, in two blocks that cut a match); the others, guests included, keep theirs. With
    7 rows a trip, SQLite's trips cut matches too."""
    monkeypatch.setattr(sqlite, "CHUNK_ROWS", chunk_rows)
    rng = np.random.default_rng(29)
    matches = [_match(number, size) for number, size in enumerate(SIZES * 3)]
    async with database.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        ids = await tx.new_match_ids(len(matches))
        await tx.insert_matches(GUILD, matches, "applied", ids, [m.played_at for m in matches])
    rated = [
        (match_id, position)
        for match_id, match in zip(ids, matches, strict=True)
        for position, participant in enumerate(match.participants)
        if participant.enabled
    ]
    chosen = sorted(rated[i] for i in rng.choice(len(rated), len(rated) * 2 // 3, replace=False))
    keys = np.array(chosen, np.int64)
    before, after = rng.normal(1500, 300, (2, len(chosen)))
    columns = [keys[:, 0], keys[:, 1], before, after]
    cut = len(chosen) // 2 + 1
    async with database.write(GUILD) as tx:
        await tx._session.update_rows(
            "participants",
            ("match_id", "position"),
            ("rating_before", "rating_after"),
            len(chosen),
            [[column[:cut] for column in columns], [column[cut:] for column in columns]],
            grouped=True,
        )
    expected = {key: (b, a) for key, b, a in zip(chosen, before, after, strict=True)}
    stored = {
        (match.id, p.position): (p.rating_before, p.rating_after)
        for match in await database.read.all_matches(GUILD)
        for p in match.participants
    }
    assert len(stored) == sum(SIZES) * 3
    for key, ratings in stored.items():
        if key in expected:
            assert ratings == expected[key]
        elif key in rated:
            assert ratings == (1.0, 2.0)
        else:
            assert ratings == (None, None)


@pytest.mark.parametrize("count", [5, sqlite.ROWS_PER_INSERT, 3 * sqlite.ROWS_PER_INSERT + 7, 100])
async def test_a_bulk_insert_stores_every_row_as_given(
    database: Database, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """Any count of rows, made two slices of 32 at a time (statements of several rows, and
    the rest one a statement), each stored with its own values (floats of every bit, NULL
    where None)."""
    monkeypatch.setattr(engine, "INSERT_SLICE_ROWS", 2 * sqlite.ROWS_PER_INSERT)
    ratings = [
        None if row % 7 == 0 else value
        for row, value in enumerate(np.random.default_rng(count).normal(1500, 300, count).tolist())
    ]
    async with database.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        await tx._session.insert_columns(
            "members",
            ("guild_id", "user_id", "name", "rating"),
            count,
            lambda first, stop: [
                [GUILD] * (stop - first),
                list(range(first + 1, stop + 1)),
                [f"member {row}" for row in range(first, stop)],
                ratings[first:stop],
            ],
        )
    stored = await database.read.members(GUILD)
    assert [(m.user_id, m.name, m.rating) for m in stored] == [
        (row + 1, f"member {row}", rating) for row, rating in enumerate(ratings)
    ]


async def test_a_bulk_insert_stores_null_where_a_null_value_stands(database: Database) -> None:
    """Where a column's null value stands (a number, and words with a quote in them), NULL
    is stored; every other value, an empty text and a 0 elsewhere included, as given."""
    count = 2 * sqlite.ROWS_PER_INSERT + 3  # full statements and single rows
    reporters = [row % 3 for row in range(count)]  # 0: no reporter
    keys = [  # one empty text: a guild's import keys are distinct
        "it's none" if row % 4 == 1 else ("" if row == 2 else f"k{row}") for row in range(count)
    ]
    async with database.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        await tx._session.insert_columns(
            "matches",
            (
                "id",
                "guild_id",
                "status",
                "reporter_id",
                "created_at",
                "played_at",
                "request_id",
                "import_key",
                "disputed_by",
            ),
            count,
            lambda first, stop: [
                list(range(first + 1, stop + 1)),
                [GUILD] * (stop - first),
                ["pending"] * (stop - first),
                reporters[first:stop],
                [1.0] * (stop - first),
                [2.0] * (stop - first),
                [f"request {row}" for row in range(first, stop)],
                keys[first:stop],
                [0] * (stop - first),  # 0 stands for nothing in another column only
            ],
            null_values={"reporter_id": 0, "import_key": "it's none"},
        )
        stored = await tx._session.all(
            "SELECT reporter_id, import_key, disputed_by FROM matches ORDER BY id"
        )
    assert [tuple(row) for row in stored] == [
        (reporter or None, None if key == "it's none" else key, 0)
        for reporter, key in zip(reporters, keys, strict=True)
    ]
