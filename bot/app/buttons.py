"""Buttons: Confirm/Dispute on a pending match (persistent), previous/next on a leaderboard."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Literal

import discord

from bot.app.embeds import leaderboard_embed, match_embed, match_stored
from bot.app.members import actor, guild_of
from bot.app.replies import answer_error, note_stored
from bot.services import LeaderboardPage, Match

if TYPE_CHECKING:
    from bot.app.bot import LadderBot

log = logging.getLogger(__name__)

MatchAction = Literal["confirm", "dispute"]
PageLabel = Literal["prev", "next"]
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
                    already_applied(self.match_id), ephemeral=True
                )
                return
            bot.live.touch(guild_id)
            match = result.match
        else:
            match = await bot.ladder.dispute(guild_id, actor(interaction), self.match_id)
        note_stored(interaction, match_stored(match))
        await interaction.response.edit_message(embed=match_embed(match), view=match_view(match))


def already_applied(match_id: int) -> str:
    """The answer to a second confirmation (a double click, a late /match confirm)."""
    return f"Match #{match_id} was already applied; nothing changed."


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


async def match_decided_elsewhere(bot: LadderBot, match: Match) -> None:
    """A match was applied or voided away from its message (a command, the auto-confirm
    loop): the guild's live leaderboard follows, and the match's message is brought up to
    date."""
    bot.live.touch(match.guild_id)
    if match.channel_id is None or match.message_id is None:
        return
    message = bot.get_partial_messageable(match.channel_id).get_partial_message(match.message_id)
    try:
        await message.edit(embed=match_embed(match), view=match_view(match))
    except discord.HTTPException as error:
        log.info("could not update the message of match %s: %s", match.id, error)


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"ladderbot:page:(?P<owner>\d+):(?P<by>[a-z0-9]+):(?P<page>\d+):(?P<label>prev|next)",
):
    """Previous or next on a leaderboard message. The custom id holds who asked, the measure
    and the page it leads to, so paging needs no memory and survives restarts; only the
    member who asked may turn the pages."""

    def __init__(self, owner_id: int, by: str, page: int, label: PageLabel, disabled: bool) -> None:
        super().__init__(
            discord.ui.Button(
                label="Previous" if label == "prev" else "Next",
                style=discord.ButtonStyle.secondary,
                custom_id=f"ladderbot:page:{owner_id}:{by}:{page}:{label}",
                disabled=disabled,
            )
        )
        self.owner_id = owner_id
        self.by = by
        self.page = page

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> PageButton:
        label: PageLabel = "prev" if match["label"] == "prev" else "next"
        return cls(int(match["owner"]), match["by"], int(match["page"]), label, False)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if interaction.user.id != self.owner_id:
            await interaction.response.send_message(
                "Only the member who asked for this leaderboard can turn its pages: "
                "use /leaderboard yourself.",
                ephemeral=True,
            )
            return False
        return True

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            bot: LadderBot = interaction.client
            page = await bot.ladder.leaderboard(guild_of(interaction).id, self.by, self.page)
            view = pager_view(self.owner_id, page)
            await interaction.response.edit_message(embed=leaderboard_embed(page), view=view)
        except Exception as error:  # every failure gets an answer (views have no tree.on_error)
            await answer_error(interaction, error)


def pager_view(owner_id: int, page: LeaderboardPage) -> discord.ui.View:
    """Previous/next buttons for a leaderboard page, disabled at either end."""
    view = discord.ui.View(timeout=None)
    view.add_item(PageButton(owner_id, page.by, page.page - 1, "prev", page.page <= 1))
    view.add_item(PageButton(owner_id, page.by, page.page + 1, "next", page.page >= page.pages))
    return view
