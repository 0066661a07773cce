"""Issue 23 finding 2 (SPEC 4.1, 7): every slash command, button and autocomplete of the real
bot, driven once against the strict fake Discord with the largest inputs SPEC 7 allows
(32-character names full of Markdown, 32 participants, 25 queues, 25 maps, 6,000-character
reasons): Discord refuses none of the bot's requests.

The commands come from the synced tree and the buttons from the bot's DynamicItem templates,
so a command or button added later is swept too: the test fails on one it did not drive."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable, Iterator
from typing import Any

import discord
import pytest

import bot.app
from bot.config import SETTING_BOUNDS
from tests.app.discord_rules import JsonDict
from tests.app.fakediscord import GENERAL, LIVE, Event, FakeDiscord, Interaction, Member
from tests.app.harness import MOD, ROBOT, BotProcess, running, serving, write_config

WAIT = 60.0
"""Seconds a reply may take before the test gives up: a bound on a hung bot, not a time the
bot is expected to take."""
SUBCOMMANDS = (1, 2)
BUTTON = 2
USER, CHANNEL, ROLE, MENTIONABLE, BOOLEAN, STRING, INTEGER, NUMBER = 6, 7, 8, 9, 5, 3, 4, 10
LONGEST_TEXT = 6000
"""Discord's longest value of a string option: free text (reasons) the bot takes whole."""
MARKDOWN_NAME = "*_`~|>"
PLAYERS = [
    Member(8_000_000 + number, (f"{number:02d}{MARKDOWN_NAME}" * 4)[:32]) for number in range(1, 41)
]
"""Display names of Discord's longest (32), each doubled by Markdown escaping."""


def long_name(tag: str) -> str:
    """A 32-character queue, season or map name (SPEC 7 / 10: 1 to 32 characters)."""
    return (tag + "-" + "ü" * 32)[:32]


@pytest.fixture(scope="module", name="fake")
def sweep_fake() -> Iterator[FakeDiscord]:
    yield from serving(FakeDiscord([MOD, ROBOT, *PLAYERS]))


@pytest.fixture(scope="module", name="bot")
def sweep_bot(fake: FakeDiscord, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotProcess]:
    yield from running(BotProcess(fake, write_config(tmp_path_factory.mktemp("sweep"))))


def leaf_commands(commands: list[JsonDict]) -> dict[str, list[JsonDict]]:
    """`/command [group] [sub]` -> its options, for every command one can invoke."""
    found: dict[str, list[JsonDict]] = {}

    def walk(path: str, options: list[JsonDict]) -> None:
        nested = [o for o in options if o["type"] in SUBCOMMANDS]
        if not nested:
            found[path] = options
        for option in nested:
            walk(f"{path} {option['name']}", option.get("options", []))

    for command in commands:
        walk(command["name"], command.get("options", []))
    return found


def button_templates() -> list[re.Pattern[str]]:
    """The custom_id templates of every DynamicItem the bot defines (its buttons and
    selects that keep working after a restart)."""
    for module in pkgutil.walk_packages(bot.app.__path__, "bot.app."):
        importlib.import_module(module.name)

    def subclasses(cls: type[Any]) -> Iterator[type[Any]]:
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    return [
        item.__discord_ui_compiled_template__
        for item in subclasses(discord.ui.DynamicItem)
        if item.__module__.startswith("bot.")
    ]


ANSWERS = ("respond", "update", "defer", "defer_update", "other", "rejected")
"""An interaction's first answer: a refused one counts, so the test fails on it at once."""


