"""ladderbot's benchmarks: `python -m bench [NAME ...] [--quick]` (see bench/RESULTS.md)."""
