"""Use cases of the bot (no Discord): the Discord front end, the command line and the web
call these. The storage types they return (a Match, the database's errors, ...) are
re-exported here: front ends never import bot.storage (the import contracts in pyproject)."""

from bot.services.card import CardStats, FormEntry, RatingPoint
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
from bot.services.matches import ConfirmResult, ReportResult, VoidResult
from bot.services.services import Services
from bot.services.settings import SettingsResult
from bot.services.standings import LeaderboardPage, LeaderboardRow, Prediction, RatingCard
from bot.services.transfers import ImportResult
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
    "CardStats",
    "Change",
    "ChangeListener",
    "ConfirmResult",
    "ConnectionLost",
    "DatabaseBusy",
    "DatabaseUnavailable",
    "FormEntry",
    "ImportResult",
    "LeaderboardPage",
    "LeaderboardRow",
    "Lineup",
    "LineupEntry",
    "LiveBoard",
    "Match",
    "MatchEdit",
    "Member",
    "MemberInfo",
    "Participant",
    "Player",
    "Prediction",
    "RatingCard",
    "RatingPoint",
    "ReportResult",
    "Season",
    "ServiceContext",
    "Services",
    "SettingsResult",
    "UserError",
    "VoidResult",
    "WebStamp",
    "duel_lineup",
    "ffa_lineup",
    "parse_lineup",
    "parse_team",
    "redacted",
    "team_lineup",
]
