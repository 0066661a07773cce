"""What Discord refuses, as its published API describes it (SPEC 4.1), for the fake Discord.

The rules come from Discord's OpenAPI description (github.com/discord/discord-api-spec,
specs/openapi.json: ApplicationCommandUpdateRequest and its option schemas, Int53Type,
AvailableLocalesEnum, RichEmbed*, ActionRowComponentForMessageRequest, Button- and
StringSelectComponentForMessageRequest, StringSelectOptionForRequest,
ApplicationCommandAutocompleteCallbackRequest) and from its API reference where the schema
says less (developers/interactions/application-commands: the name rule, lowercase names,
required options first, unique option names, the 8,000-character command size;
resources/message: the embed total of 6,000 and content of 2,000; components: 5 action rows,
a select alone in its row, unique custom_ids; the 10 MiB upload limit).

Each function returns the problems found, `(path, code, message)`, empty when Discord would
accept the request; `invalid_form_body` turns them into Discord's 400 answer.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

JsonDict = dict[str, Any]
"""A JSON object as Discord sends and takes it (the one alias the fake and its tests use)."""
INVALID_FORM_BODY = 50035


class Problem(NamedTuple):
    path: tuple[str, ...]
    code: str
    message: str


# ----------------------------------------------------------------- numbers from the reference
NAME_LIMIT = 32
DESCRIPTION_LIMIT = 100
OPTIONS_PER_LIST = 25
CHOICES_PER_OPTION = 25
CHOICE_NAME_LIMIT = 100
CHOICE_STRING_VALUE_LIMIT = 100
STRING_LENGTH_BOUND = 6000  # min_length 0..6000, max_length 1..6000
COMMAND_SIZE_LIMIT = 8000
COMMANDS_PER_BULK = 130  # the bulk PUT's maxItems
CHAT_INPUT_PER_SCOPE = 100
INT53 = 2**53 - 1  # Int53Type: INTEGER options, their bounds and choices
NUMBER_BOUND = 2**53  # NUMBER: "any double between -2^53 and 2^53"
LOCALES = frozenset(  # AvailableLocalesEnum
    {"ar", "bg", "cs", "da", "de", "el", "en-GB", "en-US", "es-419", "es-ES", "fi", "fr"}
    | {"he", "hi", "hr", "hu", "id", "it", "ja", "ko", "lt", "nl", "no", "pl", "pt-BR"}
    | {"ro", "ru", "sv-SE", "th", "tr", "uk", "vi", "zh-CN", "zh-TW"}
)

CONTENT_LIMIT = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_TOTAL = 6000
FIELDS_PER_EMBED = 25
EMBED_TEXT_LIMITS = {"title": 256, "description": 4096}
FIELD_TEXT_LIMITS = {"name": 256, "value": 1024}
FOOTER_LIMIT = 2048
AUTHOR_NAME_LIMIT = 256
EMBED_URL_LIMIT = 2048
COLOR_MAX = 0xFFFFFF

ACTION_ROWS_PER_MESSAGE = 5
COMPONENTS_PER_ROW = 5
CUSTOM_ID_LIMIT = 100
BUTTON_LABEL_LIMIT = 80
BUTTON_URL_LIMIT = 512
PLACEHOLDER_LIMIT = 150
SELECT_OPTIONS = 25
SELECT_OPTION_TEXT_LIMIT = 100
SELECT_VALUES_MAX = 25
ATTACHMENTS_PER_MESSAGE = 10
DEFAULT_ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024

SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, NUMBER = 1, 2, 3, 4, 10
WITH_CHOICES = (STRING, INTEGER, NUMBER)
CHAT_INPUT = 1
ACTION_ROW, BUTTON, STRING_SELECT = 1, 2, 3
SELECTS = (3, 5, 6, 7, 8)
LINK_STYLE, PREMIUM_STYLE = 5, 6


def _length(path: tuple[str, ...], text: Any, low: int, high: int) -> list[Problem]:
    """A string of low..high characters (a missing optional one is not checked here)."""
    if text is None:
        return []
    if not isinstance(text, str):
        return [Problem(path, "STRING_TYPE_CONVERT", "Could not interpret value as string.")]
    if len(text) > high:
        return [Problem(path, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")]
    if len(text) < low:
        return [Problem(path, "BASE_TYPE_MIN_LENGTH", f"Must be {low} or more in length.")]
    return []


def _required(path: tuple[str, ...], value: Any) -> list[Problem]:
    return (
        [] if value is not None else [Problem(path, "BASE_TYPE_REQUIRED", "This field is required")]
    )


def _at_most(path: tuple[str, ...], items: Any, limit: int) -> list[Problem]:
    if items is not None and len(items) > limit:
        return [Problem(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")]
    return []


# ----------------------------------------------------------------- command names
def _in_name_script(char: str) -> bool:
    """\\p{L}, \\p{N}, \\p{sc=Deva} or \\p{sc=Thai} (the Devanagari and Thai blocks stand in
    for their scripts: the marks there are neither letters nor numbers)."""
    point = ord(char)
    return (
        unicodedata.category(char)[0] in "LN"
        or 0x0900 <= point <= 0x097F  # Devanagari
        or 0xA8E0 <= point <= 0xA8FF  # Devanagari Extended
        or 0x11B00 <= point <= 0x11B5F  # Devanagari Extended-A
        or 0x0E00 <= point <= 0x0E7F  # Thai
    )


def name_problems(path: tuple[str, ...], name: Any) -> list[Problem]:
    """A CHAT_INPUT command or option name: `^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$`,
    and lowercase wherever a letter has a lowercase form."""
    if not isinstance(name, str) or not 1 <= len(name) <= NAME_LIMIT:
        return _length(path, name, 1, NAME_LIMIT) or _required(path, name)
    bad = [char for char in name if not (char in "-_'" or _in_name_script(char))]
    if bad:
        message = f"Command name is invalid ({''.join(bad)!r} is not allowed)"
        return [Problem(path, "APPLICATION_COMMAND_INVALID_NAME", message)]
    if name != name.lower():
        return [Problem(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name must be lowercase")]
    return []


def _localizations(path: tuple[str, ...], value: Any, check: Any) -> Iterator[Problem]:
    """A localisation dictionary: keys are Discord's locales, each value obeys `check`."""
    if value is None:
        return
    for locale, text in value.items():
        if locale not in LOCALES:
            yield Problem(
                (*path, locale), "BASE_TYPE_CHOICES", f"Value must be one of {sorted(LOCALES)}."
            )
        yield from check((*path, locale), text)


