"""What the queue and lobby messages show (SPEC 10), within Discord's limits at 32 players
and 25 queues: embeds, content and their persistent components (plain buttons and selects
whose custom ids the DynamicItems of bot.app.cogs.queues answer after any restart).

Members are shown as mentions: Discord shows their current display name, and a mention in
an embed pings nobody. Wait times are Discord timestamps (`<t:…:R>`), which every client
keeps current by itself, so the message needs no edit for the clock to move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import discord
from babel.numbers import format_percent

from bot.app.embeds import DESCRIPTION_LIMIT, FIELD_VALUE_LIMIT, whole_lines
from bot.app.members import shown_name
from bot.present.language import ENGLISH, N_, Words, refusal_text
from bot.present.words import shorten, team_words
from bot.ratings.elo import EloBridge
from bot.services.errors import Notice
from bot.services.queue_rules import (
    banning_captain,
    chances,
    picking_team,
    team_letter,
    vote_counts,
)
from bot.services.queues import Lobby, LobbyPlayer, Party, Queue, Window

QUEUE_ID: Final = "ladderbot:queue:{action}:{queue_id}"
LOBBY_ID: Final = "ladderbot:lobby:{action}:{lobby_id}"
PICK_ID: Final = "ladderbot:pick:{lobby_id}:{part}"
PARTY_ID: Final = "ladderbot:party:{action}:{leader_id}:{invitee_id}"
VOTE_ID: Final = "ladderbot:map:vote:{lobby_id}:{choice}"
BAN_ID: Final = "ladderbot:map:ban:{lobby_id}"
SELECT_OPTIONS: Final = 25
"""Discord's most options in one select menu; more players are split over two menus."""
CONTENT_LIMIT: Final = 2000


def _notice(stored: str, said: Words) -> str:
    """A queue's or lobby's notice as the services stored it, in the server's language."""
    return refusal_text(Notice.load(stored), said)


def when(moment: float) -> str:
    """A time every client shows relative to now ("in 40 seconds", "3 minutes ago")."""
    return f"<t:{int(moment)}:R>"


def queue_kind(queue: Queue, said: Words = ENGLISH) -> str:
    spec = queue.settings
    if spec.format == "ffa":
        return said.gettext(N_("free-for-all of {size}"), size=spec.size)
    per_team = spec.size // spec.teams
    return said.gettext(
        N_("{teams} teams of {size} · {mode}"), teams=spec.teams, size=per_team, mode=spec.mode
    )


def queue_embed(queue: Queue, deleted: bool = False, said: Words = ENGLISH) -> discord.Embed:
    """The queue's message: name, format, size, the members waiting in order with how long
    they have waited, and the last thing that happened to it."""
    _ = said.gettext
    spec = queue.settings
    count = f"{len(queue.waiting)}/{spec.size}"
    title = (
        _(N_("Queue {name} — {count}"), name=spec.name, count=count)
        if not deleted
        else _(N_("Queue {name} (deleted)"), name=spec.name)
    )
    lines = [
        _(N_("{place}. {member} · joined {when}"), place=place, member=f"<@{w.user_id}>",
          when=when(w.joined_at))
        for place, w in enumerate(queue.waiting, 1)
    ]  # fmt: skip
    if deleted:
        gone = " ".join(f"<@{w.user_id}>" for w in queue.waiting)
        text = (
            _(N_("This queue was deleted by a moderator; these members were taken out of it: "
                 "{members}"), members=gone)
            if gone
            else _(N_("This queue was deleted by a moderator."))
        )  # fmt: skip
        return discord.Embed(title=title, description=shorten(text, DESCRIPTION_LIMIT))
    ready = (
        _(N_("ready check {wait}"), wait=said.duration(spec.ready_seconds))
        if spec.ready_seconds
        else _(N_("ready check off"))
    )
    leaves = _(N_("leaves after {wait}"), wait=said.duration(spec.expire_minutes * 60))
    head = f"{queue_kind(queue, said)} · {ready} · {leaves}"
    if spec.rating_range:
        head += f"\n{range_text(queue, said)}"
    if spec.party_max > 1:
        head += "\n" + _(
            N_("Parties of up to {size} (/queue party invite; the leader joins)"),
            size=spec.party_max,
        )
    if spec.maps:
        head += "\n" + _(N_("Maps: {maps}"), maps=shorten(", ".join(spec.maps), 600))
    notice = f"\n\n{shorten(_notice(queue.notice, said), 600)}" if queue.notice else ""
    body = whole_lines(
        lines, DESCRIPTION_LIMIT - len(head) - len(notice) - 10, _(N_("Nobody yet."))
    )
    embed = discord.Embed(
        title=title,
        description=f"{head}\n\n{body}{notice}",
        colour=discord.Colour.blurple(),
    )
    embed.set_footer(text=_(N_("Join or Leave with the buttons, or /queue join and /queue leave.")))
    return embed


