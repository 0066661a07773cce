"""Buttons: Confirm/Dispute on a pending match (persistent), previous/next on a leaderboard."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Literal

import discord

from bot.app.embeds import leaderboard_embed, match_embed
from bot.app.members import actor, guild_of
from bot.app.replies import answer_error
from bot.services import LeaderboardPage, Match

if TYPE_CHECKING:
    from bot.app.bot import LadderBot

log = logging.getLogger(__name__)

MatchAction = Literal["confirm", "dispute"]
STATUS_ACTIONS: dict[str, tuple[MatchAction, ...]] = {
    "pending": ("confirm", "dispute"),
    "disputed": ("confirm",),
}


class MatchButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"ladderbot:(?P<action>confirm|dispute):(?P<match_id>\d+)",
):
    """Confirm or Dispute of one match; the match id lives in the custom id, so the button
    works on any message after any restart (registered with Bot.add_dynamic_items)."""

    def __init__(self, action: MatchAction, match_id: int) -> None:
        confirm = action == "confirm"
        super().__init__(
            discord.ui.Button(
                label="Confirm" if confirm else "Dispute",
                style=discord.ButtonStyle.success if confirm else discord.ButtonStyle.danger,
                custom_id=f"ladderbot:{action}:{match_id}",
            )
        )
        self.action: MatchAction = action
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> MatchButton:
        action: MatchAction = "confirm" if match["action"] == "confirm" else "dispute"
        return cls(action, int(match["match_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await self._act(interaction)
        except Exception as error:  # every failure gets an answer (views have no tree.on_error)
            await answer_error(interaction, error)

    async def _act(self, interaction: discord.Interaction[Any]) -> None:
        bot: LadderBot = interaction.client
        guild_id = guild_of(interaction).id
        if self.action == "confirm":
            result = await bot.ladder.confirm(guild_id, actor(interaction), self.match_id)
            if not result.applied_now:
                await interaction.response.send_message(
                    f"Match #{self.match_id} was already applied; nothing changed.", ephemeral=True
                )
                return
            bot.live.touch(guild_id)
            match = result.match
        else:
            match = await bot.ladder.dispute(guild_id, actor(interaction), self.match_id)
        await interaction.response.edit_message(embed=match_embed(match), view=match_view(match))


def match_view(match: Match) -> discord.ui.View | None:
    """The buttons a match message carries in its state: both while pending, Confirm while
    disputed (for moderators), none once applied or void."""
    actions = STATUS_ACTIONS.get(match.status, ())
    if not actions:
        return None
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(MatchButton(action, match.id))
    return view


async def refresh_match_message(bot: LadderBot, match: Match) -> None:
    """Bring a pending match's message up to date after it was decided elsewhere."""
    if match.channel_id is None or match.message_id is None:
        return
    message = bot.get_partial_messageable(match.channel_id).get_partial_message(match.message_id)
    try:
        await message.edit(embed=match_embed(match), view=match_view(match))
    except discord.HTTPException as error:
        log.info("could not update the message of match %s: %s", match.id, error)


class LeaderboardPager(discord.ui.View):
    """Previous/next on a leaderboard page; only the member who asked may turn its pages."""

    def __init__(self, bot: LadderBot, owner_id: int, page: LeaderboardPage) -> None:
        super().__init__(timeout=600)
        self.bot = bot
        self.owner_id = owner_id
        self.page = page
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.previous_page.disabled = self.page.page <= 1
        self.next_page.disabled = self.page.page >= self.page.pages

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if interaction.user.id != self.owner_id:
            await interaction.response.send_message(
                "Only the member who asked for this leaderboard can turn its pages: "
                "use /leaderboard yourself.",
                ephemeral=True,
            )
            return False
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any], /
    ) -> None:
        await answer_error(interaction, error)

    async def _turn(self, interaction: discord.Interaction[Any], step: int) -> None:
        guild_id = guild_of(interaction).id
        self.page = await self.bot.ladder.leaderboard(
            guild_id, by=self.page.by, page=self.page.page + step
        )
        self._update_buttons()
        await interaction.response.edit_message(embed=leaderboard_embed(self.page), view=self)

    @discord.ui.button(label="Previous", style=discord.ButtonStyle.secondary)
    async def previous_page(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[LeaderboardPager]
    ) -> None:
        await self._turn(interaction, -1)

    @discord.ui.button(label="Next", style=discord.ButtonStyle.secondary)
    async def next_page(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[LeaderboardPager]
    ) -> None:
        await self._turn(interaction, +1)