def _description(path: tuple[str, ...], text: Any) -> list[Problem]:
    return _length(path, text, 1, DESCRIPTION_LIMIT) or _required(path, text)


def _longest(text: Any, localizations: Any) -> int:
    """A field's characters towards the 8,000: its longest localisation, the default included."""
    texts = [text, *(localizations or {}).values()]
    return max((len(str(t)) for t in texts if t is not None), default=0)


# ----------------------------------------------------------------- commands
def commands_problems(commands: Any) -> list[Problem]:
    """A bulk overwrite (PUT .../commands, global or guild): every command valid, names unique
    per type. One problem refuses the whole list."""
    if not isinstance(commands, list):
        return [Problem((), "BASE_TYPE_ARRAY", "Must be an array.")]
    problems = _at_most((), commands, COMMANDS_PER_BULK)
    chat_input = [c for c in commands if c.get("type") in (None, CHAT_INPUT)]
    if len(chat_input) > CHAT_INPUT_PER_SCOPE:
        problems.append(
            Problem((), "APPLICATION_COMMANDS_MAX", f"Maximum number of {CHAT_INPUT_PER_SCOPE}.")
        )
    seen: set[tuple[Any, Any]] = set()
    for index, command in enumerate(commands):
        key = (command.get("type") or CHAT_INPUT, command.get("name"))
        if key in seen:
            problems.append(
                Problem(
                    (str(index), "name"),
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                    f"Application command names must be unique ({key[1]})",
                )
            )
        seen.add(key)
        problems += command_problems(command, (str(index),))
    return problems


