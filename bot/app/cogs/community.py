"""Rank roles (/admin rank …, SPEC 9.2), the mod log (/admin modlog) and /admin edit (SPEC
9.4). Roles and the mod log follow the change feed (`on_ladder_change`); only the process
owning a guild's shard acts on it. At start, the roles of every owned guild are checked once
(changes made while no bot process ran)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.cogs.admin import add_admin_commands, check_moderator
from bot.app.embeds import add_edits, match_embed, match_path, match_stored
from bot.app.members import actor, guild_of, refuse_unpostable, resolve_members
from bot.app.options import MatchId
from bot.app.replies import CONTENT_LIMIT, defer, member_words, note_stored
from bot.app.roles import RankRoles
from bot.present.language import ENGLISH, N_, Words, refusal_text
from bot.present.words import actor_text, replayed_text, shorten
from bot.services import UserError, parse_lineup
from bot.services.changes import COMMAND_LINE_ID, Change
from bot.services.community import RoleCall
from bot.services.errors import Notice

log = logging.getLogger(__name__)

MODLOG_LINES: Final = {
    "disputed": N_("Match #{match} was disputed by {actor}."),
    "cancelled": N_("Match #{match} was cancelled by {actor}."),
    "voided": N_("Match #{match} was voided by {actor}{detail}."),
    "edited": N_("Match #{match} was edited by {actor}{detail}."),
    "settings": N_("Settings changed by {actor}{detail}."),
    "imported": N_("Matches imported by {actor}{detail}."),
    "season_started": N_("A season was started by {actor}{detail}."),
    "webhook_dropped": N_("Webhooks{detail}."),
    "room_failed": N_("Match rooms{detail}."),
}
"""What the mod log says for each kind of change it reports."""


COMMAND_LINE_LINES: Final = {"applied": N_("Match #{match} was applied by {actor}.")}
"""What the mod log also says of the command line's changes: Discord shows a report or a
confirmation made there in its channel; one made on the command line is seen nowhere else."""


def modlog_line(change: Change, said: Words = ENGLISH) -> str | None:
    """The mod log's line for a change, or None for kinds it does not report; in the
    server's language, its detail too (a stored Notice; text someone typed, a setting's
    value or a detail stored before details were notices shows as it is)."""
    template = MODLOG_LINES.get(change.kind)
    if template is None and change.actor_id == COMMAND_LINE_ID:
        template = COMMAND_LINE_LINES.get(change.kind)
    if template is None:
        return None
    return said.gettext(
        template,
        match=change.match_id,
        actor=said.gettext(actor_text(change.actor_id)),
        detail=(
            said.gettext(N_(": {detail}"), detail=refusal_text(Notice.load(change.detail), said))
            if change.detail
            else ""
        ),
    )


def rank_lines(calls: Sequence[RoleCall], said: Words = ENGLISH) -> str:
    lines = [
        said.gettext(
            N_("{member} gets {role}") if call.add else N_("{member} loses {role}"),
            member=f"<@{call.user_id}>",
            role=f"<@&{call.role_id}>",
        )
        for call in calls
    ]
    return shorten(
        said.gettext(N_("Rank roles: {changes}"), changes="; ".join(lines)), CONTENT_LIMIT
    )


def manage_problem(guild: discord.Guild, role: discord.Role) -> UserError | None:
    """Why the bot cannot give or take `role`, with what to fix; None if it can."""
    me = guild.me
    if not me.guild_permissions.manage_roles:
        return UserError(
            N_(
                "I need the Manage Roles permission to give rank roles: grant it to my role, "
                "then run /admin rank add again."
            )
        )
    if role.managed or role.is_default():
        return UserError(
            N_("{role} is managed by Discord or an integration; pick another role."),
            role=role.mention,
        )
    if role >= me.top_role:
        return UserError(
            N_(
                "{role} is not below my highest role ({mine}): move my role above it in "
                "Server Settings → Roles, then run /admin rank add again."
            ),
            role=role.mention,
            mine=me.top_role.mention,
        )
    return None


class RankCommands(app_commands.Group):
    """/admin rank …"""

    def __init__(self, bot: LadderBot) -> None:
        super().__init__(name="rank", description="Rank roles by ladder rating")
        self.bot = bot
        self.community = bot.services.community

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return check_moderator(interaction)

    @app_commands.command(name="add", description="Give members rated at least min_rating a role")
    @app_commands.describe(role="The rank role", min_rating="Lowest ladder rating that earns it")
    async def add(
        self, interaction: discord.Interaction[LadderBot], role: discord.Role, min_rating: float
    ) -> None:
        guild = guild_of(interaction)
        problem = manage_problem(guild, role)
        if problem is not None:
            raise problem
        await defer(interaction, ephemeral=True)
        roles = await self.community.add_rank_role(
            guild.id, actor(interaction), role.id, min_rating
        )
        said = member_words(interaction)
        rating = said.number(min_rating)
        note_stored(
            interaction,
            said.gettext(
                N_("{role} is a rank role from {rating}."), role=role.mention, rating=rating
            ),
        )
        others = {role_id: rating for role_id, rating in roles.items() if role_id != role.id}
        text = said.gettext(
            N_("{role} is now a rank role from {rating}; members' roles are being updated."),
            role=role.mention,
            rating=rating,
        )
        if others:
            text += "\n" + said.gettext(
                N_("The other rank roles:\n{roles}"), roles=roles_text(others, said)
            )
        await interaction.edit_original_response(content=text)

    @app_commands.command(name="remove", description="Stop using a role as a rank role")
    @app_commands.describe(role="The rank role")
    async def remove(self, interaction: discord.Interaction[LadderBot], role: discord.Role) -> None:
        guild = guild_of(interaction)
        await defer(interaction, ephemeral=True)
        await self.community.remove_rank_role(guild.id, actor(interaction), role.id)
        await interaction.edit_original_response(
            content=member_words(interaction).gettext(
                N_("{role} is no longer a rank role (members who hold it keep it)."),
                role=role.mention,
            )
        )

    @app_commands.command(name="list", description="The rank roles and their ratings")
    async def list(self, interaction: discord.Interaction[LadderBot]) -> None:
        roles = await self.community.rank_roles(guild_of(interaction).id)
        settings = await self.bot.services.settings.current(guild_of(interaction).id)
        said = member_words(interaction)
        await interaction.response.send_message(
            f"{roles_text(roles, said)}\nrank_margin: {said.number(settings.rank_margin)}",
            ephemeral=True,
        )

    @app_commands.command(name="sync", description="Give every member the rank role they earn")
    async def sync(self, interaction: discord.Interaction[LadderBot]) -> None:
        guild_id = guild_of(interaction).id
        await self.community.sync_rank_roles(guild_id, actor(interaction))
        await interaction.response.send_message(
            member_words(interaction).gettext(
                N_(
                    "Every member's rank role is being checked; changes follow within "
                    "Discord's rate limits."
                )
            ),
            ephemeral=True,
        )


def roles_text(roles: dict[int, float], said: Words) -> str:
    if not roles:
        return said.gettext(N_("No rank roles."))
    return shorten(
        "\n".join(
            said.gettext(N_("{role} from {rating}"), role=f"<@&{role_id}>", rating=said.number(low))
            for role_id, low in roles.items()
        ),
        CONTENT_LIMIT - 100,
    )


@app_commands.check(check_moderator)  # commands added to /admin from outside its cog
@app_commands.command(name="modlog", description="Post disputes, voids, edits and more here")
@app_commands.describe(channel="The text channel for the mod log", off="Stop posting the mod log")
async def modlog(
    interaction: discord.Interaction[LadderBot],
    channel: discord.TextChannel | None = None,
    off: bool = False,
) -> None:
    guild = guild_of(interaction)
    community = interaction.client.services.community
    if off == (channel is not None):
        current = await community.modlog_channel(guild.id)
        if current is None:
            raise UserError(N_("give either channel or off:True (the mod log is now off)"))
        raise UserError(
            N_("give either channel or off:True (the mod log is now {channel})"),
            channel=f"<#{current}>",
        )
    if channel is not None:
        refuse_unpostable(guild, channel, "/admin modlog")
    await community.set_modlog_channel(
        guild.id, actor(interaction), None if channel is None else channel.id
    )
    said = member_words(interaction)
    await interaction.response.send_message(
        said.gettext(N_("The mod log is off."))
        if channel is None
        else said.gettext(N_("The mod log is now {channel}."), channel=channel.mention),
        ephemeral=True,
    )


@app_commands.check(check_moderator)  # commands added to /admin from outside its cog
@app_commands.command(name="edit", description="Replace a match's players and scores; replays")
@app_commands.describe(
    id="The match number (pending or applied)",
    lineup="The whole new lineup, as in /report scores: @ann 1200 18, @bob 900 | @cy 1500",
    minutes="Minutes for entries without their own (default: max_game_length)",
)
async def edit(
    interaction: discord.Interaction[LadderBot],
    id: MatchId,
    lineup: str,
    minutes: float | None = None,
) -> None:
    bot = interaction.client
    guild = guild_of(interaction)
    parsed = parse_lineup(lineup)
    ids = [entry.player.user_id for entry in parsed if entry.player.user_id is not None]
    members = await resolve_members(guild, ids)
    await defer(interaction)
    result = await bot.services.matches.edit(
        guild.id, actor(interaction), id, parsed, minutes=minutes, members=members
    )
    note_stored(interaction, match_stored(result.match, member_words(interaction)))
    edits = await bot.services.matches.edits(guild.id, id)
    said = await bot.public_words(guild.id)
    edited = (
        said.gettext(
            N_("Match #{number} was edited; {replayed}."),
            number=id,
            replayed=replayed_text(result.replayed, said),
        )
        if result.replayed
        else said.gettext(N_("Match #{number} was edited."), number=id)
    )
    url = await bot.web_page(guild.id, match_path(result.match))
    await interaction.edit_original_response(
        content=edited,
        embed=add_edits(match_embed(result.match, url, said), edits, said),
    )


class CommunityCog(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot
        self.community = bot.services.community
        self._checked_at_start = False

    async def cog_load(self) -> None:
        self.bot.rank_roles = RankRoles(self.bot, self._rank_changes)

    async def cog_unload(self) -> None:
        await self.bot.rank_roles.close()

    @commands.Cog.listener()
    async def on_ladder_change(self, change: Change) -> None:
        if not self.bot.config.discord.owns_guild(change.guild_id):
            return
        if change.kind == "rank_roles" or change.changes_standings:
            self.bot.rank_roles.touch(
                change.guild_id, None if change.everyone else change.member_ids
            )
        if modlog_line(change) is None:
            return  # a kind the mod log does not report (no settings read for it)
        line = modlog_line(change, await self.bot.public_words(change.guild_id))
        if line is not None:
            await self._post(change.guild_id, line)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Once per start, with the members known: every owned guild's rank roles are
        checked, so changes made while no bot process ran (the command line's) are followed
        too. Members whose roles are right cost nothing."""
        if self._checked_at_start:
            return
        self._checked_at_start = True
        try:
            guild_ids = await self.community.guilds_with_rank_roles()
        except Exception:
            log.exception("could not list the guilds with rank roles")
            return
        for guild_id in guild_ids:
            self.bot.rank_roles.touch(guild_id, None)  # (touch skips guilds of other shards)

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        self.bot.rank_roles.seen(after.guild.id, after.id)

    async def _rank_changes(self, guild_id: int, calls: Sequence[RoleCall]) -> None:
        await self._post(guild_id, rank_lines(calls, await self.bot.public_words(guild_id)))

    async def _post(self, guild_id: int, content: str) -> None:
        try:
            channel_id = await self.community.modlog_channel(guild_id)
            if channel_id is None:
                return
            channel = self.bot.get_channel(channel_id)
            if isinstance(channel, discord.TextChannel):
                await channel.send(shorten(content, CONTENT_LIMIT))
        except Exception:
            log.exception("could not post to the mod log of guild %s", guild_id)


async def setup(bot: LadderBot) -> None:
    add_admin_commands(bot, RankCommands(bot), modlog, edit)
    await bot.add_cog(CommunityCog(bot))
