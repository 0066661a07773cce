"""The rules of queues that need no database (SPEC 10): what a queue may be, the teams
(balance, random, captains' picks), the map draw, and the lineup of a lobby's result.

Decisions the spec leaves open:
- A queue name may hold spaces (not at its ends); names are unique in a guild ignoring case.
- The default pick order is the snake of the queue's teams: abba, abccba or abcddcba
  (SPEC 10.2 names abba, the two-team snake). A pick order must name every team; a turn that
  falls to a full team passes to the next letter of the order whose team has room.
- Captains are the `teams` highest-rated players (ties: the earlier in the queue); the
  highest-rated captains team A. An auto-pick takes the highest-rated player left (ties:
  the earlier in the queue). Once one team alone has room, the rest join it without a pick.
- A random split shuffles the players with numpy's generator seeded by the lobby's seed
  (a 32-bit number drawn at the pop and shown), then deals them into teams in that order.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Final

import numpy as np

from bot.ratings.balance import balance_teams, team_sizes, win_probabilities
from bot.ratings.ladder import team_scores
from bot.services.errors import UserError, free_text, quoted
from bot.services.lineup import Lineup, LineupEntry, Player, ffa_lineup
from bot.storage.queues import LobbyPlayer, QueueSettings, Waiting

MIN_SIZE: Final = 2
MAX_SIZE: Final = 32
MAX_QUEUES: Final = 25
MAX_MAPS: Final = 25
MAX_NAME: Final = 32
MAX_PICK_ORDER: Final = 64
READY_SECONDS: Final = (0, 600)
EXPIRE_MINUTES: Final = (1, 1440)
RATING_RANGE: Final = (0, 2000)
WIDEN: Final = (0, 500)
PICK_SECONDS: Final = 60.0
"""A captain who has not picked within this long gets the highest-rated player left."""
TEAM_LETTERS: Final = "abcd"
FORMATS: Final = ("teams", "ffa")
MODES: Final = ("balance", "captains", "random")


def team_letter(team: int) -> str:
    return TEAM_LETTERS[team].upper()


def snake(teams: int) -> str:
    forward = TEAM_LETTERS[:teams]
    return forward + forward[::-1]


def _name(text: str, what: str) -> str:
    name = free_text(text, f"{what} {quoted(text)}").strip()
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        raise UserError(f"{what} {quoted(text)} must be 1 to {MAX_NAME} printable characters")
    return name


def parse_maps(text: str) -> tuple[str, ...]:
    """Up to 25 map names separated by commas (an empty text: no maps)."""
    if not text.strip():
        return ()
    maps = tuple(_name(part, "map") for part in text.split(","))
    if len(maps) > MAX_MAPS:
        raise UserError(f"{len(maps)} maps: a queue has at most {MAX_MAPS}")
    if len({m.lower() for m in maps}) != len(maps):
        raise UserError("a map is listed twice; list every map once")
    return maps


def _within(value: int, low: int, high: int, what: str) -> None:
    if not low <= value <= high:
        raise UserError(f"{what} {value} must be from {low} to {high}")


def checked_settings(settings: QueueSettings, pick_order_given: bool) -> QueueSettings:
    """The settings with a clean name and pick order, or UserError naming what is wrong.
    Without a pick order given, the snake of the queue's teams."""
    name = _name(settings.name, "queue name")
    _within(settings.size, MIN_SIZE, MAX_SIZE, "size")
    if settings.format not in FORMATS:
        raise UserError(f"format {quoted(settings.format)} must be one of {', '.join(FORMATS)}")
    if settings.mode not in MODES:
        raise UserError(f"mode {quoted(settings.mode)} must be one of {', '.join(MODES)}")
    _within(settings.teams, 2, len(TEAM_LETTERS), "teams")
    _within(settings.ready_seconds, *READY_SECONDS, "ready_seconds")
    _within(settings.expire_minutes, *EXPIRE_MINUTES, "expire_minutes")
    _within(settings.rating_range, *RATING_RANGE, "range")
    _within(settings.widen, *WIDEN, "widen")
    if settings.format == "teams" and settings.size % settings.teams:
        raise UserError(
            f"size {settings.size} must be a multiple of teams ({settings.teams}) "
            "so that the teams are equal"
        )
    order = settings.pick_order.strip().lower() if pick_order_given else snake(settings.teams)
    letters = TEAM_LETTERS[: settings.teams]
    if (
        not 1 <= len(order) <= MAX_PICK_ORDER
        or set(order) - set(letters)
        or set(letters) - set(order)
    ):
        raise UserError(
            f"pick_order {quoted(settings.pick_order)} must be up to {MAX_PICK_ORDER} letters "
            f"naming every team ({', '.join(letters)}), such as {snake(settings.teams)}"
        )
    return replace(settings, name=name, pick_order=order)


def window(spec: QueueSettings, joined_at: float, now: float) -> float:
    """How far (Elo) from a member's rating the range reaches once they have waited since
    `joined_at`: range + widen * minutes waited (SPEC 10.5)."""
    return spec.rating_range + spec.widen * max(0.0, now - joined_at) / 60.0


