"""The `ladderbot` command (also `python -m bot`), SPEC section 5, a module by job:
parsing (the parser, exit statuses, streams: light), program (the list of commands; builds
the parser and runs one command, importing only that command's module), common (opening the
database, printing), tools (p1-p8, ra, testit), rep, serve (the bot, the web server), standings
(gr, rating, leaderboard), bulk (export, import, recompute), predictions (balance, evaluate),
moderation (report, matches, match, void, confirm, edit, settings, season), queues,
webhooks, migrate (migrate-db)."""

from bot import PROGRAM
from bot.cli.parsing import Streams
from bot.cli.program import build_parser, main

__all__ = ["PROGRAM", "Streams", "build_parser", "main"]
