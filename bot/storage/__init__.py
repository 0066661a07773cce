"""SQLite storage: the only place with SQL (schema, migrations, queries)."""

from bot.storage.database import LOG_START, Database, Queries, WriteTransaction, in_one_trip
from bot.storage.models import (
    GameRows,
    LiveBoard,
    LogKey,
    LogRow,
    Match,
    MatchStatus,
    Member,
    MemberInfo,
    NewMatch,
    NewParticipant,
    Outcome,
    Participant,
    Performance,
)

__all__ = [
    "LOG_START",
    "Database",
    "GameRows",
    "LiveBoard",
    "LogKey",
    "LogRow",
    "Match",
    "MatchStatus",
    "Member",
    "MemberInfo",
    "NewMatch",
    "NewParticipant",
    "Outcome",
    "Participant",
    "Performance",
    "Queries",
    "WriteTransaction",
    "in_one_trip",
]
