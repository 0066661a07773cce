"""Who is acting and who is named: Discord users to the services' Actor and MemberInfo."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

import discord

from bot.present.language import N_
from bot.services import Actor, MemberInfo, UserError


def guild_of(interaction: discord.Interaction[Any]) -> discord.Guild:
    """The server the command runs in; ladders live in servers only."""
    if interaction.guild is None:
        raise UserError(N_("Use this command in a server: ladders belong to servers, not to DMs."))
    return interaction.guild


def is_moderator(interaction: discord.Interaction[Any]) -> bool:
    """A moderator has Manage Server in the channel the command was used in."""
    return interaction.permissions.manage_guild


def actor(interaction: discord.Interaction[Any]) -> Actor:
    return Actor(user_id=interaction.user.id, is_moderator=is_moderator(interaction))


MARKDOWN_SYMBOL: Final = re.compile(r"([\\*_~`|>#\[\]\-])")
"""The characters Discord's Markdown may read as markup; a backslash before one shows it as
it is (discord.utils.escape_markdown leaves a backslash before `]` unescaped)."""


def shown_name(name: str) -> str:
    """A name as a message shows it: Markdown escaped, and a zero-width space after each
    `@` and `<`, so it reads literally and can never become a mention (@everyone, <@id>),
    a channel link or a timestamp."""
    escaped = MARKDOWN_SYMBOL.sub(r"\\\1", name)
    return escaped.replace("@", "@\u200b").replace("<", "<\u200b")


def member_info(user: discord.abc.User) -> MemberInfo:
    return MemberInfo(user_id=user.id, name=user.display_name, is_bot=user.bot)


async def resolve_members(guild: discord.Guild, user_ids: Iterable[int]) -> list[MemberInfo]:
    """Names and bot flags of the named users, from the member cache or the API.

    A user who is not in the server is refused: their report could never be confirmed.
    """
    infos = []
    for user_id in dict.fromkeys(user_ids):
        member = guild.get_member(user_id)
        if member is None:
            try:
                member = await guild.fetch_member(user_id)
            except discord.NotFound:
                raise UserError(
                    N_("{member} is not a member of this server."), member=f"<@{user_id}>"
                ) from None
        infos.append(member_info(member))
    return infos


def refuse_unpostable(
    guild: discord.Guild, channel: discord.TextChannel, command: str, *, embeds: bool = False
) -> None:
    """UserError when the bot cannot post in `channel` (with `embeds`: embeds too), naming
    the permissions to give and the command to run again once they are."""
    allowed = channel.permissions_for(guild.me)
    if embeds and not (allowed.view_channel and allowed.send_messages and allowed.embed_links):
        raise UserError(
            N_(
                "I cannot post in {channel}: give me View Channel, Send Messages and "
                "Embed Links there, then run {command} again."
            ),
            channel=channel.mention,
            command=command,
        )
    if not (allowed.view_channel and allowed.send_messages):
        raise UserError(
            N_(
                "I cannot post in {channel}: give me View Channel and Send Messages there, "
                "then run {command} again."
            ),
            channel=channel.mention,
            command=command,
        )
