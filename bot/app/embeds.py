"""Embeds built from the services' results (display only: no rules, no math beyond rounding)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from itertools import groupby
from typing import Final
from urllib.parse import quote

import discord
from babel.numbers import format_percent

from bot.app.members import shown_name
from bot.config import GuildSettings, WebConfig
from bot.present.evaluation import evaluation_table, tuning_table, tuning_verdict, verdict
from bot.present.language import ENGLISH, N_, Words
from bot.present.words import (
    OUTCOME_WORDS,
    actor_text,
    discord_settings_command,
    outcome_text,
    participant_move,
    rating_move,
    setting_text,
    shorten,
    side_name,
    team_words,
)
from bot.ratings.balance import EXACT_MAX_PLAYERS
from bot.services import Match, MatchEdit, Participant, Season
from bot.services.card import FormEntry
from bot.services.evaluation import GuildEvaluation
from bot.services.matches import MatchPage
from bot.services.matchups import HeadToHead, TeamBalance, TeamMember
from bot.services.season_rules import SeasonSummary
from bot.services.standings import LeaderboardPage, Prediction, RatingCard

STATUS_TEXT = {
    "pending": N_("pending — waiting for an opponent to confirm"),
    "disputed": N_("disputed — a moderator decides (/match confirm or /admin void)"),
    "applied": N_("applied"),
    "void": N_("void"),
}
STATUS_COLOUR = {
    "pending": discord.Colour.gold(),
    "disputed": discord.Colour.red(),
    "applied": discord.Colour.green(),
    "void": discord.Colour.dark_grey(),
}
MEASURE_TITLE = {"ladder": N_("ladder rating"), "ra": N_("rating accuracy (RA)")}
FIELD_VALUE_LIMIT: Final = 1024
"""Discord's limit on an embed field's value (an embed: 25 fields, 6,000 characters)."""
FIELDS_LIMIT: Final = 25
EMBED_LIMIT: Final = 6000
DESCRIPTION_LIMIT: Final = 4096
NAME_LIMIT: Final = 32
"""Display names and guest names are at most this long (longer ones predate the bound)."""
FIELD_PER_SIDE_UP_TO: Final = 8
"""A match of at most this many sides shows one field per side; more are packed."""
DIGITS: Final = re.compile(r"([0-9]+)")
PROVISIONAL_NOTE = N_("Provisional: too few matches yet for the rating to settle.")
INACTIVE_NOTE = N_("Inactive: no match within the server's inactive_days; off the leaderboards.")


def participant_line(participant: Participant, status: str, said: Words = ENGLISH) -> str:
    who = (
        f"<@{participant.user_id}>"
        if participant.user_id is not None
        else shown_name(shorten(participant.name, NAME_LIMIT))
    )
    score = participant.score
    counted = int(score) if score.is_integer() else 2  # a fraction reads as a plural
    points = said.ngettext("{count} point", "{count} points", counted, count=said.number(score))
    line = said.gettext(
        N_("{player} — {points}, {minutes} min"),
        player=who,
        points=points,
        minutes=said.number(participant.minutes),
    )
    move = participant_move(participant, status, said)
    if move is None:
        return line
    return f"{line}: {move}" if participant.rating_before is not None else f"{line} ({move})"


def side_order(label: str) -> tuple[tuple[int, int, str], ...]:
    """Natural order of side labels: 2 before 10, as people count."""
    return tuple(
        (0, int(part), "") if DIGITS.fullmatch(part) else (1, 0, part)
        for part in DIGITS.split(label)
        if part
    )


def packed(lines: Iterable[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """(side, line) pairs in runs that each fit one field value, keeping lines whole."""
    runs: list[list[tuple[str, str]]] = []
    size = FIELD_VALUE_LIMIT
    for side, line in lines:
        line = shorten(line, FIELD_VALUE_LIMIT)
        if size + 1 + len(line) > FIELD_VALUE_LIMIT:
            runs.append([])
            size = -1
        runs[-1].append((side, line))
        size += 1 + len(line)
    return runs


def side_fields(
    participants: Iterable[Participant], status: str, said: Words = ENGLISH
) -> list[tuple[str, str]]:
    """(name, value) of the fields that show a match's sides, in natural side order.

    A few sides get a field each ("Team A", continued if it overflows a field); a match of
    many sides (a big free-for-all) lists its sides as lettered lines packed several to a
    field ("Team A to Team I"), so that 32 players fit Discord's 25 fields and 6,000
    characters.
    """
    _ = said.gettext
    ordered = sorted(participants, key=lambda p: (side_order(p.side), p.position))
    sides = [(side, list(members)) for side, members in groupby(ordered, key=lambda p: p.side)]
    fields: list[tuple[str, str]] = []
    if len(sides) <= FIELD_PER_SIDE_UP_TO:
        for side, members in sides:
            lines_of_side = ((side, participant_line(p, status, said)) for p in members)
            for run, lines in enumerate(packed(lines_of_side)):
                name = team_words(side, said)
                if run:
                    name = _(N_("{team} (continued)"), team=name)
                fields.append((name, "\n".join(line for _, line in lines)))
        return fields
    numbered = (
        (side, f"**{side_name(side).removeprefix('Team ')}** · {participant_line(p, status, said)}")
        for side, members in sides
        for p in members
    )
    for lines in packed(numbered):
        first, last = lines[0][0], lines[-1][0]
        name = (
            team_words(first, said)
            if first == last
            else _(N_("{first} to {last}"), first=team_words(first, said),
                   last=team_words(last, said))
        )  # fmt: skip
        fields.append((name, "\n".join(line for _, line in lines)))
    return fields


def match_embed(match: Match, url: str | None = None, said: Words = ENGLISH) -> discord.Embed:
    """One match: status, sides with scores, minutes and rating changes. Every reply about
    a match (report, show, confirm, dispute, void) is this embed, within Discord's limits."""
    _ = said.gettext
    description = _(N_("Status: {status}"), status=_(STATUS_TEXT[match.status]))
    if match.reporter_id is not None:
        description += "\n" + _(N_("Reported by {member}"), member=f"<@{match.reporter_id}>")
    embed = discord.Embed(
        title=_(N_("Match #{number}"), number=match.id),
        url=url,
        description=description,
        colour=STATUS_COLOUR[match.status],
        timestamp=datetime.fromtimestamp(match.played_at, UTC),
    )
    for name, value in side_fields(match.participants, match.status, said):
        embed.add_field(name=name, value=value, inline=False)
    if match.void_reason:
        embed.add_field(
            name=_(N_("Void reason")),
            value=shorten(match.void_reason, FIELD_VALUE_LIMIT),
            inline=False,
        )
    return embed


