"""Embeds built from the services' results (display only: no rules, no math beyond rounding)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import groupby

import discord
from discord.utils import escape_markdown

from bot.config import GuildSettings
from bot.ratings.balance import EXACT_MAX_PLAYERS
from bot.ratings.ladder import Outcome
from bot.ratings.performance import format_rating
from bot.services import LeaderboardPage, Match, Prediction, RatingCard
from bot.services.matchups import HeadToHead, MatchPage, TeamBalance, TeamMember
from bot.storage.models import Participant

STATUS_TEXT = {
    "pending": "pending — waiting for an opponent to confirm",
    "disputed": "disputed — a moderator decides (/match confirm or /admin void)",
    "applied": "applied",
    "void": "void",
}
STATUS_COLOUR = {
    "pending": discord.Colour.gold(),
    "disputed": discord.Colour.red(),
    "applied": discord.Colour.green(),
    "void": discord.Colour.dark_grey(),
}
DESCRIPTION_LIMIT = 4096
FIELD_LIMIT = 1024
MEASURE_TITLE = {"ladder": "ladder rating", "ra": "rating accuracy (RA)"}


def ladder_number(value: float) -> str:
    """A ladder rating as shown to people: one decimal."""
    return f"{value:.1f}"


def signed(value: float) -> str:
    return f"{value:+.1f}"


def participant_line(participant: Participant) -> str:
    who = f"<@{participant.user_id}>" if participant.user_id is not None else participant.name
    line = f"{who} — {participant.score:g} pts, {participant.minutes:g} min"
    change = participant.change
    if change is not None and participant.rating_before is not None:
        line += f": {ladder_number(participant.rating_before)} → "
        line += f"{ladder_number(participant.rating_before + change)} ({signed(change)})"
    elif not participant.enabled:
        line += " (not rated)"
    return line


def match_embed(match: Match) -> discord.Embed:
    """One match: status, sides with scores, minutes and rating changes."""
    description = f"Status: {STATUS_TEXT[match.status]}"
    if match.reporter_id is not None:
        description += f"\nReported by <@{match.reporter_id}>"
    embed = discord.Embed(
        title=f"Match #{match.id}",
        description=description,
        colour=STATUS_COLOUR[match.status],
        timestamp=datetime.fromtimestamp(match.played_at, UTC),
    )
    ordered = sorted(match.participants, key=lambda p: (p.side, p.position))
    for side, members in groupby(ordered, key=lambda p: p.side):
        lines = "\n".join(participant_line(p) for p in members)
        embed.add_field(name=f"Side {side}", value=lines[:1024], inline=False)
    if match.void_reason:
        embed.add_field(name="Void reason", value=match.void_reason[:1024], inline=False)
    return embed


def match_summary(match: Match) -> str:
    """One line for lists: id, status, who played."""
    names = ", ".join(p.name for p in match.participants)
    return f"#{match.id} {match.status}: {names}"[:200]


def performance_text(value: float, up: float, down: float) -> str:
    """`RP +UP -DOWN` in ladder units, or the undefined reason."""
    if not math.isfinite(value) or math.isnan(up) or math.isnan(down):
        return format_rating(value)
    return f"{format_rating(value)} +{format_rating(up)} -{format_rating(down)}"


def rating_embed(card: RatingCard, chart_filename: str | None) -> discord.Embed:
    """The rating card: ladder rating, rank, record, the variant's performance ± and RA."""
    member = card.member
    embed = discord.Embed(title=f"{member.name} — rating", colour=discord.Colour.blurple())
    embed.add_field(name="Ladder rating", value=ladder_number(card.rating))
    embed.add_field(name="Rank", value=f"#{card.rank}" if card.rank is not None else "unranked")
    record = f"{card.wins}W {card.draws}D {card.losses}L ({card.games} games)"
    embed.add_field(name="Record", value=record)
    embed.add_field(
        name=f"Performance ({card.variant})",
        value=performance_text(card.performance, card.up, card.down),
    )
    embed.add_field(name="RA", value=f"{card.ra:.2f}")
    if not member.enabled:
        embed.add_field(name="Ladder", value="opted out (/ladder join to be rated again)")
    recent = "\n".join(match_summary(match) for match in card.recent) or "No matches yet."
    embed.add_field(name="Recent matches", value=recent[:1024], inline=False)
    if chart_filename is not None:
        embed.set_image(url=f"attachment://{chart_filename}")
    return embed


def leaderboard_value(by: str, value: float) -> str:
    if by == "ra":
        return f"RA {value:.2f}"
    if by == "ladder":
        return ladder_number(value)
    return format_rating(value)


