"""What the command line prints for people (SPEC 5): matches, seasons, settings and webhooks
as text lines (bot.present.objects gives the same as JSON for scripts, `--json`); the
webhook lines are /admin webhook's too.

A match's text gives its lineup in the lineup format of SPEC 4 (`<@id> score minutes`, sides
split by `|`), so a moderator can copy it, fix it and hand it to `ladderbot edit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import TYPE_CHECKING

from bot.config import GuildSettings
from bot.present.language import ENGLISH, N_, Words
from bot.present.words import (
    accuracy_text,
    actor_text,
    measure_text,
    member_text,
    participant_move,
    performance_text,
    plural,
    rating_move,
    rating_text,
    setting_text,
    side_name,
)
from bot.services import Match, MatchEdit, Participant
from bot.services.events import EVENTS
from bot.services.lineup import lineup_text
from bot.services.matchcsv.format import format_time

if TYPE_CHECKING:
    from bot.services.season_rules import SeasonSummary
    from bot.services.standings import LeaderboardRow, RatingCard
    from bot.services.webhooks import AddedWebhook, Webhook


def match_line(match: Match) -> str:
    """One match in a list: id, state, when it was played, its lineup."""
    return f"#{match.id} {match.status} {format_time(match.played_at)}  {_lineup(match)}"


def match_lines(match: Match, edits: Sequence[MatchEdit]) -> list[str]:
    """One match as `/match show` shows it: state, who reported it, each participant with
    the rating change, why it is void, and the lineups it had before each edit."""
    lines = [f"match #{match.id} {match.status}, played {format_time(match.played_at)}"]
    if match.reporter_id is not None:
        lines[0] += f", reported by {actor_text(match.reporter_id)}"
    lines.extend(_participant_line(p, match.status) for p in match.participants)
    if match.void_reason:
        lines.append(f"void: {match.void_reason}")
    lines.extend(
        f"before an edit at {format_time(edit.edited_at)} by "
        f"{actor_text(edit.editor_id)}: {edit.old_lineup}"
        for edit in edits
    )
    return lines


def _lineup(match: Match) -> str:
    return lineup_text(match.participants) if match.participants else "(no participants)"


def _participant_line(p: Participant, status: str) -> str:
    line = (
        f"  {side_name(p.side)}: {member_text(p.name, p.user_id)}, "
        f"score {p.score:g}, {p.minutes:g} minutes"
    )
    move = participant_move(p, status)
    return line if move is None else f"{line}, {move}"


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
    return [
        f"{field.name} = {setting_text(getattr(settings, field.name))}"
        for field in fields(settings)
    ]


def card_lines(card: RatingCard) -> list[str]:
    """The rating card of /rating: this season's rating, rank, record and performance; then,
    with matches, the all-season figures and the recent form."""
    member, stats = card.member, card.stats
    rank = "unranked" if card.rank is None else f"rank {card.rank}"
    lines = [
        f"{member_text(member.name, member.user_id)}: ladder {rating_text(card.rating)}, "
        f"{rank}, this season {plural(card.games, 'game')} "
        f"({card.wins}-{card.draws}-{card.losses}), {card.variant} "
        f"{performance_text(card.performance, card.up, card.down)} (ladder units), "
        f"RA {accuracy_text(card.ra)}"
        + (", provisional" if card.provisional else "")
        + (", inactive" if card.inactive else "")
    ]
    if stats.form and stats.peak is not None and stats.win_rate is not None:
        recent = "; ".join(
            f"#{e.match_id} {e.result} {rating_move(e.rating_before, e.rating_after)}"
            for e in stats.form
        )
        lines.append(
            f"all seasons {plural(stats.games, 'game')}: peak {rating_text(stats.peak)}, "
            f"streak {stats.streak}, win rate {stats.win_rate:.0%}; recent: {recent}"
        )
    return lines


def leaderboard_line(row: LeaderboardRow, by: str) -> str:
    """One row of `leaderboard`: rank, who, the measure, games and record."""
    return (
        f"{row.rank:>4}. {member_text(row.name, row.user_id)} {by} {measure_text(by, row.value)} "
        f"{plural(row.games, 'game')} ({row.wins}-{row.draws}-{row.losses})"
        + (" provisional" if row.provisional else "")
    )


def webhook_line(webhook: Webhook, said: Words = ENGLISH) -> str:
    """One webhook of `webhook list` (command line and Discord, there in `said`'s language):
    its number, URL, events, last delivery and what waits; never its secret."""
    events = (
        said.gettext(N_("all events")) if webhook.events == EVENTS else ", ".join(webhook.events)
    )
    last = (
        said.gettext(N_("no delivery yet"))
        if webhook.last_at is None
        else said.gettext(
            N_("last delivery {status} at {time}"),
            status=webhook.last_status,
            time=format_time(webhook.last_at),
        )
    )
    return said.gettext(
        N_("#{number} {url} ({events}); {last}; {waiting} waiting"),
        number=webhook.webhook_id,
        url=webhook.url,
        events=events,
        last=last,
        waiting=webhook.waiting,
    )


def webhook_added_lines(added: AddedWebhook, said: Words = ENGLISH) -> list[str]:
    """What `webhook add` says: the webhook, and its secret, shown this once."""
    return [
        said.gettext(N_("webhook {webhook}"), webhook=webhook_line(added.webhook, said)),
        said.gettext(
            N_("secret (shown only now; the receiver checks signatures with it): {secret}"),
            secret=added.secret,
        ),
    ]