def add_edits(
    embed: discord.Embed, edits: Sequence[MatchEdit], said: Words = ENGLISH
) -> discord.Embed:
    """/match show: the lineups the match had before each /admin edit, newest last; left
    out when the embed has no room for one more field."""
    if not edits:
        return embed
    lines = [
        said.gettext(
            N_("{when} by {who}: {lineup}"),
            when=f"<t:{round(edit.edited_at)}:f>",
            who=said.gettext(actor_text(edit.editor_id)),
            lineup=edit.old_lineup,
        )
        for edit in edits
    ]
    value = shorten("\n".join(lines), FIELD_VALUE_LIMIT)
    name = said.gettext(N_("Earlier lineups"))
    if len(embed.fields) < FIELDS_LIMIT and len(embed) + len(name) + len(value) <= EMBED_LIMIT:
        embed.add_field(name=name, value=value, inline=False)
    return embed


def match_stored(match: Match, said: Words = ENGLISH) -> str:
    """What is stored about a match, in one sentence: the reply when its embed failed."""
    return said.gettext(
        N_("Match #{number} is recorded: {status}. /match show {number} shows it."),
        number=match.id,
        status=said.gettext(STATUS_TEXT[match.status]),
    )


def match_summary(match: Match) -> str:
    """One line for lists: id, status, who played."""
    names = ", ".join(shown_name(p.name) for p in match.participants)
    return f"#{match.id} {match.status}: {names}"[:200]