def leaderboard_embed(
    page: LeaderboardPage, title: str = "Leaderboard", highlight: int | None = None
) -> discord.Embed:
    """One page: rank, name, the measure, ladder rating and record; the `highlight` member's
    row marked. The embed's timestamp says when the standings were read."""
    measure = MEASURE_TITLE.get(page.by, f"performance {page.by}")
    lines = [
        ("▶ " if row.user_id == highlight else "")
        + f"**{row.rank}.** {row.name} — {leaderboard_value(page.by, row.value)}"
        + ("" if page.by == "ladder" else f" (ladder {ladder_number(row.rating)})")
        + f" · {row.wins}W {row.draws}D {row.losses}L"
        for row in page.rows
    ]
    embed = discord.Embed(
        title=f"{title} — by {measure}",
        description="\n".join(lines) or "Nobody has played enough matches yet.",
        colour=discord.Colour.blurple(),
        timestamp=datetime.now(UTC),
    )
    embed.set_footer(
        text=f"page {page.page} of {max(page.pages, 1)} · {page.total} players · updated"
    )
    return embed


def settings_embed(settings: GuildSettings, note: str | None = None) -> discord.Embed:
    embed = discord.Embed(title="Ladder settings", description=note)
    for name, value in (
        ("t", settings.t),
        ("game_mult", settings.game_mult),
        ("max_game_length", settings.max_game_length),
        ("initial_rating", settings.initial_rating),
        ("variant", settings.variant),
        ("confirm", settings.confirm),
        ("auto_confirm_hours", settings.auto_confirm_hours),
        ("min_games", settings.min_games),
    ):
        embed.add_field(name=name, value=f"{value:g}" if isinstance(value, float) else str(value))
    return embed


def prediction_embed(prediction: Prediction) -> discord.Embed:
    a, b = prediction.a, prediction.b
    embed = discord.Embed(title=f"{a.name} vs {b.name}")
    embed.add_field(name="Ladder", value=f"{a.name} wins with {prediction.ladder:.1%}")
    if prediction.performance is None:
        performance = "undefined (a performance rating is not finite)"
    else:
        performance = f"{a.name} wins with {prediction.performance:.1%}"
    embed.add_field(name="Performance", value=performance)
    return embed


def whole_lines(lines: Sequence[str], limit: int, empty: str) -> str:
    """The lines joined, as many whole ones as fit in `limit` characters."""
    kept: list[str] = []
    length = 0
    for line in lines:
        length += len(line) + (1 if kept else 0)
        if length > limit:
            break
        kept.append(line)
    return "\n".join(kept) or empty


def match_page_embed(page: MatchPage) -> discord.Embed:
    """A page of the match list, newest first, with when each match was played."""
    title = "Matches" if page.name is None else f"Matches of {escape_markdown(page.name)}"
    lines = [f"{match_summary(match)} · <t:{int(match.played_at)}:R>" for match in page.matches]
    embed = discord.Embed(
        title=title,
        description=whole_lines(lines, DESCRIPTION_LIMIT, "No matches yet."),
        colour=discord.Colour.blurple(),
    )
    embed.set_footer(text=f"page {page.page} of {page.pages} · {page.total} matches")
    return embed


RESULT_WORD: dict[Outcome, str] = {"win": "won", "draw": "drew", "loss": "lost"}


def head_to_head_embed(found: HeadToHead) -> discord.Embed:
    """/predict's two chances, then the record and the last meetings of a against b."""
    embed = prediction_embed(found.prediction)
    a, b = found.prediction.a, found.prediction.b
    embed.title = f"{escape_markdown(a.name)} vs {escape_markdown(b.name)} — head to head"
    total = found.wins + found.draws + found.losses
    embed.add_field(
        name=f"Record of {escape_markdown(a.name)}"[:256],
        value=f"{found.wins}W {found.draws}D {found.losses}L in {total} meetings",
        inline=False,
    )
    lines = [
        f"#{meeting.match.id} <t:{int(meeting.match.played_at)}:d>: "
        f"{escape_markdown(a.name)} {RESULT_WORD[meeting.result]}"
        for meeting in found.recent
    ]
    embed.add_field(
        name="Last meetings",
        value=whole_lines(lines, FIELD_LIMIT, "They have not met in a rated match yet."),
        inline=False,
    )
    return embed


def player_text(entry: TeamMember) -> str:
    """A member as a mention (Discord shows their current name; embeds ping nobody), a guest
    by name."""
    if entry.player.user_id is not None:
        return entry.player.label
    return escape_markdown(entry.name)


def balance_embed(found: TeamBalance) -> discord.Embed:
    """Each team with its players' ladder ratings, average and chance to win (with more than
    two teams: its mean chance against each other team)."""
    count = sum(len(team.players) for team in found.teams)
    how = (
        "the most even split"
        if found.exact
        else f"more than {EXACT_MAX_PLAYERS} players: the best split a heuristic found"
    )
    description = f"{count} players in {len(found.teams)} teams ({how})."
    if len(found.teams) > 2:
        description += " A team's chance is its mean chance against each other team."
    embed = discord.Embed(
        title="Balanced teams", description=description, colour=discord.Colour.blurple()
    )
    for number, team in enumerate(found.teams, start=1):
        lines = [f"{player_text(entry)} — {ladder_number(entry.rating)}" for entry in team.players]
        embed.add_field(
            name=f"Team {number}: wins {team.win_probability:.1%} · average "
            f"{ladder_number(team.average)}",
            value=whole_lines(lines, FIELD_LIMIT, "—"),
        )
    return embed
