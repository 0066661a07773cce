"""ladderbot: ranked matches for Discord communities."""