def queue_view(queue: Queue, said: Words = ENGLISH) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action, label, style in (
        ("join", N_("Join"), discord.ButtonStyle.success),
        ("leave", N_("Leave"), discord.ButtonStyle.secondary),
    ):
        view.add_item(
            discord.ui.Button(
                label=said.gettext(label),
                style=style,
                custom_id=QUEUE_ID.format(action=action, queue_id=queue.queue_id),
            )
        )
    return view


def _player_line(player: LobbyPlayer, bridge: EloBridge, lobby: Lobby, said: Words) -> str:
    mark = ""
    if lobby.state == "ready":
        mark = "✅ " if player.ready else "⌛ "
    captain = said.gettext(N_(" (captain)")) if player.captain else ""
    party = (
        said.gettext(N_(" · party of {leader}"), leader=f"<@{player.party}>")
        if player.party is not None
        else ""
    )
    rating = said.rating(float(bridge.from_elo(player.rating)))
    return f"{mark}<@{player.user_id}> — {rating}{captain}{party}"


def lobby_content(lobby: Lobby, said: Words = ENGLISH) -> str | None:
    """Who the message calls: the players to the ready check, the captain whose turn it is."""
    _ = said.gettext
    if lobby.state == "ready":
        waiting = [p for p in lobby.players if not p.ready]
        mentions = " ".join(f"<@{p.user_id}>" for p in waiting)
        text = (
            _(N_("{members} — your {queue} match is ready: click Ready (closes {when})."),
              members=mentions, queue=lobby.queue_name, when=when(lobby.ready_deadline))
            if lobby.ready_deadline
            else _(N_("{members} — your {queue} match is ready: click Ready."),
                   members=mentions, queue=lobby.queue_name)
        )  # fmt: skip
        return shorten(text, CONTENT_LIMIT)
    if lobby.state == "picking":
        team = picking_team(lobby.players, lobby.teams, lobby.pick_order)
        captain = next((p for p in lobby.players if p.captain and p.team == team), None)
        if team is not None and captain is not None:
            if lobby.pick_deadline:
                return _(N_("{captain}, pick a player for team {team} (auto-pick {when})."),
                         captain=f"<@{captain.user_id}>", team=team_letter(team),
                         when=when(lobby.pick_deadline))  # fmt: skip
            return _(N_("{captain}, pick a player for team {team}."),
                     captain=f"<@{captain.user_id}>", team=team_letter(team))  # fmt: skip
    if lobby.state == "playing" and lobby.choosing_map and lobby.map_deadline:
        closes = when(lobby.map_deadline)
        if lobby.map_pick == "ban":
            captain = banning_captain(lobby.players, len(lobby.map_banned))
            letter = team_letter(len(lobby.map_banned) % 2)
            return _(N_("{captain}, ban a map for team {team} (else a random ban {when})."),
                     captain=f"<@{captain.user_id}>", team=letter, when=closes)  # fmt: skip
        mentions = " ".join(f"<@{p.user_id}>" for p in lobby.players if p.vote is None)
        text = _(N_("{members} — vote for the map (closes {when})."), members=mentions, when=closes)
        return shorten(text, CONTENT_LIMIT)
    if lobby.state == "playing":
        mentions = " ".join(f"<@{p.user_id}>" for p in lobby.players)
        text = _(N_("{members} — teams are made: good luck!"), members=mentions)
        return shorten(text, CONTENT_LIMIT)
    return None