def form_line(entry: FormEntry, said: Words = ENGLISH) -> str:
    """One recent match on the card: number, day, result and rating change."""
    result = outcome_text(entry.result, said)
    day = f"<t:{round(entry.played_at)}:d>"
    return f"#{entry.match_id} {day} **{result}** " + rating_move(
        entry.rating_before, entry.rating_after, said
    )


def rating_embed(
    card: RatingCard, chart_filename: str | None, url: str | None = None, said: Words = ENGLISH
) -> discord.Embed:
    """The rating card: ladder rating (and peak, streak, win rate, form), rank, record, the
    variant's performance ± and RA."""
    member, stats = card.member, card.stats
    _ = said.gettext
    embed = discord.Embed(
        title=_(N_("{name} — rating"), name=shown_name(member.name)),
        url=url,
        description="\n".join(
            _(note)
            for note, shown in (
                (INACTIVE_NOTE, card.inactive),
                (PROVISIONAL_NOTE, card.provisional),
            )
            if shown
        )
        or None,
        colour=discord.Colour.blurple(),
    )
    embed.add_field(name=_(N_("Ladder rating")), value=said.rating(card.rating))
    rank = _(N_("#{rank}"), rank=said.integer(card.rank)) if card.rank is not None else None
    embed.add_field(name=_(N_("Rank")), value=rank or _(N_("unranked")))
    # The record restarts with each season; peak, streak, win rate and form span them all.
    record = said.ngettext(
        "{wins}W {draws}D {losses}L ({count} game this season)",
        "{wins}W {draws}D {losses}L ({count} games this season)",
        card.games,
        wins=card.wins,
        draws=card.draws,
        losses=card.losses,
    )
    embed.add_field(name=_(N_("Record")), value=record)
    peak = said.rating(stats.peak) if stats.peak is not None else "—"
    embed.add_field(name=_(N_("Peak")), value=peak)
    streak = outcome_text(stats.streak, said) if stats.streak else "—"
    embed.add_field(name=_(N_("Streak")), value=streak)
    win_rate = (
        said.ngettext(
            "{rate} of {count} game (all seasons)",
            "{rate} of {count} games (all seasons)",
            stats.games,
            rate=format_percent(stats.win_rate, locale=said.locale),
        )
        if stats.win_rate is not None
        else "—"
    )
    embed.add_field(name=_(N_("Win rate")), value=win_rate)
    embed.add_field(
        name=_(N_("Performance ({variant})"), variant=card.variant),
        value=said.performance(card.performance, card.up, card.down),
    )
    embed.add_field(name="RA", value=said.accuracy(card.ra))
    if not member.enabled:
        embed.add_field(
            name=_(N_("Ladder")), value=_(N_("opted out (/ladder join to be rated again)"))
        )
    form = "\n".join(form_line(entry, said) for entry in stats.form) or _(N_("No matches yet."))
    embed.add_field(name=_(N_("Recent form")), value=form[:1024], inline=False)
    if chart_filename is not None:
        embed.set_image(url=f"attachment://{chart_filename}")
    return embed


def season_started(season: Season, said: Words = ENGLISH) -> str:
    _ = said.gettext
    kept = (
        _(N_("ratings restart from the initial rating"))
        if season.carry == 0
        else _(
            N_("ratings keep {share} of their distance to the initial rating"),
            share=format_percent(season.carry, locale=said.locale),
        )
    )
    return _(
        N_(
            "Season **{season}** has started: {kept}, records restart at 0. "
            "The closed season's standings stay under /leaderboard season."
        ),
        season=shown_name(season.name),
        kept=kept,
    )


def seasons_embed(seasons: Sequence[SeasonSummary], said: Words = ENGLISH) -> discord.Embed:
    """Every season, oldest first; the last is under way."""
    _ = said.gettext
    lines = []
    for season in seasons:
        began = (
            _(N_("the first match"))
            if season.started_at is None
            else f"<t:{int(season.started_at)}:d>"
        )
        if season.ended_at is None:
            state = _(N_("current"))
        else:
            state = said.ngettext(
                "closed {when}, {count} player",
                "closed {when}, {count} players",
                season.members,
                when=f"<t:{int(season.ended_at)}:d>",
            )
        name = shown_name(season.name)
        if season.started_at is None:
            line = _(
                N_("**{season}** — from {began}; {state}"), season=name, began=began, state=state
            )
        else:
            line = _(
                N_("**{season}** — from {began}, carry {carry}; {state}"),
                season=name, began=began, carry=said.number(season.carry), state=state,
            )  # fmt: skip
        lines.append(line)
    return discord.Embed(
        title=_(N_("Seasons")),
        description=shorten("\n".join(reversed(lines)), DESCRIPTION_LIMIT),
        colour=discord.Colour.blurple(),
    )


