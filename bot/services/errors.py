"""The one exception type for refusals the user can fix, the notices written on queue and
lobby messages, and how both quote input; each a template the front ends translate (SPEC 13)."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from babel.lists import format_list
from babel.units import format_unit


class UserError(ValueError):
    """A refused request: the message (one line) says what is wrong and what to do.

    Raised before anything is written, or inside the write transaction so it rolls back:
    a UserError never leaves a change behind.

    A refusal the front ends translate (SPEC 13) is raised as `UserError(N_(template),
    **params)`: str() is the English sentence, and a front end looks the template up in its
    language's catalog and fills in the same params (a Phrase, a Counted or a nested
    UserError param is translated too). tests/app/test_service_refusals.py checks that every
    refusal of the services is raised so.
    """

    def __init__(self, template: str, /, **params: object) -> None:
        super().__init__(template.format(**params) if params else template)
        self.template = template
        self.params = params


class Phrase(str):
    """Words of the code (N_-marked) that a refusal fills in, as a param: the front end
    translates them with the refusal (a rule, "score" or "minutes")."""

    __slots__ = ()


class Counted:
    """A count with its noun (N_-marked singular and plural, `{count}` in each) that a
    refusal or notice fills in, as a param: `3 members`; the front end translates it with
    ngettext, in the plural form its language gives the count."""

    __slots__ = ("count", "plural", "singular")

    def __init__(self, singular: str, plural: str, count: int) -> None:
        self.singular, self.plural, self.count = singular, plural, count

    def __str__(self) -> str:
        return (self.singular if self.count == 1 else self.plural).format(count=self.count)


class Duration:
    """A wait (seconds) that a refusal or notice fills in, as a param: `12 min`, `3 hr 5 min`;
    the front end writes it in its language's units (`wait_text`)."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __str__(self) -> str:
        return wait_text(self.seconds)


def wait_text(seconds: float, locale: str = "en_US") -> str:
    """A duration as a person reads it, in a Babel locale's short units: 45 sec, 12 min,
    3 hr 5 min (`3 Std., 5 Min.` in German); seconds and minutes rounded up."""
    if seconds < 60:
        return _unit(max(0, math.ceil(seconds)), "second", locale)
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return _unit(minutes, "minute", locale)
    hours, minutes = divmod(minutes, 60)
    parts = [_unit(hours, "hour", locale)] + ([_unit(minutes, "minute", locale)] if minutes else [])
    return format_list(parts, style="unit-narrow", locale=locale)


def _unit(count: int, unit: str, locale: str) -> str:
    return format_unit(count, f"duration-{unit}", length="short", locale=locale)


class Notice:
    """What a queue's or lobby's message says happened (a member left, a lobby dissolved), or
    a mod log line's detail (why a lobby got no room): a template with params like a
    refusal's, so the front end shows it in the server's language (SPEC 13); str() is the
    English. The storage holds it as `stored()` text."""

    __slots__ = ("params", "template")

    def __init__(
        self, template: str, /, **params: str | int | Phrase | Counted | Duration | Notice
    ) -> None:
        self.template = template
        self.params = params

    def __str__(self) -> str:
        return self.template.format(**self.params) if self.params else self.template

    def stored(self) -> str:
        return json.dumps(_tree(self), ensure_ascii=False)

    @staticmethod
    def load(text: str) -> Notice:
        """The notice `stored()` wrote; text stored before notices were templates (plain
        English, or text someone typed) comes back as a template without params, shown as it
        is."""
        try:
            return _notice(json.loads(text))
        except (ValueError, TypeError, KeyError, AttributeError):
            return Notice(text)


def _tree(value: object) -> Any:
    if isinstance(value, Notice):
        return {"notice": value.template, "params": {k: _tree(v) for k, v in value.params.items()}}
    if isinstance(value, Phrase):
        return {"phrase": str(value)}
    if isinstance(value, Counted):
        return {"counted": [value.singular, value.plural, value.count]}
    if isinstance(value, Duration):
        return {"duration": value.seconds}
    return value


def _notice(tree: dict[str, Any]) -> Notice:
    return Notice(tree["notice"], **{k: _param(v) for k, v in tree["params"].items()})


def _param(tree: Any) -> str | int | Phrase | Counted | Duration | Notice:
    if not isinstance(tree, dict):
        return tree  # type: ignore[no-any-return]
    if "phrase" in tree:
        return Phrase(tree["phrase"])
    if "counted" in tree:
        return Counted(*tree["counted"])
    if "duration" in tree:
        return Duration(tree["duration"])
    return _notice(tree)


def N_(message: str) -> str:  # noqa: N802 (gettext's name for it)
    """Marks a message for the catalogs (python -m bot.app.catalogs extract) whose
    translation a front end looks up later: a refusal's template, a constant."""
    return message


QUOTE_LIMIT: Final = 80
"""Characters of user input a message quotes at most (a refusal may quote twice)."""


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 game`, `2 games`, `0 games`: the command line's English (bot.present.words gives
    it to the front ends; the services' sentences count with Counted)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def shorten(text: str, limit: int) -> str:
    """text, cut to at most `limit` characters with a final "…" when it is longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """User input as a message quotes it: repr()-quoted, long input cut with "…".

    Every quote of user input goes through here, so a refusal stays short whatever was sent.
    """
    return repr(shorten(text, limit))


_CONTROL: Final = re.compile("[\x00-\x1f\x7f]")
"""The control characters U+0000-U+001F and U+007F."""


def free_text(text: str, what: str, *, quote: bool = False) -> str:
    """`text` as a user typed it (a reason, a queue, map or season name, a lineup, a name to
    look up) when it holds no control character (SPEC 7; PostgreSQL cannot store U+0000 at
    all); else UserError naming the first. `what` (N_-marked) names the text, followed by
    the text itself when `quote`."""
    found = _CONTROL.search(text)
    if found is not None:
        char = f"U+{ord(found.group()):04X}"
        if quote:
            raise UserError(
                N_("{what} {text} holds the control character {char}; remove it"),
                what=Phrase(what),
                text=quoted(text),
                char=char,
            )
        raise UserError(
            N_("{what} holds the control character {char}; remove it"), what=Phrase(what), char=char
        )
    return text