def map_chosen(lobby: Lobby, said: Words) -> str:
    """ " The map is …" once a vote or a ban has decided it (a reply to a voter or a captain);
    empty while it is being chosen."""
    return "" if lobby.map is None else " " + said.gettext(N_("The map is {map}."), map=lobby.map)


def map_text(lobby: Lobby, said: Words = ENGLISH) -> str | None:
    """The map and how it was (or is being) chosen: drawn, voted (the tally) or banned."""
    _ = said.gettext
    tally = " · ".join(
        f"{shorten(m, 40)} {count}"
        for m, count in zip(
            lobby.map_candidates, vote_counts(lobby.map_candidates, lobby.players), strict=True
        )
    )
    bans = ", ".join(
        f"{team_letter(turn % 2)} {shorten(m, 40)}" for turn, m in enumerate(lobby.map_banned)
    )
    if lobby.map is None and lobby.choosing_map and lobby.map_deadline:
        if lobby.map_pick == "vote":
            return _(N_("Map vote: {tally} — closes {when}"), tally=tally,
                     when=when(lobby.map_deadline))  # fmt: skip
        left = ", ".join(shorten(m, 40) for m in lobby.map_candidates)
        text = _(N_("Map bans: {bans}; left: {left}"), bans=bans or _(N_("none yet")), left=left)
        return shorten(text, 900)
    if lobby.map is None:
        return None
    how = {
        "random": _(N_("drawn at random")),
        "vote": _(N_("voted: {tally}"), tally=tally),
        "ban": _(N_("bans: {bans}"), bans=bans),
    }
    return shorten(_(N_("Map: {map} ({how})"), map=lobby.map, how=how[lobby.map_pick]), 900)


STATE_WORDS: Final = {
    "ready": N_("ready check"),
    "picking": N_("captains are picking"),
    "playing": N_("playing"),
    "reported": N_("result reported"),
    "cancelled": N_("cancelled"),
    "dissolved": N_("dissolved"),
}


def lobby_embed(lobby: Lobby, bridge: EloBridge, said: Words = ENGLISH) -> discord.Embed:
    """The lobby: its id, state, players (ready marks), teams named A to D with each team's
    chance to win, the map, the random seed, and how it ended."""
    _ = said.gettext
    embed = discord.Embed(
        title=_(N_("Lobby #{number} · {queue} — {state}"), number=lobby.lobby_id,
                queue=lobby.queue_name, state=_(STATE_WORDS[lobby.state])),
        colour=discord.Colour.green() if lobby.is_open else discord.Colour.light_grey(),
    )  # fmt: skip
    lines: list[str] = []
    shown_map = map_text(lobby, said)
    if shown_map:
        lines.append(shown_map)
    if lobby.seed is not None:
        lines.append(_(N_("Random split, seed {seed}"), seed=lobby.seed))
    if lobby.state == "ready" and lobby.ready_deadline:
        ready = sum(1 for p in lobby.players if p.ready)
        lines.append(_(N_("{ready}/{players} ready · closes {when}"), ready=ready,
                       players=len(lobby.players), when=when(lobby.ready_deadline)))  # fmt: skip
    if lobby.match_id is not None:
        lines.append(
            _(N_("Result recorded as match #{number} (/match show id:{number})."),
              number=lobby.match_id)
        )  # fmt: skip
    if lobby.notice:
        lines.append(shorten(_notice(lobby.notice, said), 500))
    teams_made = lobby.format == "teams" and any(p.team is not None for p in lobby.players)
    if teams_made:
        embed.description = "\n".join(lines) or None
        _team_fields(embed, lobby, bridge, said)
    else:
        players = [_player_line(p, bridge, lobby, said) for p in lobby.players]
        if lobby.format == "ffa" and lobby.state != "ready":
            lines.append(
                _(N_("Free-for-all: report with /queue result lobby:… order:@first @second …"))
            )
        head = "\n".join(lines)
        body = whole_lines(players, DESCRIPTION_LIMIT - len(head) - 4, "—")
        embed.description = f"{head}\n\n{body}" if head else body
    return embed