def leaderboard_value(by: str, value: float, said: Words = ENGLISH) -> str:
    return "RA " + said.accuracy(value) if by == "ra" else said.rating(value)


def leaderboard_embed(
    page: LeaderboardPage,
    title: str = N_("Leaderboard"),
    highlight: int | None = None,
    url: str | None = None,
    said: Words = ENGLISH,
) -> discord.Embed:
    """One page: rank, name, the measure, ladder rating and record; the `highlight` member's
    row marked. The embed's timestamp says when the standings were read."""
    _ = said.gettext
    measure = (
        _(MEASURE_TITLE[page.by])
        if page.by in MEASURE_TITLE
        else _(N_("performance {variant}"), variant=page.by)
    )
    lines = [
        ("▶ " if row.user_id == highlight else "")
        + f"**{row.rank}.** {shown_name(row.name)} — {leaderboard_value(page.by, row.value, said)}"
        + (
            ""
            if page.by == "ladder"
            else _(N_(" (ladder {rating})"), rating=said.rating(row.rating))
        )
        + " · "
        + _(N_("{wins}W {draws}D {losses}L"), wins=row.wins, draws=row.draws, losses=row.losses)
        + (" · *" + _(N_("provisional")) + "*" if row.provisional else "")
        for row in page.rows
    ]
    embed = discord.Embed(
        title=_(N_("{title} — by {measure}"), title=_(title), measure=measure),
        url=url,
        description=shorten("\n".join(lines), DESCRIPTION_LIMIT)
        or _(N_("Nobody has played enough matches yet.")),
        colour=discord.Colour.blurple(),
        timestamp=datetime.now(UTC),
    )
    embed.set_footer(text=leaderboard_footer(page, on_the_web=url is not None, said=said))
    return embed


def board_path(page: LeaderboardPage) -> str:
    """The web page of the leaderboard a page is of (the web's own pages are longer)."""
    season = "" if page.season is None else f"&season={quote(page.season, safe='')}"
    return f"?by={page.by}{season}"


def match_path(match: Match) -> str:
    return f"/matches/{match.id}"


def leaderboard_footer(
    page: LeaderboardPage, *, on_the_web: bool = False, said: Words = ENGLISH
) -> str:
    """Which page of how many, and where the next one is (the live board has no buttons;
    `on_the_web`: the title links to the whole board)."""
    _ = said.gettext
    pages = max(page.pages, 1)
    more = ""
    if page.page < pages:
        season = f" season:{page.season}" if page.season is not None else ""
        next_page = f"/leaderboard page:{page.page + 1}{season}"
        more = " · " + (
            _(N_("next: {command} or the title's web page"), command=next_page)
            if on_the_web
            else _(N_("next: {command}"), command=next_page)
        )
    players = said.ngettext("{count} player", "{count} players", page.total)
    where = _(N_("page {page} of {pages}"), page=page.page, pages=pages)
    return f"{where} · {players}{more} · " + _(N_("updated"))


def settings_embed(
    settings: GuildSettings, note: str | None = None, said: Words = ENGLISH
) -> discord.Embed:
    embed = discord.Embed(title=said.gettext(N_("Ladder settings")), description=note)
    for name, value in (
        ("t", settings.t),
        ("game_mult", settings.game_mult),
        ("max_game_length", settings.max_game_length),
        ("initial_rating", settings.initial_rating),
        ("variant", settings.variant),
        ("confirm", settings.confirm),
        ("auto_confirm_hours", settings.auto_confirm_hours),
        ("min_games", settings.min_games),
        ("provisional_games", settings.provisional_games),
        ("inactive_days", settings.inactive_days),
        ("rank_margin", settings.rank_margin),
        ("no_show_minutes", settings.no_show_minutes),
        ("lobby_hours", settings.lobby_hours),
        ("room_grace_seconds", settings.room_grace_seconds),
        ("web", settings.web),
        ("language", settings.language),
    ):
        embed.add_field(name=name, value=setting_text(value))
    return embed


