"""Storage: the only place with SQL (schema, migrations, queries), on SQLite or PostgreSQL."""

from bot.storage.database import Database, Queries, WriteTransaction, redacted
from bot.storage.engine import BUSY_MESSAGE, DatabaseBusy, DatabaseUnavailable
from bot.storage.matches import LOG_START
from bot.storage.models import (
    GameRows,
    KeyedMatch,
    LiveBoard,
    LogColumns,
    LogKey,
    Match,
    MatchEdit,
    MatchStatus,
    Member,
    MemberInfo,
    NewMatch,
    NewMatchColumns,
    NewParticipant,
    Outcome,
    Participant,
    Performance,
)
from bot.storage.seasons import Season, Standing

__all__ = [
    "BUSY_MESSAGE",
    "LOG_START",
    "Database",
    "DatabaseBusy",
    "DatabaseUnavailable",
    "GameRows",
    "KeyedMatch",
    "LiveBoard",
    "LogColumns",
    "LogKey",
    "Match",
    "MatchEdit",
    "MatchStatus",
    "Member",
    "MemberInfo",
    "NewMatch",
    "NewMatchColumns",
    "NewParticipant",
    "Outcome",
    "Participant",
    "Performance",
    "Queries",
    "Season",
    "Standing",
    "WriteTransaction",
    "redacted",
]
