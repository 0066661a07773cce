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

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Final

import numpy as np

from bot.ratings.balance import balance_teams, pack, team_sizes, win_probabilities
from bot.ratings.ladder import team_scores
from bot.services.errors import N_, Counted, Phrase, UserError, free_text, quoted
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
PARTY_MAX: Final = (1, 16)
MAP_PICKS: Final = ("random", "vote", "ban")
ROOM_KINDS: Final = ("none", "text", "voice")
MAP_SECONDS: Final = 30.0
"""How long a map vote, or each captain's ban, lasts (SPEC 10.5)."""
VOTE_CANDIDATES: Final = 3
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
    """A queue or map name; `what` (N_-marked) says which in a refusal."""
    name = free_text(text, what, quote=True).strip()
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        raise UserError(
            N_("{what} {text} must be 1 to {most} printable characters"),
            what=Phrase(what),
            text=quoted(text),
            most=MAX_NAME,
        )
    return name


def parse_maps(text: str) -> tuple[str, ...]:
    """Up to 25 map names separated by commas (an empty text: no maps)."""
    if not text.strip():
        return ()
    maps = tuple(_name(part, N_("map")) for part in text.split(","))
    if len(maps) > MAX_MAPS:
        raise UserError(
            N_("{maps}: a queue has at most {most}"),
            maps=Counted("{count} map", "{count} maps", len(maps)),
            most=MAX_MAPS,
        )
    if len({m.lower() for m in maps}) != len(maps):
        raise UserError(N_("a map is listed twice; list every map once"))
    return maps


def _within(value: int, low: int, high: int, what: str) -> None:
    if not low <= value <= high:
        raise UserError(
            N_("{what} {value} must be from {low} to {high}"),
            what=what,
            value=value,
            low=low,
            high=high,
        )


def checked_settings(settings: QueueSettings, pick_order_given: bool) -> QueueSettings:
    """The settings with a clean name and pick order, or UserError naming what is wrong.
    Without a pick order given, the snake of the queue's teams."""
    name = _name(settings.name, N_("queue name"))
    _within(settings.size, MIN_SIZE, MAX_SIZE, "size")
    if settings.format not in FORMATS:
        raise UserError(
            N_("format {value} must be one of {choices}"),
            value=quoted(settings.format),
            choices=", ".join(FORMATS),
        )
    if settings.mode not in MODES:
        raise UserError(
            N_("mode {value} must be one of {choices}"),
            value=quoted(settings.mode),
            choices=", ".join(MODES),
        )
    _within(settings.teams, 2, len(TEAM_LETTERS), "teams")
    _within(settings.ready_seconds, *READY_SECONDS, "ready_seconds")
    _within(settings.expire_minutes, *EXPIRE_MINUTES, "expire_minutes")
    _within(settings.rating_range, *RATING_RANGE, "range")
    _within(settings.widen, *WIDEN, "widen")
    _within(settings.party_max, *PARTY_MAX, "party_max")
    if settings.map_pick not in MAP_PICKS:
        raise UserError(
            N_("map_pick {value} must be one of {choices}"),
            value=quoted(settings.map_pick),
            choices=", ".join(MAP_PICKS),
        )
    if settings.map_pick != "random" and len(settings.maps) < 2:
        raise UserError(
            N_("map_pick {value} needs at least 2 maps (give maps)"), value=settings.map_pick
        )
    if settings.map_pick == "ban" and (settings.format != "teams" or settings.teams != 2):
        raise UserError(N_("map_pick ban is for two teams: team A's and B's best players ban"))
    if settings.rooms not in ROOM_KINDS:
        raise UserError(
            N_("rooms {value} must be one of {choices}"),
            value=quoted(settings.rooms),
            choices=", ".join(ROOM_KINDS),
        )
    if settings.rooms == "voice" and settings.format != "teams":
        raise UserError(N_("rooms voice gives each team a voice channel: use it with teams"))
    if settings.party_max > 1 and settings.format == "ffa":
        raise UserError(N_("party_max must be 1 in a free-for-all queue: parties play as teams"))
    if settings.format == "teams" and settings.size % settings.teams:
        raise UserError(
            N_("size {size} must be a multiple of teams ({teams}) so that the teams are equal"),
            size=settings.size,
            teams=settings.teams,
        )
    if settings.format == "teams" and settings.party_max > settings.size // settings.teams:
        raise UserError(
            N_("party_max {value} is larger than a team ({team}): a party plays on one team"),
            value=settings.party_max,
            team=settings.size // settings.teams,
        )
    order = settings.pick_order.strip().lower() if pick_order_given else snake(settings.teams)
    letters = TEAM_LETTERS[: settings.teams]
    if (
        not 1 <= len(order) <= MAX_PICK_ORDER
        or set(order) - set(letters)
        or set(letters) - set(order)
    ):
        raise UserError(
            N_(
                "pick_order {value} must be up to {most} letters naming every team ({letters}), "
                "such as {example}"
            ),
            value=quoted(settings.pick_order),
            most=MAX_PICK_ORDER,
            letters=", ".join(letters),
            example=snake(settings.teams),
        )
    return replace(settings, name=name, pick_order=order)