def command_problems(command: JsonDict, at: tuple[str, ...] = ()) -> list[Problem]:
    """One command of a registration."""
    if (command.get("type") or CHAT_INPUT) != CHAT_INPUT:  # USER and MESSAGE: a plain name
        return _length((*at, "name"), command.get("name"), 1, NAME_LIMIT)
    problems = name_problems((*at, "name"), command.get("name"))
    problems += _description((*at, "description"), command.get("description"))
    problems += _localizations(
        (*at, "name_localizations"), command.get("name_localizations"), name_problems
    )
    problems += _localizations(
        (*at, "description_localizations"), command.get("description_localizations"), _description
    )
    problems += _options_problems((*at, "options"), command.get("options"), depth=0)
    size = command_size(command)
    if size > COMMAND_SIZE_LIMIT:
        problems.append(
            Problem(
                at,
                "APPLICATION_COMMAND_TOO_LARGE",
                f"Command exceeds maximum size ({size} > {COMMAND_SIZE_LIMIT})",
            )
        )
    return problems


def command_size(command: JsonDict) -> int:
    """Characters of the command towards Discord's 8,000: name, description and choice values
    of the command, its options (subcommands and groups included) and choices, each field
    counted by its longest localisation."""

    def size(item: JsonDict) -> int:
        total = _longest(item.get("name"), item.get("name_localizations"))
        total += _longest(item.get("description"), item.get("description_localizations"))
        for choice in item.get("choices") or []:
            total += _longest(choice.get("name"), choice.get("name_localizations"))
            total += len(str(choice.get("value", "")))
        return total + sum(size(option) for option in item.get("options") or [])

    return size(command)


def _options_problems(at: tuple[str, ...], options: Any, depth: int) -> list[Problem]:
    """A list of options: at the command (depth 0), in a group (1) or a subcommand (2)."""
    if options is None:
        return []
    problems = _at_most(at, options, OPTIONS_PER_LIST)
    kinds = [option.get("type") for option in options]
    nesting = [kind in (SUB_COMMAND, SUB_COMMAND_GROUP) for kind in kinds]
    if any(nesting) and not all(nesting):
        problems.append(
            Problem(
                at,
                "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
                "Subcommands and groups cannot be mixed with other options",
            )
        )
    allowed = {0: {SUB_COMMAND, SUB_COMMAND_GROUP}, 1: {SUB_COMMAND}, 2: set()}[depth]
    names: set[Any] = set()
    optional_seen = False
    for number, option in enumerate(options):
        path = (*at, str(number))
        kind = option.get("type")
        if (kind in (SUB_COMMAND, SUB_COMMAND_GROUP) or depth == 1) and kind not in allowed:
            problems.append(
                Problem(
                    (*path, "type"),
                    "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                    "A group holds only subcommands; a subcommand holds no subcommand or group",
                )
            )
        if option.get("name") in names:
            problems.append(
                Problem(
                    (*path, "name"),
                    "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",
                    "Option names must be unique",
                )
            )
        names.add(option.get("name"))
        if kind not in (SUB_COMMAND, SUB_COMMAND_GROUP):
            if option.get("required"):
                if optional_seen:
                    problems.append(
                        Problem(
                            (*path, "required"),
                            "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                            "Required options must be placed before non-required options",
                        )
                    )
            else:
                optional_seen = True
        problems += _option_problems(path, option, depth)
    return problems


def _option_problems(path: tuple[str, ...], option: JsonDict, depth: int) -> list[Problem]:
    kind = option.get("type")
    problems = name_problems((*path, "name"), option.get("name"))
    problems += _description((*path, "description"), option.get("description"))
    problems += _localizations(
        (*path, "name_localizations"), option.get("name_localizations"), name_problems
    )
    problems += _localizations(
        (*path, "description_localizations"), option.get("description_localizations"), _description
    )
    if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
        next_depth = 1 if kind == SUB_COMMAND_GROUP else 2
        return problems + _options_problems((*path, "options"), option.get("options"), next_depth)
    if option.get("options") is not None:
        problems.append(
            Problem((*path, "options"), "BASE_TYPE_BAD_TYPE", "Only subcommands have options")
        )
    choices = option.get("choices")
    if choices is not None:
        if kind not in WITH_CHOICES:
            problems.append(Problem((*path, "choices"), "BASE_TYPE_BAD_TYPE", "No choices here"))
        if option.get("autocomplete"):
            problems.append(
                Problem(
                    (*path, "autocomplete"),
                    "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
                    "Autocomplete cannot be set with choices",
                )
            )
        problems += choices_problems((*path, "choices"), choices, kind)
    problems += _bounds_problems(path, option)
    return problems


