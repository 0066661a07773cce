"""The Discord bot: the services built once, one cog per feature, persistent buttons.

Every committed change arrives through the change feed (bot.services.feed: this process's at
once, other processes' and the command line's from the change log) as one event,
`ladder_change` (a bot.services.Change); the follow-ups (live boards, rank roles, the mod log,
match and queue messages) listen to it (`on_ladder_change`) and to nothing else; it also wakes
the webhook delivery (bot.services.delivery)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.buttons import MatchButton, PageButton
from bot.app.invite import invite_link
from bot.app.live import LiveBoards
from bot.app.match_messages import MatchMessages
from bot.app.replies import answer_error
from bot.app.roles import RankRoles
from bot.app.translator import CatalogTranslator
from bot.app.webhook_posts import HttpPoster
from bot.config import Config
from bot.present.language import Words, public_language, words
from bot.services import Services
from bot.services.changes import Change
from bot.services.delivery import WebhookDelivery

log = logging.getLogger(__name__)

ANSWERING_TASKS: Final = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch-",
    "discord-ui-dynamic-item-",
)
"""The beginnings of discord.py's names for the tasks that answer commands and buttons."""
LAST_ANSWERS_SECONDS: Final = 10.0
"""How long a stop waits for the answers under way (a deploy's SIGTERM)."""

COG_MODULES = (
    "bot.app.cogs.report",
    "bot.app.cogs.match",
    "bot.app.cogs.rating",
    "bot.app.cogs.leaderboard",
    "bot.app.cogs.history",
    "bot.app.cogs.predict",
    "bot.app.cogs.balance",
    "bot.app.cogs.ladder",
    "bot.app.cogs.admin",
    "bot.app.cogs.seasons",
    "bot.app.cogs.community",
    "bot.app.cogs.names",
    "bot.app.cogs.queues",
    "bot.app.cogs.webhooks",
)


AdminCommand = app_commands.Command[Any, ..., Any] | app_commands.Group
"""A command another cog puts under /admin."""


class LadderBot(commands.Bot):
    """Slash commands only: intents guilds + members (names, bot flags), no message content."""

    live: LiveBoards
    rank_roles: RankRoles

    def __init__(self, config: Config, services: Services, **shards: Any) -> None:
        """The services (their database) are opened and closed by the caller, outside the bot;
        shards are ShardedLadderBot's shard_ids and shard_count."""
        # No voice audio here (match rooms only create channels and move members), so
        # discord.py's start-up warnings that PyNaCl and davey are missing are noise.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        intents = discord.Intents.none()
        intents.guilds = True
        intents.members = True
        intents.voice_states = True  # who is in voice, to move players into their match room
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            **shards,
        )
        self.config = config
        self.services = services
        self.feed = services.change_feed(self.ladder_changed)
        self.webhook_delivery = WebhookDelivery(
            services.context,
            HttpPoster,
            owned=config.discord.owns_guild,
            allow_private=config.webhooks.allow_private,
            resolve=services.webhooks.resolve,
        )
        """Delivers the webhook events of the guilds this process owns (SPEC 14)."""
        self.tree.error(self.on_app_command_error)
        self.announced = False
        self.admin_commands: list[AdminCommand] = []
        """The commands other cogs put under /admin (bot.app.cogs.admin.add_admin_commands)."""

    async def on_ready(self) -> None:
        """One line once connected (SPEC 6): who the bot is, and the link that invites it."""
        if self.announced or self.user is None:
            return
        self.announced = True
        log.info(
            "ready as %s in %d servers; invite it with %s",
            self.user,
            len(self.guilds),
            invite_link(self.application_id or self.user.id),
        )

    def ladder_changed(self, change: Change) -> None:
        """The feed's listener: each committed change becomes one `ladder_change` event, and
        wakes the webhook delivery of a guild this process owns (the change may have
        written events)."""
        if self.config.discord.owns_guild(change.guild_id):
            self.webhook_delivery.wake(change.guild_id)
        self.dispatch("ladder_change", change)

    async def public_words(self, guild_id: int) -> Words:
        """The words of what many see in a guild (SPEC 13): its `language` setting, with
        `auto` the server's preferred locale (English when not shipped)."""
        setting = (await self.services.settings.current(guild_id)).language
        guild = self.get_guild(guild_id)
        return words(public_language(setting, guild.preferred_locale.value if guild else None))

    async def web_page(self, guild_id: int, path: str = "") -> str | None:
        """The address of the guild's web page at `path` (under /g/<guild id>) when [web]
        public_url is set and the guild is shown on the web; else None (SPEC 11.2)."""
        if self.config.web.public_url is None:
            return None
        if not (await self.services.settings.current(guild_id)).web:
            return None
        return self.config.web.guild_address(guild_id) + path

    async def setup_hook(self) -> None:
        """Runs once per start (not on reconnects): cogs, buttons, one command sync."""
        self.live = LiveBoards(self, self.config.leaderboard.edit_seconds)
        self.live.start()
        self.add_listener(self.live.on_ladder_change)
        self.add_listener(MatchMessages(self).on_ladder_change)
        await self.load_commands()
        await self.webhook_delivery.start()
        await self.feed.start()
        await self.sync_commands()

    async def load_commands(self) -> None:
        """The cogs and their persistent buttons: the command tree sync_commands sends (the
        docs' command table is checked against it, tests/test_docs.py)."""
        await self.tree.set_translator(CatalogTranslator())
        for module in COG_MODULES:
            await self.load_extension(module)
        self.add_dynamic_items(MatchButton, PageButton)

    async def sync_commands(self) -> None:
        """Globally, or to the configured guild only (instant, for testing a bot)."""
        target = self.config.discord.sync
        if target == "global":
            synced = await self.tree.sync()
        else:
            guild = discord.Object(int(target))
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        log.info("synced %d commands (%s)", len(synced), target)

    async def close(self) -> None:
        await finish_answers()
        await super().close()
        await self.feed.stop()
        await self.webhook_delivery.stop()
        if hasattr(self, "live"):
            await self.live.close()

    async def on_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await answer_error(interaction, error)


async def finish_answers(timeout: float = LAST_ANSWERS_SECONDS) -> None:
    """A stop lets the commands and buttons under way answer first (for at most `timeout`
    seconds): a member whose change was stored sees its reply, not "The application did not
    respond"."""
    answering = [
        task
        for task in asyncio.all_tasks()
        if task.get_name().startswith(ANSWERING_TASKS) and task is not asyncio.current_task()
    ]
    if answering:
        log.info("stopping: waiting for %d answers under way", len(answering))
        await asyncio.wait(answering, timeout=timeout)


class ShardedLadderBot(LadderBot, commands.AutoShardedBot):
    """The bot on the gateway connections of its shards (SPEC 8.4): Discord sends this process
    the events of the guilds on those shards and no others."""


def create_bot(config: Config, services: Services) -> LadderBot:
    """Always an AutoShardedBot (SPEC 8.4): the shards [discord] names, or, when it names
    none, as many as Discord recommends, all in this process."""
    discord_config = config.discord
    if discord_config.shard_count is None or discord_config.shard_ids is None:
        return ShardedLadderBot(config, services)
    return ShardedLadderBot(
        config,
        services,
        shard_ids=list(discord_config.shard_ids),
        shard_count=discord_config.shard_count,
    )
