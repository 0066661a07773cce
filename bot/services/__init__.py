"""Use cases of the bot (no Discord): the Discord front end and the CLI both call these."""

from bot.services.card import CardStats, FormEntry, RatingPoint
from bot.services.changes import Change, ChangeListener
from bot.services.errors import UserError
from bot.services.ladder import (
    Actor,
    ConfirmResult,
    ImportResult,
    Ladder,
    LeaderboardPage,
    LeaderboardRow,
    Prediction,
    RatingCard,
    ReportResult,
    SettingsResult,
    VoidResult,
    open_ladder,
)
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
from bot.storage import LiveBoard, Match, Member, MemberInfo, Participant

__all__ = [
    "Actor",
    "CardStats",
    "Change",
    "ChangeListener",
    "ConfirmResult",
    "FormEntry",
    "ImportResult",
    "Ladder",
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
    "SettingsResult",
    "UserError",
    "VoidResult",
    "duel_lineup",
    "ffa_lineup",
    "open_ladder",
    "parse_lineup",
    "parse_team",
    "team_lineup",
]
