"""The JSON objects of the read API and the command line's `--json` (SPEC 5, 11.3) for the
standings: one shape for both, ratings unrounded; a measure of ±∞ as "+inf" / "-inf"
(SPEC 9.5). Matches, lobbies and seasons, which the webhooks send too, are
bot.services.shapes'."""

from __future__ import annotations

from typing import Any

from bot.present.series import chart_object
from bot.present.words import json_number, rating_move, rating_text
from bot.services.standings import LeaderboardRow, RatingCard


def leaderboard_object(row: LeaderboardRow) -> dict[str, Any]:
    """A leaderboard row for `leaderboard --json` and the web API (rating unrounded)."""
    return {
        "rank": row.rank,
        "user_id": row.user_id,
        "name": row.name,
        "rating": row.rating,
        "value": json_number(row.value),
        "games": row.games,
        "wins": row.wins,
        "draws": row.draws,
        "losses": row.losses,
        "provisional": row.provisional,
    }


def card_object(card: RatingCard) -> dict[str, Any]:
    """The rating card for `rating --json` and the web API."""
    return {
        "user_id": card.member.user_id,
        "name": card.member.name,
        "rating": card.rating,
        "rank": card.rank,
        "games": card.games,
        "wins": card.wins,
        "draws": card.draws,
        "losses": card.losses,
        "variant": card.variant,
        "performance": json_number(card.performance),
        "performance_text": rating_text(card.performance),
        "up": json_number(card.up),
        "down": json_number(card.down),
        "ra": card.ra,
        "provisional": card.provisional,
        "inactive": card.inactive,
        "peak": card.stats.peak,
        "streak": card.stats.streak,
        "win_rate": card.stats.win_rate,
        "games_all_seasons": card.stats.games,
        "form": [
            {
                "match_id": entry.match_id,
                "played_at": entry.played_at,
                "result": entry.result,
                "rating_before": entry.rating_before,
                "rating_after": entry.rating_after,
                "shown": rating_move(entry.rating_before, entry.rating_after),
            }
            for entry in card.stats.form
        ],
        "chart": chart_object(card.stats.history),
    }