def _team_fields(embed: discord.Embed, lobby: Lobby, bridge: EloBridge, said: Words) -> None:
    complete = all(p.team is not None for p in lobby.players)
    odds = chances(lobby.players, lobby.teams) if complete else None
    for team in range(lobby.teams):
        members = [p for p in lobby.players if p.team == team]
        name = team_words(str(team + 1), said)
        if odds is not None:
            chance = format_percent(odds[team], locale=said.locale)
            name = said.gettext(N_("{team} — {chance} to win"), team=name, chance=chance)
        lines = [_player_line(p, bridge, lobby, said) for p in members]
        embed.add_field(name=name, value=whole_lines(lines, FIELD_VALUE_LIMIT, "—"), inline=True)
    waiting = [p for p in lobby.players if p.team is None]
    if waiting:
        embed.add_field(
            name=said.gettext(N_("Still to pick")),
            value=whole_lines(
                [_player_line(p, bridge, lobby, said) for p in waiting], FIELD_VALUE_LIMIT, "—"
            ),
            inline=False,
        )


def lobby_view(
    lobby: Lobby, bridge: EloBridge, names: Mapping[int, str], said: Words = ENGLISH
) -> discord.ui.View | None:
    """Ready/Leave in the ready check, the picking captain's select menu(s), the result
    buttons (A won … D won, Draw) while playing; nothing once it has ended."""
    _ = said.gettext
    view = discord.ui.View(timeout=None)

    def button(action: str, label: str, style: discord.ButtonStyle) -> None:
        custom_id = LOBBY_ID.format(action=action, lobby_id=lobby.lobby_id)
        view.add_item(discord.ui.Button(label=label, style=style, custom_id=custom_id))

    if lobby.state == "ready":
        button("ready", _(N_("Ready")), discord.ButtonStyle.success)
        button("leave", _(N_("Leave")), discord.ButtonStyle.danger)
    elif lobby.state == "picking":
        left = sorted(
            (p for p in lobby.players if p.team is None), key=lambda p: (-p.rating, p.position)
        )
        for part, start in enumerate(range(0, len(left), SELECT_OPTIONS)):
            chunk = left[start : start + SELECT_OPTIONS]
            select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
                custom_id=PICK_ID.format(lobby_id=lobby.lobby_id, part=part),
                placeholder=_(N_("Captain: pick a player"))
                if part == 0
                else _(N_("… or one of these")),
                options=[
                    discord.SelectOption(
                        label=shorten(names.get(p.user_id, str(p.user_id)), 100),
                        value=str(p.user_id),
                        description=_(
                            N_("rating {rating}"),
                            rating=said.rating(float(bridge.from_elo(p.rating))),
                        )
                        + (_(N_(" · comes with their party")) if p.party is not None else ""),
                    )
                    for p in chunk
                ],
            )
            view.add_item(select)
    elif lobby.state == "playing" and lobby.choosing_map:
        _map_choice(view, lobby, said)
    elif lobby.state == "playing" and lobby.format == "teams":
        for team in range(lobby.teams):
            letter = team_letter(team)
            button(letter.lower(), _(N_("{team} won"), team=letter), discord.ButtonStyle.primary)
        button("draw", _(N_("Draw")), discord.ButtonStyle.secondary)
    else:
        return None
    return view


