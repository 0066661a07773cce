"""The match CSV of SPEC 5 (`match,played_at,side,player,score,minutes`, and the export's
`status,rating_before,rating_after`), one module per job:

- format.py: the columns, the cells (times, numbers, players, labels, match keys) and the
  formula neutralising of SPEC 7;
- export.py: a guild's matches and season starts as CSV;
- rows.py: the reference reader, row by row, which names the first bad line;
- columns.py: the fast reader, column by column, for a file without a fault (any fault
  sends the file to rows.py, so both always agree);
- building.py: the read matches as stored (NewMatchColumns), checked as reports are.

Import keys (SPEC 8.3): an imported match keeps its `match` label as its key in the guild,
and an export writes that key in the `match` column; a match that was not imported (reported
in Discord or on the command line) is exported as `#<its id>`, which an import into the same
guild reads as that match. So importing a file twice, or a guild's export back into it, finds
every match already there and skips it.

Named so that it never shadows the standard library's `csv` module.
"""
