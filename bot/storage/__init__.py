"""Storage: the only place with SQL (schema, migrations, queries), on SQLite or PostgreSQL."""

from bot.storage.database import Database, Queries, WriteTransaction, redacted
from bot.storage.engine import (
    BUSY_MESSAGE,
    ConnectionLost,
    DatabaseBusy,
    DatabaseUnavailable,
)
from bot.storage.guilds import WebStamp
from bot.storage.matches import LOG_START, ImportedMatches
from bot.storage.models import (
    ChangedEntries,
    KeyedMatch,
    LiveBoard,
    LogColumns,
    LogKey,
    Match,
    MatchEdit,
    MatchStatus,
    MeasuredColumns,
    Member,
    MemberColumns,
    MemberInfo,
    NewMatch,
    NewMatchColumns,
    NewParticipant,
    Outcome,
    Participant,
    Performance,
    PlayedColumns,
)
from bot.storage.seasons import Season, Standing

__all__ = [
    "BUSY_MESSAGE",
    "LOG_START",
    "ChangedEntries",
    "ConnectionLost",
    "Database",
    "DatabaseBusy",
    "DatabaseUnavailable",
    "ImportedMatches",
    "KeyedMatch",
    "LiveBoard",
    "LogColumns",
    "LogKey",
    "Match",
    "MatchEdit",
    "MatchStatus",
    "MeasuredColumns",
    "Member",
    "MemberColumns",
    "MemberInfo",
    "NewMatch",
    "NewMatchColumns",
    "NewParticipant",
    "Outcome",
    "Participant",
    "Performance",
    "PlayedColumns",
    "Queries",
    "Season",
    "Standing",
    "WebStamp",
    "WriteTransaction",
    "redacted",
]
