"""The `ladderbot` command (also `python -m bot`), SPEC section 5, a module by job:
common (opening the database, printing), tools (p1-p8, rep, testit), serve (the bot, the web
server), database (gr, report, rating, leaderboard, export, import, recompute, balance,
evaluate), moderation (matches, match, void, confirm, edit, settings, season), queues,
webhooks, migrate (migrate-db); program builds the parser and runs one command."""

from bot.cli.common import CLI_ACTOR, Streams
from bot.cli.program import build_parser, main
from bot.present.words import PROGRAM

__all__ = ["CLI_ACTOR", "PROGRAM", "Streams", "build_parser", "main"]