def _number_problems(path: tuple[str, ...], value: Any, kind: int | None) -> list[Problem]:
    """An INTEGER value within Int53 (±(2^53 - 1)); a NUMBER within ±2^53."""
    if value is None:
        return []
    if kind == INTEGER:
        if not isinstance(value, int) or isinstance(value, bool):
            return [Problem(path, "NUMBER_TYPE_COERCE", "Value is not int.")]
        bound = INT53
    else:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return [Problem(path, "NUMBER_TYPE_COERCE", "Value is not a number.")]
        bound = NUMBER_BOUND
    if value > bound:
        return [
            Problem(path, "NUMBER_TYPE_MAX", f"int value should be less than or equal to {bound}.")
        ]
    if value < -bound:
        return [
            Problem(
                path, "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {-bound}."
            )
        ]
    return []


def _bounds_problems(path: tuple[str, ...], option: JsonDict) -> list[Problem]:
    kind = option.get("type")
    problems: list[Problem] = []
    for key in ("min_value", "max_value"):
        if option.get(key) is not None:
            if kind not in (INTEGER, NUMBER):
                problems.append(
                    Problem((*path, key), "BASE_TYPE_BAD_TYPE", f"{key} needs a number option")
                )
            else:
                problems += _number_problems((*path, key), option[key], kind)
    low, high = option.get("min_value"), option.get("max_value")
    if isinstance(low, int | float) and isinstance(high, int | float) and low > high:
        problems.append(
            Problem((*path, "max_value"), "NUMBER_TYPE_MIN", "max_value is below min_value")
        )
    for key, least in (("min_length", 0), ("max_length", 1)):
        value = option.get(key)
        if value is None:
            continue
        if kind != STRING:
            problems.append(
                Problem((*path, key), "BASE_TYPE_BAD_TYPE", f"{key} needs a string option")
            )
        elif not isinstance(value, int) or not least <= value <= STRING_LENGTH_BOUND:
            problems.append(
                Problem(
                    (*path, key),
                    "NUMBER_TYPE_MAX",
                    f"Must be from {least} to {STRING_LENGTH_BOUND}.",
                )
            )
    return problems


def choices_problems(at: tuple[str, ...], choices: Any, kind: int | None) -> list[Problem]:
    """Choices of an option, or an autocomplete answer: at most 25, names 1-100 (localised
    likewise), string values at most 100, numbers within their type's bounds."""
    problems = _at_most(at, choices, CHOICES_PER_OPTION)
    for number, choice in enumerate(choices or []):
        path = (*at, str(number))
        if choice is None:
            continue
        name = choice.get("name")
        problems += _length((*path, "name"), name, 1, CHOICE_NAME_LIMIT) or _required(
            (*path, "name"), name
        )
        problems += _localizations(
            (*path, "name_localizations"),
            choice.get("name_localizations"),
            lambda p, t: _length(p, t, 1, CHOICE_NAME_LIMIT),
        )
        value = choice.get("value")
        problems += _required((*path, "value"), value)
        if kind == STRING or isinstance(value, str):
            problems += _length((*path, "value"), value, 0, CHOICE_STRING_VALUE_LIMIT)
        else:
            problems += _number_problems((*path, "value"), value, kind)
    return problems


def autocomplete_problems(data: JsonDict, kind: int | None = None) -> list[Problem]:
    """An APPLICATION_COMMAND_AUTOCOMPLETE_RESULT's data (callback type 8)."""
    return choices_problems(("choices",), data.get("choices"), kind)


