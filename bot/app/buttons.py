"""Buttons: Confirm/Dispute on a pending match, previous/next/my rank on a leaderboard and
previous/next on a match list (all persistent)."""

from __future__ import annotations

import logging
import re
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Literal, cast

import discord

from bot.app.embeds import (
    board_path,
    leaderboard_embed,
    match_embed,
    match_page_embed,
    match_path,
    match_stored,
)
from bot.app.members import actor, guild_of
from bot.app.replies import answer_error, member_words, note_stored
from bot.present.language import ENGLISH, N_, Words
from bot.services import Match
from bot.services.match_rules import opponents_to_ask
from bot.services.matches import MatchPage
from bot.services.standings import LeaderboardPage

if TYPE_CHECKING:
    from bot.app.bot import LadderBot

log = logging.getLogger(__name__)

MatchAction = Literal["confirm", "dispute", "cancel"]
PageLabel = Literal["prev", "next", "mine"]
PAGE_LABELS: dict[PageLabel, str] = {
    "prev": N_("Previous"),
    "next": N_("Next"),
    "mine": N_("My rank"),
}
MATCHES_TOPIC = "matches"
STATUS_ACTIONS: dict[str, tuple[MatchAction, ...]] = {
    "pending": ("confirm", "dispute", "cancel"),
    "disputed": ("confirm", "cancel"),
}
BUTTON_LOOKS: dict[MatchAction, tuple[str, discord.ButtonStyle]] = {
    "confirm": (N_("Confirm"), discord.ButtonStyle.success),
    "dispute": (N_("Dispute"), discord.ButtonStyle.danger),
    "cancel": (N_("Cancel"), discord.ButtonStyle.secondary),
}


class MatchButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"ladderbot:(?P<action>confirm|dispute|cancel):(?P<match_id>\d+)",
):
    """Confirm, Dispute or Cancel of one match; the match id lives in the custom id, so the
    button works on any message after any restart (registered with Bot.add_dynamic_items)."""

    def __init__(self, action: MatchAction, match_id: int, said: Words = ENGLISH) -> None:
        label, style = BUTTON_LOOKS[action]
        super().__init__(
            discord.ui.Button(
                label=said.gettext(label),
                style=style,
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
        return cls(cast(MatchAction, match["action"]), int(match["match_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await self._act(interaction)
        except Exception as error:  # every failure gets an answer (views have no tree.on_error)
            await answer_error(interaction, error)

    async def _act(self, interaction: discord.Interaction[Any]) -> None:
        bot: LadderBot = interaction.client
        ANSWERED_IN_PLACE.set(self.match_id)  # this interaction's own answer shows the match
        guild_id = guild_of(interaction).id
        if self.action == "confirm":
            result = await bot.services.matches.confirm(guild_id, actor(interaction), self.match_id)
            if not result.applied_now:
                await interaction.response.send_message(
                    already_applied(self.match_id, member_words(interaction)), ephemeral=True
                )
                return
            match = result.match
        elif self.action == "dispute":
            match = await bot.services.matches.dispute(guild_id, actor(interaction), self.match_id)
        else:
            match = await bot.services.matches.cancel(guild_id, actor(interaction), self.match_id)
        note_stored(interaction, match_stored(match, member_words(interaction)))
        url = await bot.web_page(guild_id, match_path(match))
        said = await bot.public_words(guild_id)
        await interaction.response.edit_message(
            embed=match_embed(match, url, said), view=match_view(match, said)
        )


def already_applied(match_id: int, said: Words = ENGLISH) -> str:
    """The answer to a second confirmation (a double click, a late /match confirm)."""
    return said.gettext(
        N_("Match #{number} was already applied; nothing changed."), number=match_id
    )


def match_view(match: Match, said: Words = ENGLISH) -> discord.ui.View | None:
    """The buttons a match message carries in its state: all three while pending, Confirm
    (for moderators) and Cancel while disputed, none once applied or void."""
    actions = STATUS_ACTIONS.get(match.status, ())
    if not actions:
        return None
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(MatchButton(action, match.id, said))
    return view


async def answer_recorded(
    interaction: discord.Interaction[LadderBot], guild_id: int, match: Match, lead: str | None
) -> None:
    """Answer a recorded match (/report's and a queue lobby's result) with its message: the
    lead line, and while pending the opponents asked to confirm and the Confirm/Dispute
    buttons (SPEC 4); a pending match's message is remembered so that a confirmation
    elsewhere can update it."""
    note_stored(interaction, match_stored(match, member_words(interaction)))
    said = await interaction.client.public_words(guild_id)
    content = lead
    if match.status == "pending":
        asked = opponents_to_ask(interaction.user.id, match.participants)
        ask = " ".join(f"<@{user_id}>" for user_id in asked)
        ask = said.gettext(
            N_("{members} — confirm or dispute this result with the buttons below."),
            members=ask,
        )
        content = ask if lead is None else f"{lead} {ask}"
    url = await interaction.client.web_page(guild_id, match_path(match))
    response = await interaction.response.send_message(
        content,
        embed=match_embed(match, url, said),
        view=match_view(match, said) or discord.utils.MISSING,
        allowed_mentions=discord.AllowedMentions(users=True),
    )
    channel_id, message_id = interaction.channel_id, response.message_id
    if match.status == "pending" and channel_id is not None and message_id is not None:
        await interaction.client.services.matches.set_match_message(
            guild_id, match.id, channel_id, message_id
        )


ANSWERED_IN_PLACE: ContextVar[int | None] = ContextVar("answered_in_place", default=None)
"""The match whose own message the interaction under way updates itself (a click on one of
its buttons); the changes it makes need no second edit. Listeners run in tasks that copy the
context of the code that made the change, so they see it."""


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"ladderbot:page:(?P<owner>\d+):(?P<topic>[a-z0-9]+(?:-\d+)?):(?P<page>\d+)"
    r":(?P<label>prev|next|mine)",
):
    """Previous, next or "my rank" on a leaderboard or match-list message. The custom id
    holds who asked, what is paged (a leaderboard measure; `matches`, or `matches-<user id>`
    for one member's) and the page it leads to, so paging needs no memory and survives
    restarts. Only the member who asked may turn the pages; "my rank" shows anyone else
    their own page privately."""

    def __init__(
        self,
        owner_id: int,
        topic: str,
        page: int,
        label: PageLabel,
        disabled: bool,
        said: Words = ENGLISH,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=said.gettext(PAGE_LABELS[label]),
                style=discord.ButtonStyle.primary
                if label == "mine"
                else discord.ButtonStyle.secondary,
                custom_id=f"ladderbot:page:{owner_id}:{topic}:{page}:{label}",
                disabled=disabled,
            )
        )
        self.owner_id = owner_id
        self.topic = topic
        self.page = page
        self.kind: PageLabel = label

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> PageButton:
        label = cast(PageLabel, match["label"])  # the template allows only the three
        return cls(int(match["owner"]), match["topic"], int(match["page"]), label, False)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if interaction.user.id != self.owner_id and self.kind != "mine":
            command = "/match list" if self.topic.startswith(MATCHES_TOPIC) else "/leaderboard"
            await interaction.response.send_message(
                member_words(interaction).gettext(
                    N_(
                        "Only the member who asked for this list can turn its pages: use "
                        "{command} yourself."
                    ),
                    command=command,
                ),
                ephemeral=True,
            )
            return False
        return True

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await self._turn(interaction)
        except Exception as error:  # every failure gets an answer (views have no tree.on_error)
            await answer_error(interaction, error)

    async def _turn(self, interaction: discord.Interaction[Any]) -> None:
        bot: LadderBot = interaction.client
        guild_id = guild_of(interaction).id
        if self.topic.startswith(MATCHES_TOPIC):
            _, _, member = self.topic.partition("-")
            found = await bot.services.matches.page(
                guild_id, int(member) if member else None, self.page
            )
            said = await bot.public_words(guild_id)
            embed = match_page_embed(found, said)
            view = match_page_view(self.owner_id, found, said)
        elif self.kind == "mine":
            mine = await bot.services.standings.page_of(guild_id, self.topic, interaction.user.id)
            if mine is None:
                text = not_ranked(self.topic, member_words(interaction))
                await interaction.response.send_message(text, ephemeral=True)
                return
            url = await bot.web_page(guild_id, board_path(mine))
            if interaction.user.id != self.owner_id:
                said = member_words(interaction)
                await interaction.response.send_message(
                    embed=leaderboard_embed(
                        mine, highlight=interaction.user.id, url=url, said=said
                    ),
                    ephemeral=True,
                )
                return
            said = await bot.public_words(guild_id)
            embed = leaderboard_embed(mine, highlight=self.owner_id, url=url, said=said)
            view = leaderboard_view(self.owner_id, mine, said)
        else:
            board = await bot.services.standings.leaderboard(guild_id, self.topic, self.page)
            url = await bot.web_page(guild_id, board_path(board))
            said = await bot.public_words(guild_id)
            embed = leaderboard_embed(board, url=url, said=said)
            view = leaderboard_view(self.owner_id, board, said)
        await interaction.response.edit_message(embed=embed, view=view)


def not_ranked(by: str, said: Words = ENGLISH) -> str:
    return said.gettext(
        N_(
            "You are not on the {measure} leaderboard: it lists members in the ladder with "
            "at least the server's min_games applied matches."
        ),
        measure=by,
    )


def _pager(owner_id: int, topic: str, page: int, pages: int, said: Words) -> discord.ui.View:
    """Previous/next buttons, disabled at either end."""
    view = discord.ui.View(timeout=None)
    view.add_item(PageButton(owner_id, topic, page - 1, "prev", page <= 1, said))
    view.add_item(PageButton(owner_id, topic, page + 1, "next", page >= pages, said))
    return view


def leaderboard_view(
    owner_id: int, page: LeaderboardPage, said: Words = ENGLISH
) -> discord.ui.View:
    """Previous/next and "my rank" for a leaderboard page."""
    view = _pager(owner_id, page.by, page.page, page.pages, said)
    view.add_item(PageButton(owner_id, page.by, 0, "mine", False, said))
    return view


def match_page_view(owner_id: int, page: MatchPage, said: Words = ENGLISH) -> discord.ui.View:
    topic = MATCHES_TOPIC if page.user_id is None else f"{MATCHES_TOPIC}-{page.user_id}"
    return _pager(owner_id, topic, page.page, page.pages, said)
