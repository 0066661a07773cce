"""The invite link (SPEC 6): the scopes and the permissions the bot's features need, in one
place, so the link the bot logs at start and the one the docs give are the same."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import discord

INVITE_SCOPES: Final = ("bot", "applications.commands")
FEATURE_PERMISSIONS: Final[Mapping[str, discord.Permissions]] = {
    "replies, live leaderboards, match and queue messages": discord.Permissions(
        view_channel=True, send_messages=True, embed_links=True, read_message_history=True
    ),
    "rating charts, /admin export and /history files": discord.Permissions(attach_files=True),
    "rank roles": discord.Permissions(manage_roles=True),
    "match rooms (a voice channel per lobby, players moved into it)": discord.Permissions(
        manage_channels=True, connect=True, move_members=True
    ),
}
"""Why each permission is asked for: a feature whose permission is missing fails alone."""


def invite_permissions() -> discord.Permissions:
    """Every permission of FEATURE_PERMISSIONS, and nothing else."""
    permissions = discord.Permissions.none()
    for needed in FEATURE_PERMISSIONS.values():
        permissions |= needed
    return permissions


def invite_link(application_id: int) -> str:
    """The OAuth2 link a server admin opens to add the bot with its permissions."""
    return discord.utils.oauth_url(
        application_id, permissions=invite_permissions(), scopes=INVITE_SCOPES
    )
