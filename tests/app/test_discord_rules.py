"""Issue 23 finding 2: the fake Discord's rules (tests/app/discord_rules.py) refuse each thing
Discord's published API refuses, and accept requests right at every limit."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from tests.app.discord_rules import (
    INT53,
    JsonDict,
    autocomplete_problems,
    commands_problems,
    invalid_form_body,
    message_problems,
    name_problems,
)

MiB = 1024 * 1024


def option(name: str = "id", kind: int = 4, **more: Any) -> JsonDict:
    return {"type": kind, "name": name, "description": "d", **more}


def command(**more: Any) -> JsonDict:
    """A valid slash command with a subcommand group, a subcommand and typed options."""
    return {
        "type": 1,
        "name": "match",
        "description": "Matches",
        "options": [
            option(
                "show",
                1,
                options=[
                    option("id", 4, required=True, min_value=1, max_value=INT53),
                    option("by", 3, choices=[{"name": "ladder", "value": "ladder"}]),
                ],
            ),
            option("admin", 2, options=[option("void", 1)]),
        ],
        **more,
    }


def leaf(cmd: JsonDict) -> JsonDict:
    """The `id` option of /match show."""
    found: JsonDict = cmd["options"][0]["options"][0]
    return found


Change = Callable[[JsonDict], Any]
COMMAND_BREAKS: dict[str, Change] = {
    "name over 32": lambda c: c.update(name="m" * 33),
    "empty name": lambda c: c.update(name=""),
    "uppercase name": lambda c: c.update(name="Match"),
    "space in a name": lambda c: c.update(name="match show"),
    "punctuation in a name": lambda c: c.update(name="match!"),
    "uppercase option name": lambda c: leaf(c).update(name="Id"),
    "description over 100": lambda c: c.update(description="d" * 101),
    "empty description": lambda c: c.update(description=""),
    "option description over 100": lambda c: leaf(c).update(description="d" * 101),
    "max_value 2^53": lambda c: leaf(c).update(max_value=2**53),
    "min_value -2^53": lambda c: leaf(c).update(min_value=-(2**53)),
    "non-integer bound on an integer": lambda c: leaf(c).update(max_value=1.5),
    "min above max": lambda c: leaf(c).update(min_value=5, max_value=4),
    "26 options": lambda c: c["options"][0].update(options=[option(f"o{n}", 3) for n in range(26)]),
    "26 choices": lambda c: c["options"][0]["options"][1].update(
        choices=[{"name": f"c{n}", "value": f"c{n}"} for n in range(26)]
    ),
    "choice name over 100": lambda c: c["options"][0]["options"][1].update(
        choices=[{"name": "c" * 101, "value": "c"}]
    ),
    "choice value over 100": lambda c: c["options"][0]["options"][1].update(
        choices=[{"name": "c", "value": "c" * 101}]
    ),
    "choices with autocomplete": lambda c: c["options"][0]["options"][1].update(autocomplete=True),
    "required after optional": lambda c: c["options"][0]["options"].append(
        option("late", 3, required=True)
    ),
    "duplicate option names": lambda c: c["options"][0]["options"].append(option("id", 3)),
    "subcommand mixed with options": lambda c: c["options"].append(option("plain", 3)),
    "group inside a group": lambda c: c["options"][1]["options"].append(
        option("deeper", 2, options=[option("leaf", 1)])
    ),
    "subcommand inside a subcommand": lambda c: c["options"][0]["options"].append(
        option("deeper", 1)
    ),
    "unknown locale": lambda c: c.update(name_localizations={"xx": "spiel"}),
    "localised name uppercase": lambda c: c.update(name_localizations={"de": "Spiel"}),
    "localised name over 32": lambda c: c.update(name_localizations={"de": "s" * 33}),
    "localised description over 100": lambda c: leaf(c).update(
        description_localizations={"fr": "d" * 101}
    ),
    "string max_length over 6,000": lambda c: c["options"][0]["options"][1].update(max_length=6001),
}


def test_a_valid_command_list_is_accepted() -> None:
    assert commands_problems([command(), command(name="rating")]) == []


@pytest.mark.parametrize("name", COMMAND_BREAKS)
def test_each_command_rule_refuses(name: str) -> None:
    broken = copy.deepcopy(command())
    COMMAND_BREAKS[name](broken)
    problems = commands_problems([command(name="rating"), broken])
    assert problems, name
    assert all(problem.path[0] == "1" for problem in problems), problems


def test_duplicate_command_names_are_refused() -> None:
    assert commands_problems([command(), command()]) != []


def test_the_name_rule_takes_letters_numbers_devanagari_and_thai_of_every_script() -> None:
    for name in ("ränge", "σειρά", "очки", "排行", "स्कोर", "คะแนน", "p1-p8_x", "d'accord", "٣"):
        assert name_problems(("name",), name) == [], name
    for name in ("Ränge", "ΣΕΙΡΆ", "a.b", "a b", "emoji😀", "a" * 33):
        assert name_problems(("name",), name) != [], name


def localised(options: int) -> JsonDict:
    """A command whose `options` options each have 25 choices of a 1-character name with two
    100-character localisations: 103 characters a choice when only the longest counts."""
    choices = [
        {"name": "c", "value": f"{n:03d}", "name_localizations": {"de": "x" * 100, "fr": "y" * 100}}
        for n in range(25)
    ]
    return command(options=[option(f"o{n}", 3, choices=choices) for n in range(options)])


def test_the_8000_characters_count_each_fields_longest_localisation() -> None:
    assert commands_problems([localised(3)]) == []  # 7,7xx; summed it would be 15,000+
    problems = commands_problems([localised(4)])  # 10,3xx
    assert [problem.code for problem in problems] == ["APPLICATION_COMMAND_TOO_LARGE"]


def button(custom_id: str, label: str = "go") -> JsonDict:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label}


def row(*components: JsonDict) -> JsonDict:
    return {"type": 1, "components": list(components)}


def select(custom_id: str = "pick", options: int = 2, **more: Any) -> JsonDict:
    return {
        "type": 3,
        "custom_id": custom_id,
        "options": [{"label": f"l{n}", "value": f"v{n}"} for n in range(options)],
        **more,
    }


def field(name: str = "n", value: str = "v") -> JsonDict:
    return {"name": name, "value": value}


MESSAGE_BREAKS: dict[str, JsonDict] = {
    "content over 2,000": {"content": "c" * 2001},
    "11 embeds": {"embeds": [{"title": "t"}] * 11},
    "26 fields": {"embeds": [{"fields": [field()] * 26}]},
    "title over 256": {"embeds": [{"title": "t" * 257}]},
    "description over 4,096": {"embeds": [{"description": "d" * 4097}]},
    "field name over 256": {"embeds": [{"fields": [field(name="n" * 257)]}]},
    "field value over 1,024": {"embeds": [{"fields": [field(value="v" * 1025)]}]},
    "empty field value": {"embeds": [{"fields": [field(value="")]}]},
    "footer over 2,048": {"embeds": [{"footer": {"text": "f" * 2049}}]},
    "author over 256": {"embeds": [{"author": {"name": "a" * 257}}]},
    "6,001 across embeds": {"embeds": [{"description": "d" * 3000}, {"description": "d" * 3001}]},
    "6 action rows": {"components": [row(button(f"b{n}")) for n in range(6)]},
    "6 buttons in a row": {"components": [row(*(button(f"b{n}") for n in range(6)))]},
    "empty row": {"components": [row()]},
    "a select beside a button": {"components": [row(select(), button("b"))]},
    "custom_id over 100": {"components": [row(button("c" * 101))]},
    "duplicate custom_id": {"components": [row(button("same")), row(button("same"))]},
    "button without custom_id": {"components": [row({"type": 2, "style": 1, "label": "x"})]},
    "label over 80": {"components": [row(button("b", label="l" * 81))]},
    "26 select options": {"components": [row(select(options=26))]},
    "no select options": {"components": [row(select(options=0))]},
    "placeholder over 150": {"components": [row(select(placeholder="p" * 151))]},
    "select option label over 100": {
        "components": [row(select(options=1) | {"options": [{"label": "l" * 101, "value": "v"}]})]
    },
    "a button outside a row": {"components": [button("b")]},
}
AT_THE_LIMITS: JsonDict = {  # 256 + 1,904 + 3 * (256 + 1,024) = 6,000 characters
    "content": "c" * 2000,
    "embeds": [
        {
            "title": "t" * 256,
            "description": "d" * 1904,
            "fields": [field("n" * 256, "v" * 1024)] * 3,
        },
        *[{"title": ""} for _ in range(9)],
    ],
    "components": [
        *(row(*(button(f"{r}{n}" + "c" * 98, "l" * 80) for n in range(5))) for r in range(4)),
        row(select("s" * 100, 25, placeholder="p" * 150, max_values=25)),
    ],
}


@pytest.mark.parametrize("name", MESSAGE_BREAKS)
def test_each_message_rule_refuses(name: str) -> None:
    assert message_problems(MESSAGE_BREAKS[name]) != []


def test_a_message_at_every_limit_is_accepted() -> None:
    assert message_problems(AT_THE_LIMITS) == []


def test_a_file_over_the_attachment_size_limit_is_refused() -> None:
    assert message_problems({}, [10 * MiB]) == []
    assert message_problems({}, [10 * MiB + 1]) != []
    assert message_problems({}, [20 * MiB], limit=25 * MiB) == []
    assert message_problems({}, [1] * 11) != []


def test_autocomplete_results_are_checked() -> None:
    good = [{"name": "n" * 100, "value": "v" * 100}] * 25
    assert autocomplete_problems({"choices": good}) == []
    assert autocomplete_problems({"choices": [*good, good[0]]}) != []
    assert autocomplete_problems({"choices": [{"name": "", "value": "v"}]}) != []
    assert autocomplete_problems({"choices": [{"name": "n" * 101, "value": "v"}]}) != []
    assert autocomplete_problems({"choices": [{"name": "n", "value": "v" * 101}]}) != []


def test_the_answer_is_discords_400_body_with_the_path_of_the_bad_field() -> None:
    broken = command()
    leaf(broken)["max_value"] = 2**53
    answer = invalid_form_body(commands_problems([broken]))
    assert answer["code"] == 50035
    assert answer["message"] == "Invalid Form Body"
    errors = answer["errors"]["0"]["options"]["0"]["options"]["0"]["max_value"]["_errors"]
    assert errors[0]["code"] == "NUMBER_TYPE_MAX"