def window(spec: QueueSettings, joined_at: float, now: float) -> float:
    """How far (Elo) from a member's rating the range reaches once they have waited since
    `joined_at`: range + widen * minutes waited (SPEC 10.5)."""
    return spec.rating_range + spec.widen * max(0.0, now - joined_at) / 60.0


def pop_choice(
    spec: QueueSettings,
    waiting: Sequence[Waiting],
    ratings: Mapping[int, float],
    now: float,
    party_of: Mapping[int, int] | None = None,
) -> list[int] | None:
    """The members (user ids, in queue order) a queue pops now, None: it cannot pop.
    Without a range, the first `size`. With one, the longest-waiting member (ties: the
    earlier in line) and the earliest joiners whose Elo ratings lie within its window.
    Parties (`party_of`: member to leader) are taken whole or not at all, and only so that
    the parties taken fit into the teams: the earliest units that fill the lobby so
    (`_earliest_fill`), later ones passed over only when no fill takes them."""
    if len(waiting) < spec.size:
        return None
    parties = party_of or {}
    units: dict[int, list[Waiting]] = {}
    for member in waiting:
        units.setdefault(parties.get(member.user_id, member.user_id), []).append(member)
    candidates = list(units.values())
    if spec.rating_range:
        anchor = min(waiting, key=lambda w: w.joined_at)  # min keeps the first of equals
        reach = window(spec, anchor.joined_at, now)
        centre = ratings[anchor.user_id]
        first = next(unit for unit in candidates if anchor in unit)  # no larger than a team
        candidates = [first] + [
            unit
            for unit in candidates
            if unit is not first and all(abs(ratings[w.user_id] - centre) <= reach for w in unit)
        ]
    capacities = [spec.size // spec.teams] * spec.teams if spec.format == "teams" else []
    chosen = _earliest_fill(
        [len(unit) for unit in candidates], spec.size, capacities, first=bool(spec.rating_range)
    )
    if chosen is None:
        return None
    taken = {w.user_id for index in chosen for w in candidates[index]}
    return [w.user_id for w in waiting if w.user_id in taken]


SEARCH_STEPS: Final = 10_000
"""The most choices `_earliest_fill` tries before it gives up until the next change."""


def _earliest_fill(
    sizes: Sequence[int], size: int, capacities: Sequence[int], first: bool
) -> list[int] | None:
    """The units (indices) that fill `size` exactly with parties that still fit the teams,
    preferring earlier units: each unit in turn is taken if some fill with it exists. With
    `first`, unit 0 must be taken. None: no fill (or none found in SEARCH_STEPS). A state
    (next unit, players taken, party sizes taken) that failed once is not searched again."""
    after = [sum(sizes[i:]) for i in range(len(sizes) + 1)]
    failed: set[tuple[int, int, tuple[int, ...]]] = set()
    steps = 0

    def search(index: int, taken: list[int], count: int) -> list[int] | None:
        nonlocal steps
        if count == size:
            return taken
        parties = tuple(sorted(sizes[i] for i in taken if sizes[i] > 1))
        state = (index, count, parties)
        if index == len(sizes) or count + after[index] < size or state in failed:
            return None
        steps += 1
        if steps > SEARCH_STEPS:
            return None
        unit = sizes[index]
        if count + unit <= size and (unit == 1 or pack([*parties, unit], capacities) is not None):
            found = search(index + 1, [*taken, index], count + unit)
            if found is not None:
                return found
        if not (first and index == 0):
            found = search(index + 1, taken, count)
            if found is not None:
                return found
        failed.add(state)
        return None

    return search(0, [], 0)


def _fresh_maps(maps: Sequence[str], previous: str | None) -> list[str]:
    """The maps, without the previous lobby's when there are two or more."""
    return [m for m in maps if m != previous] if len(maps) >= 2 else list(maps)


def draw_map(maps: Sequence[str], previous: str | None, rng: random.Random) -> str | None:
    """A map drawn uniformly, never the previous one when there are two or more."""
    choices = _fresh_maps(maps, previous)
    return rng.choice(choices) if choices else None


def map_candidates(
    pick: str, maps: Sequence[str], previous: str | None, rng: random.Random
) -> tuple[str, ...]:
    """The maps in the running (SPEC 10.5): a vote's up to 3 drawn (never the previous
    map while two or more exist), in the queue's order; a ban's every map."""
    if pick == "ban":
        return tuple(maps)
    fresh = _fresh_maps(maps, previous)
    drawn = set(rng.sample(fresh, min(VOTE_CANDIDATES, len(fresh))))
    return tuple(m for m in fresh if m in drawn)


def vote_counts(candidates: Sequence[str], players: Sequence[LobbyPlayer]) -> list[int]:
    return [sum(1 for p in players if p.vote == m) for m in candidates]


def vote_winner(
    candidates: Sequence[str], players: Sequence[LobbyPlayer], rng: random.Random
) -> str:
    """The map with the most votes; a tie (no votes: every map) drawn at random."""
    counts = vote_counts(candidates, players)
    top = max(counts)
    return rng.choice([m for m, count in zip(candidates, counts, strict=True) if count == top])


def banning_captain(players: Sequence[LobbyPlayer], banned: int) -> LobbyPlayer:
    """Whose turn it is to ban: the highest-rated player of team A, then of B, in turn."""
    team = banned % 2
    return by_strength([p for p in players if p.team == team])[0]


def unit_of(player: LobbyPlayer) -> int:
    """The label players share when they must share a team: their party's (its leader's
    user id), else their own."""
    return player.user_id if player.party is None else player.party


def balanced(players: Sequence[LobbyPlayer], teams: int) -> list[LobbyPlayer]:
    """The players with teams of the most even split (SPEC 9.5) of their Elo ratings,
    each party on one team (SPEC 10.5)."""
    result = balance_teams([p.rating for p in players], teams, [unit_of(p) for p in players])
    team_of = {index: team for team, indices in enumerate(result.teams) for index in indices}
    return [replace(p, team=team_of[index]) for index, p in enumerate(players)]


def random_split(players: Sequence[LobbyPlayer], teams: int, seed: int) -> list[LobbyPlayer]:
    """A uniform split into equal teams: the players shuffled by `seed`, dealt in turn.
    With parties: the units (parties, players alone) shuffled by `seed`, the parties placed
    first (`pack`, in that shuffled order among equal sizes), then the others dealt in turn
    to the teams with room."""
    generator = np.random.default_rng(seed)
    order = generator.permutation(len(players)).tolist()
    if all(p.party is None for p in players):
        team_of = {player: turn % teams for turn, player in enumerate(order)}
        return [replace(p, team=team_of[index]) for index, p in enumerate(players)]
    units: dict[int, list[int]] = {}
    for index in order:
        units.setdefault(unit_of(players[index]), []).append(index)
    parties = [u for u in units.values() if len(u) > 1]
    room = team_sizes(len(players), teams)
    placed = pack([len(u) for u in parties], room)
    if placed is None:
        raise UserError(N_("the parties do not fit into the teams"))
    team_of = {}
    for unit, team in zip(parties, placed, strict=True):
        team_of.update(dict.fromkeys(unit, team))
        room[team] -= len(unit)
    turn = 0
    for index in order:
        if index in team_of:
            continue
        while not room[turn % teams]:
            turn += 1
        team_of[index] = turn % teams
        room[turn % teams] -= 1
        turn += 1
    return [replace(p, team=team_of[index]) for index, p in enumerate(players)]


def by_strength(players: Sequence[LobbyPlayer]) -> list[LobbyPlayer]:
    """Highest rating first; ties: the earlier in the queue."""
    return sorted(players, key=lambda p: (-p.rating, p.position))


def with_captains(players: Sequence[LobbyPlayer], teams: int) -> list[LobbyPlayer]:
    """The `teams` strongest players of different parties captain teams A, B, … in that
    order, each with their party; a party whose captaincy would leave the others unable to
    fit the teams is passed over. The others wait."""
    seated = [replace(p, captain=False, team=None, pick=None) for p in players]
    heads: set[int] = set()
    for player in by_strength(players):
        team = len(heads)
        if team == teams:
            break
        unit = unit_of(player)
        if any(p.team is not None for p in seated if unit_of(p) == unit):
            continue
        if _fits(seated, teams, team, unit):
            seated = [replace(p, team=team) if unit_of(p) == unit else p for p in seated]
            heads.add(player.user_id)
    return [replace(p, captain=p.user_id in heads) for p in seated]


def _room(players: Sequence[LobbyPlayer], teams: int) -> list[int]:
    sizes = team_sizes(len(players), teams)
    counts = [sum(1 for p in players if p.team == team) for team in range(teams)]
    return [size - count for size, count in zip(sizes, counts, strict=True)]


def _turn(players: Sequence[LobbyPlayer]) -> int:
    """Picks made so far (a party picked counts once)."""
    return len({p.pick for p in players if p.pick is not None})


def picking_team(players: Sequence[LobbyPlayer], teams: int, order: str) -> int | None:
    """The team whose captain picks now (None: nothing left to pick)."""
    room = _room(players, teams)
    if not any(room):
        return None
    turn = _turn(players)
    for step in range(len(order)):
        team = TEAM_LETTERS.index(order[(turn + step) % len(order)])
        if room[team]:
            return team
    raise AssertionError("a pick order names every team")  # checked_settings


def _fits(players: Sequence[LobbyPlayer], teams: int, team: int, unit: int) -> bool:
    """Whether the unit may go to `team` and every unit left still fits a team."""
    taking = [replace(p, team=team) if unit_of(p) == unit else p for p in players]
    room = _room(taking, teams)
    if room[team] < 0:
        return False
    left: dict[int, int] = {}
    for p in taking:
        if p.team is None:
            left[unit_of(p)] = left.get(unit_of(p), 0) + 1
    return pack(list(left.values()), room) is not None


def pick(
    players: Sequence[LobbyPlayer], teams: int, order: str, user_id: int | None
) -> list[LobbyPlayer]:
    """The picking captain takes `user_id` with their party (None: the highest-rated left
    whose party fits, an auto-pick); then, once a single team has room, the rest go to it
    without a pick. UserError when the party does not fit the team."""
    team = picking_team(players, teams, order)
    assert team is not None
    waiting = by_strength([p for p in players if p.team is None])
    if user_id is None:
        chosen = next(p for p in waiting if _fits(players, teams, team, unit_of(p)))
    else:
        chosen = next(p for p in waiting if p.user_id == user_id)
        if not _fits(players, teams, team, unit_of(chosen)):
            raise UserError(
                N_("{member}'s party does not fit team {team} now; pick another"),
                member=f"<@{user_id}>",
                team=team_letter(team),
            )
    turn = _turn(players)
    unit = unit_of(chosen)
    picked = [replace(p, team=team, pick=turn) if unit_of(p) == unit else p for p in players]
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
