"""Use cases of the bot (no Discord): the Discord front end and the CLI both call these."""

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
from bot.storage import LiveBoard, Match, Member, MemberInfo, Participant

__all__ = [
    "Actor",
    "CardStats",
    "Change",
    "ChangeListener",
    "ConfirmResult",
    "FormEntry",
    "ImportResult",
    "LeaderboardPage",
    "LeaderboardRow",
    "Lineup",
    "LineupEntry",
    "LiveBoard",
    "Match",
    "Member",
    "MemberInfo",
    "Participant",
    "Player",
    "Prediction",
    "RatingCard",
    "RatingPoint",
    "ReportResult",
    "ServiceContext",
    "Services",
    "SettingsResult",
    "UserError",
    "VoidResult",
    "duel_lineup",
    "ffa_lineup",
    "parse_lineup",
    "parse_team",
    "team_lineup",
]
