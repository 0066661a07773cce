"""The one exception type for refusals the user can fix, and how refusals quote input."""

import re
from typing import Final


class UserError(ValueError):
    """A refused request: the message (one line) says what is wrong and what to do.

    Raised before anything is written, or inside the write transaction so it rolls back:
    a UserError never leaves a change behind.

    A refusal the front ends translate (SPEC 13) is raised as `UserError(N_(template),
    **params)`: str() is the English sentence, and a front end looks the template up in its
    language's catalog and fills in the same params. A refusal raised with a finished
    sentence (no params) is shown as it is where its catalog has no translation.
    """

    def __init__(self, template: str, /, **params: object) -> None:
        super().__init__(template.format(**params) if params else template)
        self.template = template
        self.params = params


class Phrase(str):
    """Words of the code (N_-marked) that a refusal fills in, as a param: the front end
    translates them with the refusal (a rule, "score" or "minutes")."""

    __slots__ = ()


def N_(message: str) -> str:  # noqa: N802 (gettext's name for it)
    """Marks a message for the catalogs (python -m bot.app.catalogs extract) whose
    translation a front end looks up later: a refusal's template, a constant."""
    return message


QUOTE_LIMIT: Final = 80
"""Characters of user input a message quotes at most (a refusal may quote twice)."""


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 game`, `2 games`, `0 games`; bot.present.words gives it to the front ends, the
    services' own sentences (refusals, mod log details) use it."""
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


def free_text(text: str, what: str) -> str:
    """`text` as a user typed it (a reason, a queue, map or season name, a lineup, a name to
    look up) when it holds no control character (SPEC 7; PostgreSQL cannot store U+0000 at
    all); else UserError naming the first."""
    found = _CONTROL.search(text)
    if found is not None:
        raise UserError(f"{what} holds the control character U+{ord(found.group()):04X}; remove it")
    return text