def pop_choice(
    spec: QueueSettings, waiting: Sequence[Waiting], ratings: Mapping[int, float], now: float
) -> list[int] | None:
    """The members (user ids, in queue order) a queue pops now, None: it cannot pop.
    Without a range, the first `size`. With one, the longest-waiting member (ties: the
    earlier in line) and the earliest joiners whose Elo ratings lie within its window."""
    if len(waiting) < spec.size:
        return None
    if spec.rating_range == 0:
        return [w.user_id for w in waiting[: spec.size]]
    anchor = min(waiting, key=lambda w: w.joined_at)  # min keeps the first of equals
    reach = window(spec, anchor.joined_at, now)
    centre = ratings[anchor.user_id]
    others = [
        w.user_id for w in waiting if w is not anchor and abs(ratings[w.user_id] - centre) <= reach
    ][: spec.size - 1]
    if len(others) < spec.size - 1:
        return None
    chosen = {anchor.user_id, *others}
    return [w.user_id for w in waiting if w.user_id in chosen]


def draw_map(maps: Sequence[str], previous: str | None, rng: random.Random) -> str | None:
    """A map drawn uniformly, never the previous one when there are two or more."""
    choices = [m for m in maps if m != previous] if len(maps) >= 2 else list(maps)
    return rng.choice(choices) if choices else None


def balanced(players: Sequence[LobbyPlayer], teams: int) -> list[LobbyPlayer]:
    """The players with teams of the most even split (SPEC 9.5) of their Elo ratings."""
    result = balance_teams([p.rating for p in players], teams)
    team_of = {index: team for team, indices in enumerate(result.teams) for index in indices}
    return [replace(p, team=team_of[index]) for index, p in enumerate(players)]


def random_split(players: Sequence[LobbyPlayer], teams: int, seed: int) -> list[LobbyPlayer]:
    """A uniform split into equal teams: the players shuffled by `seed`, dealt in turn."""
    order = np.random.default_rng(seed).permutation(len(players)).tolist()
    team_of = {player: turn % teams for turn, player in enumerate(order)}
    return [replace(p, team=team_of[index]) for index, p in enumerate(players)]


def by_strength(players: Sequence[LobbyPlayer]) -> list[LobbyPlayer]:
    """Highest rating first; ties: the earlier in the queue."""
    return sorted(players, key=lambda p: (-p.rating, p.position))


def with_captains(players: Sequence[LobbyPlayer], teams: int) -> list[LobbyPlayer]:
    """The `teams` strongest captain teams A, B, … in that order; the others wait."""
    captains = {p.user_id: team for team, p in enumerate(by_strength(players)[:teams])}
    return [
        replace(p, captain=p.user_id in captains, team=captains.get(p.user_id), pick=None)
        for p in players
    ]


def _room(players: Sequence[LobbyPlayer], teams: int) -> list[int]:
    sizes = team_sizes(len(players), teams)
    counts = [sum(1 for p in players if p.team == team) for team in range(teams)]
    return [size - count for size, count in zip(sizes, counts, strict=True)]


def picking_team(players: Sequence[LobbyPlayer], teams: int, order: str) -> int | None:
    """The team whose captain picks now (None: nothing left to pick)."""
    room = _room(players, teams)
    if not any(room):
        return None
    turn = sum(1 for p in players if p.pick is not None)
    for step in range(len(order)):
        team = TEAM_LETTERS.index(order[(turn + step) % len(order)])
        if room[team]:
            return team
    raise AssertionError("a pick order names every team")  # checked_settings


def pick(
    players: Sequence[LobbyPlayer], teams: int, order: str, user_id: int | None
) -> list[LobbyPlayer]:
    """The picking captain takes `user_id` (None: the highest-rated left, an auto-pick);
    then, once a single team has room, the rest go to it without a pick."""
    team = picking_team(players, teams, order)
    assert team is not None
    waiting = by_strength([p for p in players if p.team is None])
    chosen = waiting[0].user_id if user_id is None else user_id
    turn = sum(1 for p in players if p.pick is not None)
    picked = [replace(p, team=team, pick=turn) if p.user_id == chosen else p for p in players]
    room = _room(picked, teams)
    if sum(1 for r in room if r) == 1:
        last = room.index(next(r for r in room if r))
        picked = [replace(p, team=last) if p.team is None else p for p in picked]
    return picked


def chances(players: Sequence[LobbyPlayer], teams: int) -> list[float]:
    """Each team's chance to win as /balance shows it: mean P of its average rating (Elo)
    against the other teams'."""
    averages = np.array(
        [np.mean([p.rating for p in players if p.team == team]) for team in range(teams)]
    )
    return [float(chance) for chance in win_probabilities(averages)]


def result_lineup(
    players: Sequence[LobbyPlayer], winner: int | None, order: Sequence[int] | None = None
) -> Lineup:
    """The lobby's match (scores by SPEC 2.4): teams A, B, … with the winner (None: a draw)
    scoring 1, or a free-for-all by `order` (user ids, first to last)."""
    if order is not None:
        return ffa_lineup([Player(user_id, None) for user_id in order])
    sides = [team_letter(p.team if p.team is not None else 0) for p in players]
    scores = team_scores(sides, None if winner is None else team_letter(winner))
    return tuple(
        LineupEntry(Player(p.user_id, None), side, score, None)
        for p, side, score in zip(players, sides, scores, strict=True)
    )


def wait_text(seconds: float) -> str:
    """A duration as a person reads it: 45 s, 12 min, 3 h 5 min."""
    if seconds < 60:
        return f"{max(0, math.ceil(seconds))} s"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"