# ----------------------------------------------------------------- messages
def _embed_problems(index: int, embed: JsonDict) -> tuple[list[Problem], int]:
    """An embed's own problems and its characters towards the message's 6,000."""
    at = ("embeds", str(index))
    problems: list[Problem] = []
    counted = [embed.get(key) for key in EMBED_TEXT_LIMITS]
    for key, limit in EMBED_TEXT_LIMITS.items():
        problems += _length((*at, key), embed.get(key), 0, limit)
    problems += _length((*at, "url"), embed.get("url"), 0, EMBED_URL_LIMIT)
    color = embed.get("color")
    if color is not None and not 0 <= color <= COLOR_MAX:
        problems.append(
            Problem((*at, "color"), "NUMBER_TYPE_MAX", f"Must be from 0 to {COLOR_MAX}.")
        )
    fields = embed.get("fields") or []
    problems += _at_most((*at, "fields"), fields, FIELDS_PER_EMBED)
    for number, embed_field in enumerate(fields):
        for key, limit in FIELD_TEXT_LIMITS.items():
            path = (*at, "fields", str(number), key)
            text = embed_field.get(key)
            if not text:
                problems.append(Problem(path, "BASE_TYPE_REQUIRED", "This field is required"))
            problems += _length(path, text, 0, limit)
            counted.append(text)
    footer = (embed.get("footer") or {}).get("text")
    author = (embed.get("author") or {}).get("name")
    problems += _length((*at, "footer", "text"), footer, 0, FOOTER_LIMIT)
    problems += _length((*at, "author", "name"), author, 0, AUTHOR_NAME_LIMIT)
    counted += [footer, author]
    return problems, sum(len(text) for text in counted if isinstance(text, str))


def _custom_ids(components: Iterable[JsonDict]) -> Iterator[tuple[tuple[str, ...], str]]:
    for row_number, row in enumerate(components):
        for number, component in enumerate(row.get("components") or []):
            if component.get("custom_id") is not None:
                path = ("components", str(row_number), "components", str(number), "custom_id")
                yield path, component["custom_id"]


def components_problems(components: Any) -> list[Problem]:
    """Action rows of buttons and selects: at most 5 rows of 1-5 buttons or one select,
    custom_ids 1-100 characters and unique in the message, labels at most 80."""
    if components is None:
        return []
    problems = _at_most(("components",), components, ACTION_ROWS_PER_MESSAGE)
    for row_number, row in enumerate(components):
        at = ("components", str(row_number))
        if row.get("type") != ACTION_ROW:
            problems.append(
                Problem(
                    (*at, "type"), "UNION_TYPE_CHOICES", "Top-level components must be action rows"
                )
            )
            continue
        inside = row.get("components") or []
        if not 1 <= len(inside) <= COMPONENTS_PER_ROW:
            problems.append(
                Problem(
                    (*at, "components"),
                    "BASE_TYPE_BAD_LENGTH",
                    f"Must be between 1 and {COMPONENTS_PER_ROW} in length.",
                )
            )
        if any(c.get("type") in SELECTS for c in inside) and len(inside) > 1:
            problems.append(
                Problem(
                    (*at, "components"),
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                    "The specified component exceeds the maximum width",
                )
            )
        for number, component in enumerate(inside):
            problems += _component_problems((*at, "components", str(number)), component)
    seen: set[str] = set()
    for path, custom_id in _custom_ids(components):
        if custom_id in seen:
            problems.append(
                Problem(
                    path,
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    "Component custom id cannot be duplicated",
                )
            )
        seen.add(custom_id)
    return problems


