"""/admin …: moderator commands (Manage Server), checked by Discord and again by the bot."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import AdminCommand, LadderBot
from bot.app.embeds import (
    board_path,
    evaluation_embed,
    leaderboard_embed,
    match_embed,
    match_path,
    match_stored,
    season_started,
    settings_embed,
    web_address_note,
)
from bot.app.members import actor, guild_of, is_moderator, refuse_unpostable
from bot.app.options import MatchId, choices
from bot.app.replies import defer, member_words, note_stored
from bot.app.uploads import send_file
from bot.config import CONFIRM_MODES, LANGUAGE_SETTINGS, VARIANTS
from bot.present.language import N_
from bot.present.words import recompute_text, replayed_text, settings_changed
from bot.ratings.evaluation import DEFAULT_LAST
from bot.services.evaluation import MAX_LAST


class NotModerator(app_commands.CheckFailure):
    """Someone without Manage Server reached an /admin command (e.g. re-granted by a role)."""


def check_moderator(interaction: discord.Interaction[Any]) -> bool:
    """Server owners can re-grant /admin to any role: the permission is checked here too."""
    if not is_moderator(interaction):
        raise NotModerator(
            member_words(interaction).gettext(
                N_("Only moderators (Manage Server permission) can use /admin commands.")
            )
        )
    return True


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class Admin(commands.GroupCog, group_name="admin", group_description="Moderator commands"):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot
        self.add(bot.admin_commands)  # those of the cogs loaded before this one

    def add(self, added: Iterable[AdminCommand]) -> None:
        group = self.app_command
        assert group is not None  # a GroupCog's group
        for command in added:
            group.add_command(command)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return check_moderator(interaction)

    @app_commands.command(name="void", description="Void a match and replay the matches after it")
    @app_commands.describe(id="The match number", reason="Why it is voided (shown on the match)")
    async def void(
        self, interaction: discord.Interaction[LadderBot], id: MatchId, reason: str | None = None
    ) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction)
        result = await self.bot.services.matches.void(guild_id, actor(interaction), id, reason)
        note_stored(interaction, match_stored(result.match, member_words(interaction)))
        said = await self.bot.public_words(guild_id)
        await interaction.edit_original_response(
            content=said.gettext(
                N_("Match #{number} is void; {replayed}."),
                number=id,
                replayed=replayed_text(result.replayed, said),
            ),
            embed=match_embed(
                result.match, await self.bot.web_page(guild_id, match_path(result.match)), said
            ),
        )

    @app_commands.command(
        name="settings", description="Show or change this server's ladder settings"
    )
    @app_commands.describe(
        t="Spread of the predicted outcome (default 120)",
        game_mult="Points per minute, also the per-minute cap (default 2)",
        max_game_length="Minutes that count at most (default 20)",
        initial_rating="Rating of a member's first match (default 500)",
        variant="Performance rating shown by default (default p8)",
        confirm="Who must confirm a report: an opponent, or nobody",
        auto_confirm_hours="Pending matches are applied after this many hours (default 24)",
        min_games="Fewest applied matches to appear on leaderboards (default 1)",
        provisional_games="Members with fewer applied matches are marked provisional (default 5)",
        inactive_days="Days without a match after which a member is hidden (0 = off, default)",
        rank_margin="Points below a rank role's min_rating a member may fall and keep it (25)",
        no_show_minutes="Minutes a member who missed a queue's ready check cannot queue (0 = off)",
        lobby_hours="Hours after which a queue lobby with no result is cancelled (default 3)",
        room_grace_seconds="Seconds a closed lobby's room stays before it is deleted (default 120)",
        web="Show this server's standings on the web pages and API (default off; /admin web)",
        language="Language of the bot's public messages (default auto: the server's)",
    )
    @app_commands.choices(
        variant=choices(VARIANTS),
        confirm=choices(CONFIRM_MODES),
        language=choices(LANGUAGE_SETTINGS),
    )
    async def settings(
        self,
        interaction: discord.Interaction[LadderBot],
        t: float | None = None,
        game_mult: float | None = None,
        max_game_length: float | None = None,
        initial_rating: float | None = None,
        variant: app_commands.Choice[str] | None = None,
        confirm: app_commands.Choice[str] | None = None,
        auto_confirm_hours: float | None = None,
        min_games: int | None = None,
        provisional_games: int | None = None,
        inactive_days: int | None = None,
        rank_margin: float | None = None,
        no_show_minutes: int | None = None,
        lobby_hours: float | None = None,
        room_grace_seconds: int | None = None,
        web: bool | None = None,
        language: app_commands.Choice[str] | None = None,
    ) -> None:
        guild_id = guild_of(interaction).id
        given: dict[str, object] = {
            "t": t,
            "game_mult": game_mult,
            "max_game_length": max_game_length,
            "initial_rating": initial_rating,
            "variant": variant.value if variant else None,
            "confirm": confirm.value if confirm else None,
            "auto_confirm_hours": auto_confirm_hours,
            "min_games": min_games,
            "provisional_games": provisional_games,
            "inactive_days": inactive_days,
            "rank_margin": rank_margin,
            "no_show_minutes": no_show_minutes,
            "lobby_hours": lobby_hours,
            "room_grace_seconds": room_grace_seconds,
            "web": web,
            "language": language.value if language else None,
        }
        changes = {name: value for name, value in given.items() if value is not None}
        if not changes:
            settings = await self.bot.services.settings.current(guild_id)
            shown = settings_embed(settings, said=member_words(interaction))
            await interaction.response.send_message(embed=shown, ephemeral=True)
            return
        await defer(interaction)
        result = await self.bot.services.settings.change(guild_id, actor(interaction), changes)
        changed = {name: getattr(result.settings, name) for name in changes}
        said = await self.bot.public_words(guild_id)  # the language as it is now set
        note = settings_changed(changed, result.replayed, said)
        note_stored(interaction, note + " " + said.gettext(N_("/admin settings shows them.")))
        await interaction.edit_original_response(embed=settings_embed(result.settings, note, said))

    @app_commands.command(
        name="channel", description="Keep a live leaderboard message in this channel"
    )
    @app_commands.describe(channel="The text channel for the live leaderboard")
    async def channel(
        self, interaction: discord.Interaction[LadderBot], channel: discord.TextChannel
    ) -> None:
        guild = guild_of(interaction)
        guild_id = guild.id
        refuse_unpostable(guild, channel, "/admin channel", embeds=True)
        await defer(interaction, ephemeral=True)
        await self.bot.services.standings.set_live_channel(guild_id, actor(interaction), channel.id)
        said = member_words(interaction)
        note_stored(
            interaction,
            said.gettext(
                N_("The live leaderboard channel is now {channel}."), channel=channel.mention
            ),
        )
        await interaction.edit_original_response(
            content=said.gettext(
                N_("The live leaderboard is now in {channel}; it follows every match."),
                channel=channel.mention,
            )
        )

    @app_commands.command(name="post", description="Post a leaderboard snapshot here now")
    async def post(self, interaction: discord.Interaction[LadderBot]) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction)
        page = await self.bot.services.standings.leaderboard(guild_id)
        url = await self.bot.web_page(guild_id, board_path(page))
        said = await self.bot.public_words(guild_id)
        await interaction.edit_original_response(embed=leaderboard_embed(page, url=url, said=said))

    @app_commands.command(name="web", description="This server's address on the web pages")
    async def web(self, interaction: discord.Interaction[LadderBot]) -> None:
        guild_id = guild_of(interaction).id
        settings = await self.bot.services.settings.current(guild_id)
        await interaction.response.send_message(
            web_address_note(
                self.bot.config.web, guild_id, settings.web, member_words(interaction)
            ),
            ephemeral=True,
        )

    @app_commands.command(name="recompute", description="Replay every match of this server")
    async def recompute(self, interaction: discord.Interaction[LadderBot]) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction, ephemeral=True)
        replayed = await self.bot.services.settings.recompute(guild_id, actor(interaction))
        outcome = recompute_text(replayed, member_words(interaction))
        note_stored(interaction, outcome)
        await interaction.edit_original_response(content=outcome)

    @app_commands.command(
        name="evaluate", description="How well each rating predicted this server's matches"
    )
    @app_commands.describe(
        last="How many of the latest matches to predict (default 5,000)",
        tune="Also try other ladder constants t and game_mult (changes nothing)",
    )
    async def evaluate(
        self,
        interaction: discord.Interaction[LadderBot],
        last: app_commands.Range[int, 1, MAX_LAST] = DEFAULT_LAST,
        tune: bool = False,
    ) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction, ephemeral=True)
        found = await self.bot.services.evaluation.evaluate(guild_id, last, tune=tune)
        await interaction.edit_original_response(
            embed=evaluation_embed(found, member_words(interaction))
        )

    season = app_commands.Group(name="season", description="Seasons of the ladder")

    @season.command(name="start", description="Close the current season and start a new one")
    @app_commands.describe(
        name="The new season's name (1 to 32 characters)",
        carry="Share of each rating's distance to the initial rating kept, 0 to 1 (default 0)",
    )
    async def season_start(
        self,
        interaction: discord.Interaction[LadderBot],
        name: str,
        carry: app_commands.Range[float, 0.0, 1.0] = 0.0,
    ) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction)
        started = await self.bot.services.seasons.start(guild_id, actor(interaction), name, carry)
        note = season_started(started, await self.bot.public_words(guild_id))
        note_stored(interaction, note)
        await interaction.edit_original_response(content=note)

    @app_commands.command(name="export", description="Every match of this server as a CSV file")
    async def export(self, interaction: discord.Interaction[LadderBot]) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction, ephemeral=True)
        text = await self.bot.services.transfers.export_csv(guild_id)
        said = member_words(interaction)
        await send_file(
            interaction,
            text.encode("utf-8"),
            f"matches-{guild_id}.csv",
            said.gettext(N_("Every match:")),
            f"ladderbot export --guild {guild_id} > matches.csv",
            said,
        )


def add_admin_commands(bot: LadderBot, *added: AdminCommand) -> None:
    """Put a cog's commands under /admin, whichever of the two cogs loads first (the Admin
    cog adds the ones given before it loaded)."""
    bot.admin_commands.extend(added)
    admin = bot.get_cog("Admin")
    if isinstance(admin, Admin):
        admin.add(added)


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Admin(bot))
