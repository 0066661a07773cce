"""ladderbot: ranked matches for Discord communities."""

from typing import Final

PROGRAM: Final = "ladderbot"
"""The command line's name (pyproject.toml's [project.scripts]), as its help and refusals
and the other front ends' advice spell it."""
