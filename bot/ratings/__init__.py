"""Pure rating math: numpy only, no Discord, no database, no asyncio."""