def _map_choice(view: discord.ui.View, lobby: Lobby, said: Words) -> None:
    """A button per candidate map (vote: the tally on each), or the ban menu of the maps
    left; the result buttons follow once the map is chosen."""
    if lobby.map_pick == "vote":
        counts = vote_counts(lobby.map_candidates, lobby.players)
        for choice, (name, count) in enumerate(zip(lobby.map_candidates, counts, strict=True)):
            view.add_item(
                discord.ui.Button(
                    label=f"{name} · {count}",
                    style=discord.ButtonStyle.primary,
                    custom_id=VOTE_ID.format(lobby_id=lobby.lobby_id, choice=choice),
                )
            )
        return
    letter = team_letter(len(lobby.map_banned) % 2)
    view.add_item(
        discord.ui.Select(
            custom_id=BAN_ID.format(lobby_id=lobby.lobby_id),
            placeholder=said.gettext(N_("Team {team}'s best player: ban a map"), team=letter),
            options=[discord.SelectOption(label=m, value=m) for m in lobby.map_candidates],
        )
    )


def party_invite_view(leader_id: int, invitee_id: int, said: Words = ENGLISH) -> discord.ui.View:
    """Accept / Decline on an invitation (only the invitee may click; SPEC 10.5)."""
    view = discord.ui.View(timeout=None)
    for action, label, style in (
        ("accept", N_("Accept"), discord.ButtonStyle.success),
        ("decline", N_("Decline"), discord.ButtonStyle.secondary),
    ):
        custom_id = PARTY_ID.format(action=action, leader_id=leader_id, invitee_id=invitee_id)
        view.add_item(
            discord.ui.Button(label=said.gettext(label), style=style, custom_id=custom_id)
        )
    return view


def party_text(party: Party | None, said: Words = ENGLISH) -> str:
    """/queue party show: the leader, the members, the open invitations."""
    _ = said.gettext
    if party is None:
        return _(N_("You are not in a party. Invite someone with /queue party invite."))
    members = ", ".join(f"<@{user_id}>" for user_id in party.members[1:]) or _(N_("nobody yet"))
    invited = ", ".join(f"<@{user_id}>" for user_id in party.invited)
    text = _(N_("Party of {leader} (leader) with {members}."), leader=f"<@{party.leader_id}>",
             members=members)  # fmt: skip
    if invited:
        text += " " + _(N_("Invited, not answered yet: {members}."), members=invited)
    return shorten(text, CONTENT_LIMIT)


def range_text(queue: Queue, said: Words = ENGLISH) -> str:
    """A queue's rating range as its message and /admin queue show it (capitalised)."""
    spec = queue.settings
    if spec.widen:
        return said.gettext(
            N_("Rating range ±{range} Elo, +{widen} a minute waited"),
            range=spec.rating_range,
            widen=spec.widen,
        )
    return said.gettext(N_("Rating range ±{range} Elo"), range=spec.rating_range)


def window_line(window: Window, said: Words) -> str:
    low, high = round(window.rating - window.reach), round(window.rating + window.reach)
    return "  " + said.gettext(
        N_("{member} {rating}: {low} to {high}"),
        member=f"<@{window.user_id}>",
        rating=round(window.rating),
        low=low,
        high=high,
    )


def queue_list_text(
    queues: Sequence[Queue],
    user_id: int,
    windows: Mapping[int, Sequence[Window]],
    said: Words = ENGLISH,
) -> str:
    """/queue list: every queue with its count and the caller's place; in a rating-range
    queue, each waiting member's rating and current window (Elo); in `said`'s language."""
    _ = said.gettext
    if not queues:
        return _(
            N_("This server has no queues yet; a moderator creates one with /admin queue create.")
        )
    lines = []
    for queue in queues:
        place = queue.place_of(user_id)
        line = _(
            N_("{name} ({kind}) in {channel}: {count}/{size}"),
            name=f"**{shown_name(queue.name)}**",
            kind=queue_kind(queue, said),
            channel=f"<#{queue.settings.channel_id}>",
            count=len(queue.waiting),
            size=queue.settings.size,
        )
        if place is not None:
            line += " · " + _(N_("you are {place}."), place=place)
        lines.append(line)
        if queue.queue_id in windows:
            lines.append("  " + _(N_("{range}; windows now:"), range=range_text(queue, said)))
            lines += [window_line(w, said) for w in windows[queue.queue_id]]
    text = whole_lines(lines, CONTENT_LIMIT - 2, "")
    return text if len(text) == len("\n".join(lines)) else f"{text}\n…"
