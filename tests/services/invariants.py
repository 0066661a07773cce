"""The invariant of SPEC 2.5, checked bit for bit against an independent replay of the stored
log (one match after another); and the cached performances, checked against game lists
built from scratch."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from itertools import pairwise

import numpy as np
import pytest

from bot.ratings.elo import EloBridge
from bot.ratings.gamelist import Game
from bot.ratings.ladder import LadderSettings
from bot.ratings.performance import performance_many, rating_accuracy, stability
from bot.ratings.replay import replay_sequential
from bot.services import Services
from bot.services.replaying import boundaries, ladder_settings, replay_log
from bot.storage import LOG_START
from bot.storage.logchunks import FIELDS, same_entries
from tests.ratings.reference_games import MatchRecord, ParticipantRecord, member_games
from tests.storage.reads import applied_matches


async def assert_columns_are_rows(services: Services, guild_id: int) -> None:
    """The log's columnar copy (bot.storage.logchunks) holds what its rows hold, and a
    replay from it equals a replay from the rows bit for bit."""
    db = services.context.db
    async with db.snapshot() as read:
        rows = await read.log_rows(guild_id)
        chunks = await read.log_entries(guild_id)
        crossed = await read.seasons_from(guild_id, LOG_START)
    for name, _ in FIELDS:
        assert np.array_equal(rows[name], chunks[name], equal_nan=True), name
    assert same_entries(rows, chunks)
    settings = ladder_settings(await services.settings.current(guild_id))
    replays = [
        replay_log(entries.log(), {}, settings, boundaries(entries.log(), crossed))
        for entries in (rows, chunks)
    ]
    assert replays[0].before.tobytes() == replays[1].before.tobytes()
    assert replays[0].after.tobytes() == replays[1].after.tobytes()
    assert replays[0].final == replays[1].final


async def assert_log_is_truth(services: Services, guild_id: int) -> None:
    """Replaying the applied matches and season starts in log order from scratch
    (bot.ratings.replay) gives every stored rating_before/after, every member's rating and
    record (in the current season), and every closed season's closing standings; the
    log's columnar copy equals its rows."""
    await assert_columns_are_rows(services, guild_id)
    settings = await services.settings.current(guild_id)
    matches = await applied_matches(services.context.db.read, guild_id)
    seasons = await services.context.db.read.seasons(guild_id)
    # A season start comes after the matches applied before its starts_at (storage.seasons).
    positions = [
        sum(m.applied_at is not None and m.applied_at < s.starts_at for m in matches)
        for s in seasons
    ]
    rows = [(index, p) for index, m in enumerate(matches) for p in m.participants if p.enabled]
    user_ids = dict.fromkeys(p.user_id for _, p in rows)
    players = {user_id: n for n, user_id in enumerate(user_ids)}
    sides: dict[str, int] = {}
    replay = replay_sequential(
        [index for index, _ in rows],
        [players[p.user_id] for _, p in rows],
        [sides.setdefault(p.side, len(sides)) for _, p in rows],
        [p.score for _, p in rows],
        [p.minutes for _, p in rows],
        len(players),
        LadderSettings(
            settings.t, settings.game_mult, settings.max_game_length, settings.initial_rating
        ),
        season_starts=positions,
        season_carry=[s.carry for s in seasons],
    )
    stored_before = [p.rating_before for _, p in rows]
    stored_after = [p.rating_after for _, p in rows]
    assert stored_before == replay.before.tolist()  # bit for bit, no tolerance
    assert stored_after == replay.after.tolist()
    for m in matches:
        for p in m.participants:
            assert (p.rating_before is None) == (not p.enabled)
    bounds = [0, *positions, len(matches)]
    for number, season in enumerate(seasons):
        since, until = bounds[number], bounds[number + 1]
        stored = {
            s.user_id: s
            for s in await services.context.db.read.closing_standings(guild_id, season.number)
        }
        rated = {p.user_id for index, p in rows if index < until}
        assert stored.keys() == rated
        for user_id, standing in stored.items():
            closing = float(replay.closing[number, players[user_id]])
            assert standing.rating == closing
            played = [p for index, p in rows if since <= index < until and p.user_id == user_id]
            assert (standing.games, standing.wins, standing.draws, standing.losses) == (
                len(played),
                sum(p.outcome == "win" for p in played),
                sum(p.outcome == "draw" for p in played),
                sum(p.outcome == "loss" for p in played),
            )
    current = bounds[-2]
    for member in await services.context.db.read.members(guild_id):
        played = [p for index, p in rows if index >= current and p.user_id == member.user_id]
        assert member.games == len(played)
        assert member.wins == sum(p.outcome == "win" for p in played)
        assert member.losses == sum(p.outcome == "loss" for p in played)
        if member.user_id in players:
            expected = float(replay.final[players[member.user_id]])
            assert member.rating == expected
        else:
            assert member.rating is None
    assert np.isfinite(replay.final).all()