def _component_problems(at: tuple[str, ...], component: JsonDict) -> list[Problem]:
    kind = component.get("type")
    if kind == BUTTON:
        style = component.get("style")
        problems = _length((*at, "label"), component.get("label"), 0, BUTTON_LABEL_LIMIT)
        if style == LINK_STYLE:
            problems += _required((*at, "url"), component.get("url"))
            problems += _length((*at, "url"), component.get("url"), 1, BUTTON_URL_LIMIT)
            if component.get("custom_id") is not None:
                problems.append(
                    Problem(
                        (*at, "custom_id"),
                        "BUTTON_COMPONENT_CUSTOM_ID_INVALID",
                        "A link button has no custom_id",
                    )
                )
        elif style != PREMIUM_STYLE:
            problems += _required((*at, "custom_id"), component.get("custom_id"))
            problems += _length((*at, "custom_id"), component.get("custom_id"), 1, CUSTOM_ID_LIMIT)
        return problems
    if kind in SELECTS:
        problems = _required((*at, "custom_id"), component.get("custom_id"))
        problems += _length((*at, "custom_id"), component.get("custom_id"), 1, CUSTOM_ID_LIMIT)
        problems += _length(
            (*at, "placeholder"), component.get("placeholder"), 0, PLACEHOLDER_LIMIT
        )
        low, high = component.get("min_values"), component.get("max_values")
        if low is not None and not 0 <= low <= SELECT_VALUES_MAX:
            problems.append(
                Problem((*at, "min_values"), "NUMBER_TYPE_MAX", "Must be from 0 to 25.")
            )
        if high is not None and not 1 <= high <= SELECT_VALUES_MAX:
            problems.append(
                Problem((*at, "max_values"), "NUMBER_TYPE_MAX", "Must be from 1 to 25.")
            )
        if kind == STRING_SELECT:
            options = component.get("options") or []
            if not 1 <= len(options) <= SELECT_OPTIONS:
                problems.append(
                    Problem(
                        (*at, "options"),
                        "BASE_TYPE_BAD_LENGTH",
                        f"Must be between 1 and {SELECT_OPTIONS} in length.",
                    )
                )
            if high is not None and high > len(options):
                problems.append(
                    Problem((*at, "max_values"), "NUMBER_TYPE_MAX", "More than the options")
                )
            for number, option in enumerate(options):
                path = (*at, "options", str(number))
                for key in ("label", "value"):
                    problems += _required((*path, key), option.get(key))
                    problems += _length((*path, key), option.get(key), 1, SELECT_OPTION_TEXT_LIMIT)
                problems += _length(
                    (*path, "description"), option.get("description"), 0, SELECT_OPTION_TEXT_LIMIT
                )
        return problems
    return [
        Problem(
            (*at, "type"),
            "UNION_TYPE_CHOICES",
            f"Component type {kind} is not allowed in an action row",
        )
    ]


def attachments_problems(
    sizes: Sequence[int], limit: int = DEFAULT_ATTACHMENT_SIZE_LIMIT
) -> list[Problem]:
    """Uploaded files: at most 10, each at most `limit` bytes (the interaction's
    attachment_size_limit; 10 MiB for a server without boosts)."""
    problems = _at_most(("attachments",), sizes, ATTACHMENTS_PER_MESSAGE)
    for number, size in enumerate(sizes):
        if size > limit:
            problems.append(
                Problem(
                    (f"files[{number}]",),
                    "BINARY_TYPE_MAX_SIZE",
                    f"File cannot be larger than {limit} bytes.",
                )
            )
    return problems


def message_problems(
    body: JsonDict, sizes: Sequence[int] = (), limit: int = DEFAULT_ATTACHMENT_SIZE_LIMIT
) -> list[Problem]:
    """What Discord refuses in a message body (content, embeds, components) and its uploaded
    files (`sizes` in bytes); empty when Discord would accept it."""
    problems = _length(("content",), body.get("content"), 0, CONTENT_LIMIT)
    embeds = body.get("embeds") or []
    problems += _at_most(("embeds",), embeds, EMBEDS_PER_MESSAGE)
    total = 0
    for index, embed in enumerate(embeds):
        found, counted = _embed_problems(index, embed)
        problems += found
        total += counted
    if total > EMBED_TOTAL:
        problems.append(
            Problem(
                ("embeds",),
                "MAX_EMBED_SIZE_EXCEEDED",
                f"Embed size exceeds maximum size of {EMBED_TOTAL}",
            )
        )
    problems += components_problems(body.get("components"))
    problems += attachments_problems(sizes, limit)
    return problems


def invalid_form_body(problems: Sequence[Problem]) -> JsonDict:
    """Discord's 400 answer, errors nested by the path of each bad field."""
    errors: JsonDict = {}
    for path, code, message in problems:
        node = errors
        for key in path:
            node = node.setdefault(key, {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
    return {"code": INVALID_FORM_BODY, "message": "Invalid Form Body", "errors": errors}
