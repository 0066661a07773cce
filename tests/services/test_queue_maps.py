"""Map vote and ban (SPEC 10.5) on both engines: votes and changed votes, all voted or the
30 s deadline closes the vote (also when the deadline passed while the bot was down, acted
on by a new process), ties drawn at random, the previous lobby's map never on the ballot;
the captains' bans in turn, a random ban for a captain out of time, the last map chosen;
no result while the map is being chosen."""

from __future__ import annotations

import random

import pytest

from bot.services import Actor, MemberInfo, Services, UserError
from bot.services.queue_rules import vote_winner
from bot.services.queues import Queues
from bot.storage.queues import Lobby, LobbyPlayer, MapPick, QueueSettings
from tests.services.conftest import Clock
from tests.services.queue_helpers import seated

GUILD = 13
MOD = Actor(999, is_moderator=True)
MAPS = ("dust", "nuke", "inferno", "mirage", "train")


def service(services: Services, seed: int = 3) -> Queues:
    return Queues(services.context, services.matches, rng=random.Random(seed))


async def popped(queues: Queues, first: int) -> Lobby:
    for user in range(first, first + 4):
        result = await queues.join(GUILD, MemberInfo(user, f"p{user}"), "maps")
    (lobby,) = result.lobbies
    return lobby


async def make(queues: Queues, pick: MapPick) -> None:
    spec = QueueSettings("maps", 40, 4, ready_seconds=0, maps=MAPS, map_pick=pick)
    await queues.create_queue(GUILD, MOD, spec, pick_order_given=False)


async def test_votes_change_and_the_last_vote_closes_it(services: Services) -> None:
    queues = service(services)
    await make(queues, "vote")
    lobby = await popped(queues, 1)
    assert lobby.state == "playing" and lobby.map is None and lobby.choosing_map
    ballot = lobby.map_candidates
    assert len(ballot) == 3 and set(ballot) <= set(MAPS)
    await queues.vote_map(GUILD, 1, lobby.lobby_id, 0)
    changed = await queues.vote_map(GUILD, 1, lobby.lobby_id, 1)
    assert seated(changed.lobby, 1).vote == ballot[1]
    assert (await queues.vote_map(GUILD, 1, lobby.lobby_id, 1)).already
    with pytest.raises(UserError, match="not on lobby"):
        await queues.vote_map(GUILD, 2, lobby.lobby_id, 3)
    with pytest.raises(UserError, match="not a player"):
        await queues.vote_map(GUILD, 9, lobby.lobby_id, 0)
    await queues.vote_map(GUILD, 2, lobby.lobby_id, 1)
    await queues.vote_map(GUILD, 3, lobby.lobby_id, 0)
    with pytest.raises(UserError, match="still choosing its map"):
        await queues.result(GUILD, MOD, lobby.lobby_id, winner="a")
    closed = (await queues.vote_map(GUILD, 4, lobby.lobby_id, 2)).lobby
    assert closed.map == ballot[1] and not closed.choosing_map  # 2 votes to 1 and 1
    with pytest.raises(UserError, match=f"its map is {ballot[1]}"):
        await queues.vote_map(GUILD, 4, lobby.lobby_id, 0)
    await queues.result(GUILD, MOD, lobby.lobby_id, winner="a")
    second = await popped(queues, 11)
    assert ballot[1] not in second.map_candidates  # never the previous lobby's map


async def test_the_deadline_closes_the_vote_also_after_a_restart(
    services: Services, clock: Clock
) -> None:
    queues = service(services)
    await make(queues, "vote")
    lobby = await popped(queues, 1)
    await queues.vote_map(GUILD, 1, lobby.lobby_id, 2)
    clock.now += 29
    assert await queues.run_due() == 0
    clock.now += 2  # the bot was down meanwhile: a new process acts on it
    restarted = service(services, seed=8)
    assert await restarted.run_due() == 1 and await restarted.run_due() == 0
    closed = await restarted.lobby(GUILD, lobby.lobby_id)
    assert closed.map == lobby.map_candidates[2] and not closed.choosing_map


def test_a_tie_is_drawn_at_random() -> None:
    players = [LobbyPlayer(n, n, 1500.0, vote=("a", "b", "a", "b")[n]) for n in range(4)]
    drawn = {vote_winner(("a", "b", "c"), players, random.Random(seed)) for seed in range(40)}
    assert drawn == {"a", "b"}  # never c (no votes), each of the tied sometimes
    unvoted = [LobbyPlayer(n, n, 1500.0) for n in range(4)]
    assert {vote_winner(("a", "b"), unvoted, random.Random(s)) for s in range(40)} == {"a", "b"}


async def test_captains_ban_in_turn_until_one_map_is_left(services: Services, clock: Clock) -> None:
    queues = service(services)
    await make(queues, "ban")
    lobby = await popped(queues, 1)
    assert lobby.map_candidates == MAPS and lobby.map is None
    a, b = (
        max(
            (p for p in lobby.players if p.team == team), key=lambda p: (p.rating, -p.position)
        ).user_id
        for team in (0, 1)
    )  # the highest-rated of each team (all unrated: the first in line)
    with pytest.raises(UserError, match=f"<@{a}>'s turn"):
        await queues.ban_map(GUILD, b, lobby.lobby_id, "dust")
    after = (await queues.ban_map(GUILD, a, lobby.lobby_id, "dust")).lobby
    assert after.map_banned == ("dust",) and "dust" not in after.map_candidates
    with pytest.raises(UserError, match="not among the maps left"):
        await queues.ban_map(GUILD, b, lobby.lobby_id, "dust")
    clock.now += 31  # team B's captain is out of time: a random ban for them
    assert await queues.run_due() == 1
    after = await queues.lobby(GUILD, lobby.lobby_id)
    assert len(after.map_banned) == 2 and after.choosing_map
    await queues.ban_map(GUILD, a, lobby.lobby_id, after.map_candidates[0])
    last = after.map_candidates[-1]
    done = (await queues.ban_map(GUILD, b, lobby.lobby_id, after.map_candidates[1])).lobby
    assert done.map == last and not done.choosing_map and len(done.map_banned) == 4


async def test_the_settings_refuse_a_vote_without_maps_and_a_ban_without_two_teams(
    services: Services,
) -> None:
    queues = service(services)
    for spec, text in (
        (QueueSettings("v", 40, 4, map_pick="vote"), "at least 2 maps"),
        (QueueSettings("b", 40, 6, teams=3, maps=MAPS, map_pick="ban"), "two teams"),
        (QueueSettings("f", 40, 4, format="ffa", maps=MAPS, map_pick="ban"), "two teams"),
    ):
        with pytest.raises(UserError, match=text):
            await queues.create_queue(GUILD, MOD, spec, pick_order_given=False)