def web_address_note(web: WebConfig, guild_id: int, shown: bool, said: Words = ENGLISH) -> str:
    """/admin web: where this server's pages are, and whether they are shown (SPEC 11.1)."""
    _ = said.gettext
    address = web.guild_address(guild_id)
    if web.public_url is None:
        where = _(
            N_(
                "This server's leaderboard page is at the path {address} of the web server; "
                "set [web] public_url in the bot's config for a full address."
            ),
            address=address,
        )
    else:
        where = _(N_("This server's leaderboard page: <{address}>"), address=address)
    state = (
        _(
            N_(
                "The pages and the API show this server's standings; /admin settings "
                "web:False hides them at once."
            )
        )
        if shown
        else _(
            N_("They are hidden now (the pages answer 404): /admin settings web:True shows them.")
        )
    )
    return f"{where}\n{state}"


PREDICTION_NOTE: Final = N_(
    "Two estimates of one chance. The ladder's comes from the ladder ratings, which the "
    "leaderboard ranks by and which follow recent matches most; the performance rating's "
    "weighs all of both members' games alike. They differ when recent form and the whole "
    "record disagree; /admin evaluate shows which has predicted this server's matches better."
)


def prediction_embed(prediction: Prediction, said: Words = ENGLISH) -> discord.Embed:
    """Both chances of a beating b, each saying where it comes from."""
    _ = said.gettext
    a, b = shown_name(prediction.a.name), shown_name(prediction.b.name)
    embed = discord.Embed(title=_(N_("{a} vs {b}"), a=a, b=b), description=_(PREDICTION_NOTE))
    chance = format_percent(prediction.ladder, "#,##0.0%", locale=said.locale)
    embed.add_field(name=_(N_("Ladder")), value=_(N_("{a} wins with {chance}"), a=a, chance=chance))
    if prediction.performance is None:
        performance = _(N_("undefined (a performance rating is not finite)"))
    else:
        chance = format_percent(prediction.performance, "#,##0.0%", locale=said.locale)
        performance = _(N_("{a} wins with {chance}"), a=a, chance=chance)
    embed.add_field(
        name=_(N_("Performance ({variant}, this server's variant)"), variant=prediction.variant),
        value=performance,
    )
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


def match_page_embed(page: MatchPage, said: Words = ENGLISH) -> discord.Embed:
    """A page of the match list, newest first, with when each match was played."""
    _ = said.gettext
    title = (
        _(N_("Matches"))
        if page.name is None
        else _(N_("Matches of {name}"), name=shown_name(page.name))
    )
    lines = [f"{match_summary(match)} · <t:{int(match.played_at)}:R>" for match in page.matches]
    embed = discord.Embed(
        title=title,
        description=whole_lines(lines, DESCRIPTION_LIMIT, _(N_("No matches yet."))),
        colour=discord.Colour.blurple(),
    )
    matches = said.ngettext("{count} match", "{count} matches", page.total)
    where = _(N_("page {page} of {pages}"), page=page.page, pages=page.pages)
    embed.set_footer(text=f"{where} · {matches}")
    return embed


def head_to_head_embed(found: HeadToHead, said: Words = ENGLISH) -> discord.Embed:
    """/predict's two chances, then the record and the last meetings of a against b."""
    _ = said.gettext
    embed = prediction_embed(found.prediction, said)
    a, b = shown_name(found.prediction.a.name), shown_name(found.prediction.b.name)
    embed.title = _(N_("{a} vs {b} — head to head"), a=a, b=b)
    total = found.wins + found.draws + found.losses
    record = said.ngettext(
        "{wins}W {draws}D {losses}L in {count} meeting",
        "{wins}W {draws}D {losses}L in {count} meetings",
        total,
        wins=found.wins,
        draws=found.draws,
        losses=found.losses,
    )
    embed.add_field(name=_(N_("Record of {name}"), name=a)[:256], value=record, inline=False)
    lines = [
        f"#{meeting.match.id} <t:{int(meeting.match.played_at)}:d>: "
        + _(N_("{name} {result}"), name=a, result=_(OUTCOME_WORDS[meeting.result]))
        for meeting in found.recent
    ]
    embed.add_field(
        name=_(N_("Last meetings")),
        value=whole_lines(
            lines, FIELD_VALUE_LIMIT, _(N_("They have not met in a rated match yet."))
        ),
        inline=False,
    )
    return embed