SOLVER_TOLERANCE = 1e-6
"""Performances solved in different batches agree to the solver's tolerance, not bit for bit."""


async def assert_performances_are_fresh(services: Services, guild_id: int, measure: str) -> None:
    """The leaderboard by `measure` (served from the cache where it can) and the card of its
    top member equal performances computed from scratch: game lists from every applied
    match (the literal model, tests/ratings/reference_games.py), solved by
    bot.ratings.performance."""
    settings = await services.settings.current(guild_id)
    bridge = EloBridge(settings.t, settings.initial_rating)
    records = [
        MatchRecord(
            m.id,
            datetime.fromtimestamp(m.played_at, UTC),
            tuple(
                ParticipantRecord(
                    p.user_id, p.side, p.score, p.minutes, bridge.to_elo(p.rating_before)
                )
                for p in m.participants
                if p.enabled and p.user_id is not None and p.rating_before is not None
            ),
        )
        for m in await applied_matches(services.context.db.read, guild_id)
    ]
    now = datetime.fromtimestamp(services.context.clock(), UTC)

    def games_of(user_id: int) -> list[Game]:
        played = [r for r in records if any(p.user_id == user_id for p in r.participants)]
        return member_games(user_id, played, now)

    eligible = {
        m.user_id
        for m in await services.context.db.read.members(guild_id)
        if m.enabled and not m.is_bot and m.games >= settings.min_games
    }
    page = await services.standings.leaderboard(guild_id, by=measure, page_size=0)
    assert {row.user_id for row in page.rows} == eligible
    lists = [games_of(row.user_id) for row in page.rows]
    if measure == "ra":
        expected = [rating_accuracy(games) for games in lists]
    else:
        elo = performance_many(lists, measure) if lists else np.array([])
        expected = [float(value) for value in bridge.from_elo(elo)]
    assert [row.value for row in page.rows] == pytest.approx(
        expected, abs=SOLVER_TOLERANCE, nan_ok=True
    )
    for ahead, behind in pairwise(expected):  # the cached order, judged by the scratch values
        if math.isnan(ahead):
            assert math.isnan(behind)
        elif not math.isnan(behind):
            assert behind <= ahead + SOLVER_TOLERANCE
    if page.rows and measure != "ra":
        top = page.rows[0].user_id
        card = await services.standings.rating_card(guild_id, top, measure)
        scratch = stability(games_of(top), measure)
        assert [card.performance, card.up, card.down] == pytest.approx(
            [
                float(bridge.from_elo(scratch.rating)),
                scratch.up * bridge.points_per_elo,
                scratch.down * bridge.points_per_elo,
            ],
            abs=SOLVER_TOLERANCE,
            nan_ok=True,
        )
        assert card.ra == pytest.approx(rating_accuracy(games_of(top)), abs=SOLVER_TOLERANCE)
