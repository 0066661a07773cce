"""`python -m bot` is the `ladderbot` command."""

from bot.cli import main

raise SystemExit(main())