def player_text(entry: TeamMember) -> str:
    """A member as a mention (Discord shows their current name; embeds ping nobody), a guest
    by name."""
    if entry.player.user_id is not None:
        return entry.player.label
    return shown_name(entry.name)


def balance_embed(found: TeamBalance, said: Words = ENGLISH) -> discord.Embed:
    """Each team with its players' ladder ratings, average and chance to win (with more than
    two teams: its mean chance against each other team)."""
    _ = said.gettext
    count = sum(len(team.players) for team in found.teams)
    how = (
        _(N_("the most even split"))
        if found.exact
        else _(
            N_("more than {most} players: the best split a heuristic found"),
            most=EXACT_MAX_PLAYERS,
        )
    )
    players = said.ngettext("{count} player", "{count} players", count)
    teams = said.ngettext("{count} team", "{count} teams", len(found.teams))
    description = _(N_("{players} in {teams} ({how})."), players=players, teams=teams, how=how)
    if len(found.teams) > 2:
        description += " " + _(N_("A team's chance is its mean chance against each other team."))
    embed = discord.Embed(
        title=_(N_("Balanced teams")), description=description, colour=discord.Colour.blurple()
    )
    for number, team in enumerate(found.teams, start=1):
        lines = [f"{player_text(entry)} — {said.rating(entry.rating)}" for entry in team.players]
        name = _(
            N_("{team}: wins {chance} · average {rating}"),
            team=team_words(str(number), said),
            chance=format_percent(team.win_probability, "#,##0.0%", locale=said.locale),
            rating=said.rating(team.average),
        )
        embed.add_field(name=name, value=whole_lines(lines, FIELD_VALUE_LIMIT, "—"))
    return embed


def evaluation_embed(found: GuildEvaluation, said: Words = ENGLISH) -> discord.Embed:
    """Every measure's figures as a table, which predicts best against the server's variant,
    and (tuned) the best ladder constants tried; its words in `said`'s language (the table
    and the verdicts too)."""
    _ = said.gettext
    evaluation = found.evaluation
    table = "\n".join(evaluation_table(found, said))
    lead = said.ngettext(
        "The last {count} match: each pair's result predicted from what was known before the "
        "match ({pairs} ordered pairs). Lower log-loss is better; a coin toss scores {coin}.",
        "The last {count} matches: each pair's result predicted from what was known before "
        "the match ({pairs} ordered pairs). Lower log-loss is better; a coin toss scores {coin}.",
        evaluation.matches,
        pairs=said.integer(evaluation.scores[0].pairs),
        coin=said.decimal(math.log(2), 4),
    )
    key = _(
        N_("ladder: the ladder rating · p1 to p8: the performance ratings · baseline: a coin toss")
    )
    embed = discord.Embed(
        title=_(N_("How well the ratings predict")),
        description=f"{lead}\n```\n{table}\n```\n{key}",
        colour=discord.Colour.blurple(),
    )
    embed.add_field(
        name=_(N_("Best measure")),
        value=verdict(found, discord_settings_command, said),
        inline=False,
    )
    tuning = tuning_verdict(found, discord_settings_command, said)
    if tuning is not None:
        embed.add_field(name=_(N_("Ladder constants")), value=tuning, inline=False)
        grid = "```\n" + "\n".join(tuning_table(found, said)) + "\n```"
        if len(grid) <= FIELD_VALUE_LIMIT:
            embed.add_field(
                name=_(N_("Ladder log-loss: t down, game_mult across")), value=grid, inline=False
            )
    return embed
