"""`ladderbot webhook add|remove|list|test --guild ID …` (SPEC 14): the command line writes
the outbox only; the bot process that owns the guild delivers (bot.services.delivery)."""

from __future__ import annotations

import argparse
from typing import Any

from bot.cli.common import (
    CLI_ACTOR,
    id_argument,
    on_the_database,
    print_json,
    print_lines,
    with_services,
)
from bot.cli.parsing import Parser
from bot.present.lines import webhook_added_lines, webhook_line
from bot.services import Services
from bot.services.shapes import webhook_object


def run_webhook(arguments: argparse.Namespace, streams: Any) -> int:
    guild_id, action = arguments.guild, arguments.webhook_command

    async def act(services: Services) -> list[str]:
        webhooks = services.webhooks
        if action == "add":
            added = await webhooks.add(guild_id, CLI_ACTOR, arguments.url, arguments.events)
            return webhook_added_lines(added)
        if action == "remove":
            removed = await webhooks.remove(guild_id, CLI_ACTOR, arguments.id)
            return [
                f"webhook #{removed.webhook_id} ({removed.url}) removed; its waiting events dropped"
            ]
        tested = await webhooks.test(guild_id, CLI_ACTOR, arguments.id)
        return [
            f"a webhook.test event waits for webhook #{tested.webhook_id}; the bot process that "
            "owns this server delivers it (webhook list shows how it went)"
        ]

    if action == "list":
        listed = with_services(arguments, lambda services: services.webhooks.list(guild_id))
        if arguments.json:
            return print_json([webhook_object(webhook) for webhook in listed], streams)
        return print_lines([webhook_line(w) for w in listed] or ["no webhooks"], streams)
    return print_lines(with_services(arguments, act, creates=action == "add"), streams)


_webhook_id = id_argument("webhook id")


def define_add(command: Parser) -> None:
    on_the_database(command, run_webhook)
    command.add_argument("url", metavar="URL", help="https://… address of the receiver")
    command.add_argument("--events", metavar="LIST", help="comma-separated events (default: all)")


def define_by_id(command: Parser) -> None:
    """`remove` and `test`: the webhook's number."""
    on_the_database(command, run_webhook)
    command.add_argument("id", type=_webhook_id, metavar="ID", help="the webhook's number")


def define_list(command: Parser) -> None:
    on_the_database(command, run_webhook)
    command.add_argument("--json", action="store_true", help="one JSON array")
