"""Progress of a long use case (an import, a replay, an evaluation, an export), for the one
front end that shows it: the command line on a terminal. A use case names each stage as it
starts; nothing is shown unless a front end asked for it (`shown_by`), so the bot and the
web pages pay one context variable read per stage."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

StageListener = Callable[[str], None]
"""Told the name of each stage as it starts ("replaying the matches (100,000)")."""

_LISTENER: ContextVar[StageListener | None] = ContextVar("progress", default=None)


@contextmanager
def shown_by(listener: StageListener) -> Iterator[None]:
    """Within the block (and the tasks and worker threads it starts), stages go to
    `listener`."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def stage(name: str) -> None:
    """A stage of the running use case starts."""
    listener = _LISTENER.get()
    if listener is not None:
        listener(name)
