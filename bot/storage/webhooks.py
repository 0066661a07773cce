"""Webhooks and their outbox (SPEC 14): the webhooks a guild registered, and the deliveries
still to make, one row per event and webhook, in the order they were written.

A removed webhook keeps its row (`removed_at` set) so that its number is never given again in
its guild; its waiting deliveries are deleted with it. An outbox row holds the whole request
body, written in the transaction of the change it reports, so every attempt sends the same
bytes (and the same delivery id).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.storage.engine import Ahead, Row, Session


@dataclass(frozen=True, slots=True)
class Webhook:
    guild_id: int
    webhook_id: int
    url: str
    secret: str
    events: tuple[str, ...]
    created_at: float
    last_status: str | None
    """The last attempt's outcome: an HTTP status ("200"), or what went wrong ("timeout")."""
    last_at: float | None
    waiting: int
    """Deliveries not made yet."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """One event on its way to one webhook."""

    seq: int
    guild_id: int
    webhook_id: int
    delivery_id: str
    event: str
    body: str
    created_at: float
    attempts: int
    next_at: float


@dataclass(frozen=True, slots=True)
class NewDelivery:
    webhook_id: int
    delivery_id: str
    event: str
    body: str


_WEBHOOK_COLUMNS = (
    "w.guild_id, w.webhook_id, w.url, w.secret, w.events, w.created_at, w.last_status, "
    "w.last_at, (SELECT count(*) FROM webhook_outbox o WHERE o.guild_id = w.guild_id "
    "AND o.webhook_id = w.webhook_id) AS waiting"
)
_DELIVERY_COLUMNS = (
    "seq, guild_id, webhook_id, delivery_id, event, body, created_at, attempts, next_at"
)


def _webhook(row: Row) -> Webhook:
    return Webhook(
        int(row["guild_id"]),
        int(row["webhook_id"]),
        row["url"],
        row["secret"],
        tuple(row["events"].split(",")),
        float(row["created_at"]),
        row["last_status"],
        row["last_at"],
        int(row["waiting"]),
    )


def _delivery(row: Row) -> Delivery:
    return Delivery(
        int(row["seq"]),
        int(row["guild_id"]),
        int(row["webhook_id"]),
        row["delivery_id"],
        row["event"],
        row["body"],
        float(row["created_at"]),
        int(row["attempts"]),
        float(row["next_at"]),
    )


class WebhookReads:
    _session: Session

    async def webhooks(self, guild_id: int) -> list[Webhook]:
        """The guild's webhooks (not removed), by number."""
        rows = await self._session.all(
            f"SELECT {_WEBHOOK_COLUMNS} FROM webhooks w WHERE w.guild_id = :guild_id "
            "AND w.removed_at IS NULL ORDER BY w.webhook_id",
            {"guild_id": guild_id},
        )
        return [_webhook(row) for row in rows]

    async def webhook(self, guild_id: int, webhook_id: int) -> Webhook | None:
        row = await self._session.one(
            f"SELECT {_WEBHOOK_COLUMNS} FROM webhooks w WHERE w.guild_id = :guild_id "
            "AND w.webhook_id = :webhook_id AND w.removed_at IS NULL",
            {"guild_id": guild_id, "webhook_id": webhook_id},
        )
        return None if row is None else _webhook(row)

    async def delivery_target(self, guild_id: int, webhook_id: int) -> tuple[str, str] | None:
        """The webhook's URL and secret (None: removed), without counting what waits."""
        row = await self._session.one(
            "SELECT url, secret FROM webhooks WHERE guild_id = :guild_id "
            "AND webhook_id = :webhook_id AND removed_at IS NULL",
            {"guild_id": guild_id, "webhook_id": webhook_id},
        )
        return None if row is None else (row["url"], row["secret"])

    def subscribed(self, guild_id: int) -> Ahead[list[tuple[int, tuple[str, ...]]]]:
        """(number, events) of each of the guild's webhooks: who an event goes to, as the
        transaction stands when asked (a read ahead, Session.read_ahead)."""
        rows = self._session.read_ahead(
            "SELECT webhook_id, events FROM webhooks WHERE guild_id = :guild_id "
            "AND removed_at IS NULL ORDER BY webhook_id",
            {"guild_id": guild_id},
        )
        return rows.then(
            lambda found: [
                (int(row["webhook_id"]), tuple(row["events"].split(","))) for row in found
            ]
        )

    async def waiting_webhooks(self, guild_id: int | None = None) -> list[tuple[int, int]]:
        """(guild, webhook) of every webhook (of the guild; None: of every guild) with
        deliveries waiting."""
        if guild_id is None:
            rows = await self._session.all(
                "SELECT DISTINCT guild_id, webhook_id FROM webhook_outbox "
                "ORDER BY guild_id, webhook_id"
            )
        else:
            rows = await self._session.all(
                "SELECT DISTINCT guild_id, webhook_id FROM webhook_outbox "
                "WHERE guild_id = :guild_id ORDER BY webhook_id",
                {"guild_id": guild_id},
            )
        return [(int(row["guild_id"]), int(row["webhook_id"])) for row in rows]

    async def next_deliveries(self, guild_id: int, webhook_id: int, limit: int) -> list[Delivery]:
        """The oldest deliveries waiting for the webhook, oldest first (they go in order)."""
        rows = await self._session.all(
            f"SELECT {_DELIVERY_COLUMNS} FROM webhook_outbox WHERE guild_id = :guild_id "
            "AND webhook_id = :webhook_id ORDER BY seq LIMIT :limit",
            {"guild_id": guild_id, "webhook_id": webhook_id, "limit": limit},
        )
        return [_delivery(row) for row in rows]


