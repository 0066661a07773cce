"""What the command line's moderation commands print (SPEC 5): matches, seasons and settings
as text lines for people, and as JSON-ready objects for scripts (`--json`).

A match's text gives its lineup in the lineup format of SPEC 4 (`<@id> score minutes`, sides
split by `|`), so a moderator can copy it, fix it and hand it to `ladderbot edit`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import fields
from typing import Any, Final

from bot.config import GuildSettings
from bot.ratings.performance import format_rating
from bot.services.card import rating_move
from bot.services.events import EVENTS
from bot.services.lineup import lineup_text
from bot.services.matchcsv.format import format_time
from bot.services.seasons import SeasonSummary
from bot.services.standings import LeaderboardRow, RatingCard
from bot.services.webhooks import AddedWebhook
from bot.storage import Match, MatchEdit, Participant
from bot.storage.webhooks import Webhook

COMMAND_LINE_NAME: Final = "the command line"


def actor_name(user_id: int | None, command_line_id: int) -> str:
    """Who did something: a Discord user as `<@id>`, the command line by that name."""
    return COMMAND_LINE_NAME if user_id is None or user_id == command_line_id else f"<@{user_id}>"


def match_line(match: Match) -> str:
    """One match in a list: id, state, when it was played, its lineup."""
    return f"#{match.id} {match.status} {format_time(match.played_at)}  {_lineup(match)}"


def match_lines(match: Match, edits: Sequence[MatchEdit], command_line_id: int) -> list[str]:
    """One match as `/match show` shows it: state, who reported it, each participant with
    the rating change, why it is void, and the lineups it had before each edit."""
    lines = [f"match #{match.id} {match.status}, played {format_time(match.played_at)}"]
    if match.reporter_id is not None:
        lines[0] += f", reported by {actor_name(match.reporter_id, command_line_id)}"
    lines.extend(_participant_line(p) for p in match.participants)
    if match.void_reason:
        lines.append(f"void: {match.void_reason}")
    lines.extend(
        f"before an edit at {format_time(edit.edited_at)} by "
        f"{actor_name(edit.editor_id, command_line_id)}: {edit.old_lineup}"
        for edit in edits
    )
    return lines


def _lineup(match: Match) -> str:
    return lineup_text(match.participants) if match.participants else "(no participants)"


def _participant_line(p: Participant) -> str:
    who = p.name if p.user_id is None else f"{p.name} ({p.user_id})"
    line = f"  side {p.side}: {who}, score {p.score:g}, {p.minutes:g} minutes"
    if p.rating_before is not None and p.rating_after is not None:
        return f"{line}, {rating_move(p.rating_before, p.rating_after)}"
    return line + (", not rated" if not p.enabled else "")


def finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def leaderboard_object(row: LeaderboardRow) -> dict[str, Any]:
    """A leaderboard row for `leaderboard --json` and the web API (rating unrounded)."""
    return {
        "rank": row.rank,
        "user_id": row.user_id,
        "name": row.name,
        "rating": row.rating,
        "value": finite_or_none(row.value),
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
        "performance": finite_or_none(card.performance),
        "performance_text": format_rating(card.performance),
        "up": finite_or_none(card.up),
        "down": finite_or_none(card.down),
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
    }


def season_line(season: SeasonSummary) -> str:
    """One season of `season list`: its name, from when, with what carry, and its state."""
    began = "the first match" if season.started_at is None else format_time(season.started_at)
    carry = "" if season.started_at is None else f", carry {season.carry:g}"
    state = (
        "current"
        if season.ended_at is None
        else f"closed {format_time(season.ended_at)}, {season.members} players"
    )
    return f"{season.name}: from {began}{carry}; {state}"


def settings_lines(settings: GuildSettings) -> list[str]:
    """Every setting as `name = value`, in the order of GuildSettings."""
    return [f"{field.name} = {getattr(settings, field.name)}" for field in fields(settings)]


def webhook_line(webhook: Webhook) -> str:
    """One webhook of `webhook list` (command line and Discord): its number, URL, events,
    last delivery and what waits; never its secret."""
    events = "all events" if webhook.events == EVENTS else ", ".join(webhook.events)
    last = (
        "no delivery yet"
        if webhook.last_at is None
        else f"last delivery {webhook.last_status} at {format_time(webhook.last_at)}"
    )
    return f"#{webhook.webhook_id} {webhook.url} ({events}); {last}; {webhook.waiting} waiting"


def webhook_added_lines(added: AddedWebhook) -> list[str]:
    """What `webhook add` says: the webhook, and its secret, shown this once."""
    return [
        f"webhook {webhook_line(added.webhook)}",
        f"secret (shown only now; the receiver checks signatures with it): {added.secret}",
    ]
