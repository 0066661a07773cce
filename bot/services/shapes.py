"""The JSON shapes of matches, lobbies and seasons: what the command line's `--json`
prints, the read API answers (SPEC 11.3) and the webhooks send (SPEC 14), made in one place; and a
webhook as `webhook list --json` prints it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.services.lineup import lineup_text
from bot.services.matchcsv.format import format_time
from bot.services.queue_rules import team_letter
from bot.services.season_rules import SeasonSummary
from bot.storage import Match, MatchEdit
from bot.storage.queues import Lobby
from bot.storage.webhooks import Webhook


def match_object(match: Match, edits: Sequence[MatchEdit] | None = None) -> dict[str, Any]:
    """A match for `--json` (ratings unrounded; `edits` only for a single match)."""
    found: dict[str, Any] = {
        "id": match.id,
        "status": match.status,
        "played_at": format_time(match.played_at),
        "reporter_id": match.reporter_id,
        "import_key": match.import_key,
        "void_reason": match.void_reason,
        "lineup": lineup_text(match.participants),
        "participants": [
            {
                "user_id": p.user_id,
                "guest": p.guest,
                "name": p.name,
                "side": p.side,
                "score": p.score,
                "minutes": p.minutes,
                "rated": p.enabled,
                "outcome": p.outcome,
                "rating_before": p.rating_before,
                "rating_after": p.rating_after,
            }
            for p in match.participants
        ],
    }
    if edits is not None:
        found["edits"] = [
            {
                "edited_at": format_time(edit.edited_at),
                "editor_id": edit.editor_id,
                "old_lineup": edit.old_lineup,
            }
            for edit in edits
        ]
    return found


def _time(moment: float | None) -> str | None:
    return None if moment is None else format_time(moment)


def lobby_object(lobby: Lobby, names: Mapping[int, str]) -> dict[str, Any]:
    """A lobby for `queue list --json` and the webhooks' lobby events (SPEC 10.4, 14)."""
    return {
        "id": lobby.lobby_id,
        "queue_id": lobby.queue_id,
        "queue": lobby.queue_name,
        "state": lobby.state,
        "format": lobby.format,
        "mode": lobby.mode,
        "map": lobby.map,
        "map_pick": lobby.map_pick,
        "map_banned": list(lobby.map_banned),
        "seed": lobby.seed,
        "created_at": format_time(lobby.created_at),
        "ready_deadline": _time(lobby.ready_deadline if lobby.state == "ready" else None),
        "pick_deadline": _time(lobby.pick_deadline if lobby.state == "picking" else None),
        "close_deadline": format_time(lobby.close_deadline),
        "closed_at": _time(lobby.closed_at),
        "match_id": lobby.match_id,
        "players": [
            {
                "user_id": p.user_id,
                "name": names.get(p.user_id, str(p.user_id)),
                "rating": p.rating,
                "ready": p.ready,
                "team": None if p.team is None or lobby.format == "ffa" else team_letter(p.team),
                "captain": p.captain,
                "party": p.party,
            }
            for p in lobby.players
        ],
    }


def season_object(season: SeasonSummary) -> dict[str, Any]:
    """A season for `season list --json` and the web API (times ISO-8601 UTC; the first
    season starts with the log, the current one has not ended)."""
    return {
        "name": season.name,
        "started_at": None if season.started_at is None else format_time(season.started_at),
        "ended_at": None if season.ended_at is None else format_time(season.ended_at),
        "carry": season.carry,
        "members": season.members,
        "current": season.ended_at is None,
    }


def webhook_object(webhook: Webhook) -> dict[str, Any]:
    """A webhook for `webhook list --json`: never its secret."""
    return {
        "id": webhook.webhook_id,
        "url": webhook.url,
        "events": list(webhook.events),
        "created_at": format_time(webhook.created_at),
        "last_status": webhook.last_status,
        "last_at": _time(webhook.last_at),
        "waiting": webhook.waiting,
    }