class Sweep:
    """Drives the bot and keeps what later steps need (match and lobby numbers)."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.players = list(PLAYERS)
        self.matches: list[int] = []
        self.lobby = 0
        self.queue = long_name("q00")
        self.role = fake.add_role("sweep-rank", 1)
        self.season = long_name("season")
        self.used: list[str] = []
        """custom_ids used along the way (the captains' selects)"""

    def answered(self, asked: Interaction, what: str = "") -> Event:
        """The bot's first answer to an interaction (a message, a defer, choices)."""
        try:
            answer = self.fake.wait_for(
                lambda e: e.token == asked.token and e.kind in ANSWERS, WAIT, asked.after
            )
        except AssertionError:
            raise AssertionError(f"no answer to {what}") from None
        assert answer.kind != "rejected", (what, answer.payload)
        return answer

    def wait(self, predicate: Callable[[Event], bool], after: int) -> Event:
        """The first event from `after` that matches, failing at once on a refused request."""
        event = self.fake.wait_for(lambda e: e.kind == "rejected" or predicate(e), WAIT, after)
        assert event.kind != "rejected", event.payload
        return event

    def slash(self, user: Member, command: str, **options: Any) -> JsonDict:
        """The visible reply's payload (after a defer, its edit)."""
        asked = self.fake.slash(user, command, **options)
        return self.fake.wait_for(
            lambda e: (
                e.token == asked.token
                and e.kind in ("respond", "update", "edit_original", "followup")
            ),
            WAIT,
        ).payload

    def mentions(self, count: int, start: int = 0) -> list[str]:
        return [f"<@{p.id}>" for p in self.players[start : start + count]]

    def lineup(self) -> str:
        """32 participants on 4 sides: members and 32-character guests, scores at 1e9."""
        members = [f"{m} 1000000000 1440" for m in self.mentions(16)]
        guests = [f"{'g' * 29}{n:03d} 0 0.01" for n in range(16)]
        entries = [*members, *guests]
        return " | ".join(", ".join(entries[side::4]) for side in range(4))

    def team(self, start: int) -> str:
        return ", ".join(
            [*self.mentions(8, start), *(f"{'t' * 29}{start + n:03d}" for n in range(8))]
        )

    def match_id(self, payload: JsonDict) -> None:
        """The match number a report's reply names."""
        text = str(payload.get("content")) + str(payload.get("embeds"))
        found = re.search(r"#(\d+)", text)
        assert found, payload
        self.matches.append(int(found.group(1)))


def setting_value(option: JsonDict) -> Any:
    bound = SETTING_BOUNDS.get(option["name"])
    if bound is not None:
        return int(bound.high) if option["type"] == INTEGER else bound.high
    return None


def generic_value(sweep: Sweep, option: JsonDict, number: int) -> Any:
    """The largest value of an option the sweep knows nothing special about."""
    kind = option["type"]
    choices = option.get("choices")
    if choices:
        return max((c["value"] for c in choices), key=lambda v: len(str(v)))
    if kind in (USER, MENTIONABLE):
        return sweep.players[number % len(sweep.players)]
    if kind == CHANNEL:
        return LIVE
    if kind == ROLE:
        return sweep.role
    if kind == BOOLEAN:
        return True
    if kind in (INTEGER, NUMBER):
        declared = setting_value(option)
        if declared is None:
            declared = option.get("max_value", 1000)
        return declared
    if kind == STRING:
        return "x" * min(option.get("max_length", LONGEST_TEXT), LONGEST_TEXT)
    raise AssertionError(f"the sweep cannot fill option {option['name']} of type {kind}")


Options = Callable[[Sweep], JsonDict]
P = PLAYERS
KNOWN: dict[str, Options] = {
    "report scores": lambda s: {"lineup": s.lineup(), "minutes": 1440.0},
    "report team": lambda s: {"team_a": s.team(0), "team_b": s.team(8), "winner": "a"},
    "report ffa": lambda s: dict(
        zip(
            ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"),
            s.players[:8],
            strict=True,
        ),
        minutes=1440.0,
    ),
    "report duel": lambda s: {"winner": P[0], "loser": P[1], "draw": True, "minutes": 1440.0},
    "match show": lambda s: {"id": s.matches[0]},
    "match confirm": lambda s: {"id": s.matches[0]},
    "match list": lambda s: {"member": P[0]},
    "admin void": lambda s: {"id": s.matches[0], "reason": "r" * LONGEST_TEXT},
    "admin edit": lambda s: {"id": s.matches[0], "lineup": s.lineup(), "minutes": 1440.0},
    "admin channel": lambda s: {"channel": LIVE},
    "admin modlog": lambda s: {"channel": GENERAL},
    "admin evaluate": lambda s: {"last": 1_000_000, "tune": True},
    "admin season start": lambda s: {"name": s.season, "carry": 1.0},
    "admin rank add": lambda s: {"role": s.role, "min_rating": 1e6},
    "admin rank remove": lambda s: {"role": s.role},
    "balance": lambda s: {"players": " ".join(s.mentions(32)), "teams": 4},
    "leaderboard": lambda s: {"by": "ladder", "page": 1},
    "admin queue create": lambda s: {
        "name": s.queue,
        "channel": GENERAL,
        "size": 32,
        "format": "teams",
        "teams": 4,
        "mode": "captains",
        "ready_seconds": 0,
        "expire_minutes": 1440,
        "maps": ",".join(long_name(f"m{n:02d}") for n in range(25)),
        "pick_order": "abcd" * 16,
        "range": 2000,
        "widen": 500,
    },
    "admin queue edit": lambda s: {"name": s.queue, "expire_minutes": 1440},
    "admin queue delete": lambda s: {"name": long_name("q24")},
    "queue join": lambda s: {"name": long_name("q01")},
    "queue leave": lambda s: {"name": long_name("q01")},
    "queue result": lambda s: {"lobby": s.lobby, "winner": "draw"},
    "queue party invite": lambda s: {"member": s.players[35]},
    "admin lobby sub": lambda s: {"id": s.lobby, "out": s.players[0], "in": s.players[32]},
    "admin lobby cancel": lambda s: {"id": s.lobby},
}
FIRST = ("report scores", "report team", "report ffa", "report duel", "admin queue create")
LAST: tuple[str, ...] = ("admin lobby sub", "queue result", "admin lobby cancel", "admin void")
LAST += ("admin settings", "admin season start", "admin queue delete", "admin rank remove")
LAST += ("ladder leave", "queue party leave")
REPORTS = ("report scores", "report team", "report ffa", "report duel")


def ordered(paths: list[str]) -> list[str]:
    """The setup commands first, the ones that end something last, the rest between."""
    rank = {path: index for index, path in enumerate(FIRST)}
    rank |= {path: 1000 + index for index, path in enumerate(LAST)}
    return sorted(paths, key=lambda path: (rank.get(path, 500), paths.index(path)))


def options_for(sweep: Sweep, path: str, schema: list[JsonDict]) -> JsonDict:
    """Every option filled: the known commands' values, the largest generic ones else."""
    known = KNOWN[path](sweep) if path in KNOWN else {}
    return {
        option["name"]: known.get(option["name"], generic_value(sweep, option, number))
        for number, option in enumerate(schema)
        if option["name"] in known or path not in KNOWN or option.get("required")
    } | known


def fill_the_big_queue(sweep: Sweep, fake: FakeDiscord) -> None:
    """24 more queues (25 in all, the most a guild has), and the captains queue filled by 32
    players through its Join button: the lobby pops, its captains pick the 28 others from
    the select menus (25 + 3 at first), and it plays. Two queues of two choose their map:
    one by a vote (both vote, then it plays with its result buttons), one by bans from a
    menu of 25 maps."""
    maps = {
        "vote": ",".join(long_name(f"v{n:02d}") for n in range(3)),
        "ban": ",".join(long_name(f"b{n:02d}") for n in range(25)),
    }
    special: dict[int, JsonDict] = {
        1: {"size": 32, "party_max": 16},  # a queue that takes parties, at their largest
        **{
            number: {"size": 2, "ready_seconds": 0, "map_pick": pick, "maps": maps[pick]}
            for number, pick in ((2, "vote"), (3, "ban"))
        },
    }
    for number in range(1, 25):
        sweep.slash(
            MOD,
            "admin queue create",
            name=long_name(f"q{number:02d}"),
            channel=GENERAL,
            **special.get(number, {"size": 2}),
        )
    vote_on_a_map(sweep, fake, long_name("q02"))
    pop(sweep, fake, long_name("q03"), sweep.players[38:40])
    created = sweep.wait(
        lambda e: e.kind == "message_create" and sweep.queue in str(e.payload.get("embeds")), 0
    )
    join = next(c for c in custom_ids(created.payload) if ":join:" in c)
    mark = fake.mark()
    for player in sweep.players[:32]:
        sweep.answered(fake.click(player, int(created.message_id or 0), join))
    lobby = sweep.wait(lambda e: e.kind == "message_create" and "Lobby #" in str(e.payload), mark)
    popped = re.search(r"Lobby #(\d+)", str(lobby.payload))
    assert popped, lobby.payload
    sweep.lobby = int(popped.group(1))
    message = int(lobby.message_id or 0)
    leaders = [
        re.match(r"<@(\d+)>", team["value"]) for team in lobby.payload["embeds"][0]["fields"][:4]
    ]
    assert all(leaders), lobby.payload
    captains = [int(leader.group(1)) for leader in leaders if leader]
    select_of = {
        option["value"]: part["custom_id"]
        for row in lobby.payload["components"]
        for part in row["components"]
        for option in part.get("options", [])
    }
    assert len(set(select_of.values())) == 2, select_of  # 28 to pick: selects of 25 and 3
    # the captains pick in the queue's order (abcd…) on the message as first shown (the
    # bot redraws it at most every 2 s); the last player goes to the last team unpicked
    for turn, (player, select) in enumerate(list(select_of.items())[:-1]):
        captain = fake.members[captains[turn % 4]]
        sweep.answered(fake.select(captain, message, select, [player]), select)
        sweep.used.append(select)
    sweep.wait(
        lambda e: e.message_id == message and "playing" in str(e.payload.get("embeds")), mark
    )


def pop(sweep: Sweep, fake: FakeDiscord, name: str, players: list[Member]) -> Event:
    """`players` fill the queue `name` with its Join button: its lobby's first message."""
    mark = fake.mark()
    queue = sweep.wait(lambda e: e.kind == "message_create" and name in str(e.payload), 0)
    join = next(c for c in custom_ids(queue.payload) if ":join:" in c)
    for player in players:
        sweep.answered(fake.click(player, int(queue.message_id or 0), join), join)
    return sweep.wait(lambda e: e.kind == "message_create" and "Lobby #" in str(e.payload), mark)


def vote_on_a_map(sweep: Sweep, fake: FakeDiscord, name: str) -> None:
    """Two players fill the queue `name`; its lobby offers maps to vote on; both vote and
    the lobby plays with its result buttons."""
    voters = sweep.players[36:38]
    lobby = pop(sweep, fake, name, voters)
    mark = fake.mark()
    vote = next(c for c in custom_ids(lobby.payload) if ":vote:" in c)
    for player in voters:
        sweep.answered(fake.click(player, int(lobby.message_id or 0), vote), vote)
    sweep.used.append(vote)
    sweep.wait(
        lambda e: (
            e.message_id == lobby.message_id
            and any(":lobby:a:" in c for c in custom_ids(e.payload))
        ),
        mark,
    )


def ten_more_matches(sweep: Sweep, payload: JsonDict) -> None:
    """Ten duels a moderator reports (applied at once): /admin evaluate needs ten."""
    sweep.match_id(payload)
    for number in range(2, 12):
        sweep.slash(MOD, "report duel", winner=P[number], loser=P[number + 1])


AFTER: dict[str, Callable[[Sweep, FakeDiscord, JsonDict], None]] = {
    **{path: lambda s, f, payload: s.match_id(payload) for path in REPORTS},
    "report duel": lambda s, f, payload: ten_more_matches(s, payload),
    "admin queue create": lambda s, f, payload: fill_the_big_queue(s, f),
}


def custom_ids(payload: JsonDict) -> list[str]:
    return [
        part["custom_id"]
        for row in payload.get("components") or []
        for part in row.get("components", [])
        if "custom_id" in part
    ]


def test_finding_2_every_command_button_and_autocomplete_is_one_discord_accepts(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    mark, logged = fake.mark(), bot.log_size()
    sweep = Sweep(fake)
    tree = leaf_commands(fake.synced_commands())
    driven: list[str] = []
    offered: list[Event] = []
    for path in ordered(list(tree)):
        if path == LAST[0]:  # 25 queues stand: every autocomplete, at its longest answer
            offered = autocomplete_everything(sweep, fake, tree)
        reporter = P[0] if path in REPORTS else MOD
        payload = sweep.slash(reporter, path, **options_for(sweep, path, tree[path]))
        if path in AFTER:
            AFTER[path](sweep, fake, payload)
        driven.append(path)
    assert sorted(driven) == sorted(tree)
    assert offered and max(len(event.payload["choices"]) for event in offered) == 25

    clicked = sweep.used + click_every_kind_of_component(sweep, fake)
    for template in button_templates():
        assert any(template.fullmatch(custom_id) for custom_id in clicked), template.pattern

    assert [(e.payload["kind"], e.payload["answer"]) for e in fake.rejected(mark)] == []
    assert "Traceback" not in bot.output_since(logged)


def autocomplete_everything(
    sweep: Sweep, fake: FakeDiscord, tree: dict[str, list[JsonDict]]
) -> list[Event]:
    """The bot's choices for every option that offers them, typed empty (every choice)."""
    return [
        sweep.answered(fake.autocomplete(MOD, path, option["name"], ""))
        for path, schema in tree.items()
        for option in schema
        if option.get("autocomplete")
    ]


def click_every_kind_of_component(sweep: Sweep, fake: FakeDiscord) -> list[str]:
    """One click on a button (or the first choice of a select) of each kind the bot's
    messages show, the newest of its kind as shown at the time (a click changes messages),
    by a player."""
    clicked: dict[str, str] = {}
    while True:
        shown: dict[str, tuple[int, JsonDict]] = {}
        for message_id in sorted(set(fake.messages) - fake.deleted):
            for row in fake.message(message_id).get("components") or []:
                for part in row.get("components", []):
                    shape = re.sub(r"\d+", "#", part.get("custom_id", ""))
                    if shape and shape not in clicked:
                        shown[shape] = (message_id, part)
        if not shown:
            return list(clicked.values())
        shape, (message_id, part) = next(iter(shown.items()))
        if part["type"] == BUTTON:
            asked = fake.click(P[1], message_id, part["custom_id"])
        else:
            asked = fake.select(P[1], message_id, part["custom_id"], [part["options"][0]["value"]])
        sweep.answered(asked, part["custom_id"])
        clicked[shape] = part["custom_id"]