class WebhookWrites:
    _session: Session

    async def add_webhook(
        self, guild_id: int, url: str, secret: str, events: Sequence[str], now: float
    ) -> int:
        """A new webhook; its number (never one a removed webhook had)."""
        row = await self._session.one(
            "SELECT coalesce(max(webhook_id), 0) + 1 AS next FROM webhooks "
            "WHERE guild_id = :guild_id",
            {"guild_id": guild_id},
        )
        assert row is not None
        webhook_id = int(row["next"])
        await self._session.run(
            "INSERT INTO webhooks (guild_id, webhook_id, url, secret, events, created_at) "
            "VALUES (:guild_id, :webhook_id, :url, :secret, :events, :now)",
            {
                "guild_id": guild_id,
                "webhook_id": webhook_id,
                "url": url,
                "secret": secret,
                "events": ",".join(events),
                "now": now,
            },
        )
        return webhook_id

    async def remove_webhook(self, guild_id: int, webhook_id: int, now: float) -> None:
        """Mark it removed; its waiting deliveries go."""
        keys = {"guild_id": guild_id, "webhook_id": webhook_id}
        await self._session.run(
            "DELETE FROM webhook_outbox WHERE guild_id = :guild_id AND webhook_id = :webhook_id",
            keys,
        )
        await self._session.run(
            "UPDATE webhooks SET removed_at = :now WHERE guild_id = :guild_id "
            "AND webhook_id = :webhook_id",
            {**keys, "now": now},
        )

    async def add_deliveries(
        self, guild_id: int, deliveries: Sequence[NewDelivery], now: float
    ) -> None:
        """Queue deliveries, in this order after those already waiting."""
        await self._session.run_many(
            "INSERT INTO webhook_outbox (guild_id, webhook_id, delivery_id, event, body, "
            "created_at, next_at) VALUES (:guild_id, :webhook_id, :delivery_id, :event, "
            ":body, :now, :now)",
            [
                {
                    "guild_id": guild_id,
                    "webhook_id": d.webhook_id,
                    "delivery_id": d.delivery_id,
                    "event": d.event,
                    "body": d.body,
                    "now": now,
                }
                for d in deliveries
            ],
        )

    async def deliveries_done(
        self, guild_id: int, webhook_id: int, seqs: Sequence[int], status: str, now: float
    ) -> None:
        """The deliveries were made (or given up): their rows go; the webhook remembers the
        last attempt's outcome."""
        await self._session.run_many(
            "DELETE FROM webhook_outbox WHERE seq = :seq", [{"seq": seq} for seq in seqs]
        )
        await self._note_attempt(guild_id, webhook_id, status, now)

    async def delivery_failed(
        self, delivery: Delivery, status: str, now: float, next_at: float
    ) -> None:
        """An attempt failed: try again at `next_at`."""
        await self._session.run(
            "UPDATE webhook_outbox SET attempts = attempts + 1, next_at = :next_at "
            "WHERE seq = :seq",
            {"seq": delivery.seq, "next_at": next_at},
        )
        await self._note_attempt(delivery.guild_id, delivery.webhook_id, status, now)

    async def _note_attempt(self, guild_id: int, webhook_id: int, status: str, now: float) -> None:
        await self._session.run(
            "UPDATE webhooks SET last_status = :status, last_at = :now "
            "WHERE guild_id = :guild_id AND webhook_id = :webhook_id",
            {
                "status": status,
                "now": now,
                "guild_id": guild_id,
                "webhook_id": webhook_id,
            },
        )
