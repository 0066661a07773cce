"""Use cases of the bot (no Discord): the Discord front end, the command line and the web
call these. The storage types they return (a Match, the database's errors, ...) are
re-exported here: front ends never import bot.storage (the import contracts in pyproject).
A use case's own result types come from its module (bot.services.standings's RatingCard,
...): importing this package loads none of the use cases, which Services imports as each is
first used (issue 29)."""

from bot.services.changes import Change, ChangeListener
from bot.services.context import ServiceContext
from bot.services.core import Actor
from bot.services.errors import UserError
from bot.services.lineup import (
    Lineup,
    LineupEntry,
    Player,
    duel_lineup,
    ffa_lineup,
    parse_lineup,
    parse_team,
    team_lineup,
)
from bot.services.services import Services
from bot.storage import (
    ConnectionLost,
    DatabaseBusy,
    DatabaseUnavailable,
    LiveBoard,
    Match,
    MatchEdit,
    Member,
    MemberInfo,
    Participant,
    Season,
    WebStamp,
    redacted,
)

__all__ = [
    "Actor",
    "Change",
    "ChangeListener",
    "ConnectionLost",
    "DatabaseBusy",
    "DatabaseUnavailable",
    "Lineup",
    "LineupEntry",
    "LiveBoard",
    "Match",
    "MatchEdit",
    "Member",
    "MemberInfo",
    "Participant",
    "Player",
    "Season",
    "ServiceContext",
    "Services",
    "UserError",
    "WebStamp",
    "duel_lineup",
    "ffa_lineup",
    "parse_lineup",
    "parse_team",
    "redacted",
    "team_lineup",
]
