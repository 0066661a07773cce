"""The OpenAPI 3.1 document of the read API (SPEC 11.3), served at /api/v1/openapi.json.

tests/web/test_api.py keeps it true: every route of the application is described and
every described one exists, and schemathesis checks real responses against it.
"""

from __future__ import annotations

from typing import Any, Final

from bot.config import VARIANTS
from bot.services.standings import MEASURES
from bot.web.reading import MATCHES_LIMIT, MAX_MATCHES_LIMIT, MAX_PAGE, PAGE_SIZE

MAX_ID: Final = 2**63 - 1


def _up_to(most: int) -> str:
    """A regular expression of the decimal integers from 1 to `most`, without leading zeros
    (the server takes those too)."""
    digits = str(most)
    shorter = [f"[1-9][0-9]{{0,{len(digits) - 2}}}"] if len(digits) > 1 else []
    same = []
    for place, digit in enumerate(digits):
        low = 1 if place == 0 else 0
        if int(digit) > low:
            rest = len(digits) - place - 1
            same.append(f"{digits[:place]}[{low}-{int(digit) - 1}][0-9]{{{rest}}}")
    return "^(?:" + "|".join([*shorter, *same, digits]) + ")$"


ID_PATTERN: Final = _up_to(MAX_ID)
Schema = dict[str, Any]


def _nullable(kind: str) -> Schema:
    return {"type": [kind, "null"]}


def _object(properties: dict[str, Schema], *, extra: bool = True) -> Schema:
    return {
        "type": "object",
        "required": list(properties),
        "properties": properties,
        "additionalProperties": extra,
    }


def _ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


ID: Final[Schema] = {"type": "integer", "format": "int64", "minimum": 1, "maximum": MAX_ID}
MEASURE: Final[Schema] = {
    "oneOf": [{"type": "number"}, {"enum": ["+inf", "-inf"]}, {"type": "null"}],
    "description": 'a number; "+inf" / "-inf" after only wins / only losses; null: undefined '
    "(no games)",
}
TIME: Final[Schema] = {"type": "string", "description": "ISO-8601, UTC"}

SCHEMAS: Final[dict[str, Schema]] = {
    "Error": _object({"error": {"type": "string"}}, extra=False),
    "LeaderboardRow": _object(
        {
            "rank": {"type": "integer", "minimum": 1},
            "user_id": ID,
            "name": {"type": "string"},
            "rating": {"type": "number", "description": "ladder rating, unrounded"},
            "value": {**MEASURE, "description": "the measure ranked by: " + MEASURE["description"]},
            "games": {"type": "integer", "minimum": 0},
            "wins": {"type": "integer", "minimum": 0},
            "draws": {"type": "integer", "minimum": 0},
            "losses": {"type": "integer", "minimum": 0},
            "provisional": {"type": "boolean"},
        }
    ),
    "Leaderboard": _object(
        {
            "guild_id": ID,
            "by": {"enum": list(MEASURES)},
            "season": {
                "type": ["string", "null"],
                "description": "a closed season's closing standings; null: now",
            },
            "page": {"type": "integer", "minimum": 1},
            "pages": {"type": "integer", "minimum": 1},
            "page_size": {"type": "integer", "const": PAGE_SIZE},
            "total": {"type": "integer", "minimum": 0},
            "min_games": {"type": "integer", "minimum": 0},
            "provisional_games": {"type": "integer", "minimum": 0},
            "inactive_days": {"type": "integer", "minimum": 0},
            "read_at": TIME,
            "rows": {"type": "array", "items": _ref("LeaderboardRow")},
        }
    ),
    "FormEntry": _object(
        {
            "match_id": ID,
            "played_at": {"type": "number", "description": "Unix seconds"},
            "result": {"type": "string", "description": "W, D, L or a placement like 2nd/4"},
            "rating_before": {"type": "number"},
            "rating_after": {"type": "number"},
            "shown": {"type": "string"},
        }
    ),
    "ChartPoint": _object(
        {
            "at": TIME,
            "rating": {"type": "number", "description": "ladder rating after it, unrounded"},
            "match_id": {
                "type": ["integer", "null"],
                "format": "int64",
                "minimum": 1,
                "description": "the match; null: a season start that moved the rating",
            },
        }
    ),
    "Member": _object(
        {
            "guild_id": ID,
            "user_id": ID,
            "name": {"type": "string"},
            "rating": {"type": "number"},
            "rank": {"type": ["integer", "null"], "minimum": 1},
            "games": {"type": "integer", "minimum": 0},
            "wins": {"type": "integer", "minimum": 0},
            "draws": {"type": "integer", "minimum": 0},
            "losses": {"type": "integer", "minimum": 0},
            "variant": {"enum": list(VARIANTS)},
            "performance": MEASURE,
            "performance_text": {
                "type": "string",
                "description": "one decimal, +inf, -inf or undefined",
            },
            "up": MEASURE,
            "down": MEASURE,
            "ra": _nullable("number"),
            "provisional": {"type": "boolean"},
            "inactive": {"type": "boolean"},
            "peak": _nullable("number"),
            "streak": _nullable("string"),
            "win_rate": _nullable("number"),
            "games_all_seasons": {"type": "integer", "minimum": 0},
            "form": {"type": "array", "items": _ref("FormEntry")},
            "chart": {
                "type": "array",
                "items": _ref("ChartPoint"),
                "description": "the rating chart's series, oldest first; the last rating is "
                "`rating` (empty without matches)",
            },
            "read_at": TIME,
        }
    ),
    "Participant": _object(
        {
            "user_id": {"type": ["integer", "null"], "format": "int64"},
            "guest": _nullable("string"),
            "name": {"type": "string"},
            "side": {"type": "string"},
            "score": {"type": "number"},
            "minutes": {"type": "number"},
            "rated": {"type": "boolean"},
            "outcome": {"enum": ["win", "draw", "loss", None]},
            "rating_before": _nullable("number"),
            "rating_after": _nullable("number"),
        }
    ),
    "MatchSummary": _object(
        {
            "id": ID,
            "status": {"enum": ["pending", "disputed", "applied", "void"]},
            "played_at": TIME,
            "reporter_id": {"type": ["integer", "null"], "format": "int64"},
            "import_key": _nullable("string"),
            "void_reason": _nullable("string"),
            "lineup": {"type": "string"},
            "participants": {"type": "array", "items": _ref("Participant")},
        }
    ),
    "Edit": _object(
        {
            "edited_at": TIME,
            "editor_id": {"type": ["integer", "null"], "format": "int64"},
            "old_lineup": {"type": "string"},
        }
    ),
    "Match": {
        "allOf": [
            _ref("MatchSummary"),
            _object(
                {
                    "guild_id": ID,
                    "edits": {"type": "array", "items": _ref("Edit")},
                    "read_at": TIME,
                }
            ),
        ]
    },
    "Matches": _object(
        {
            "guild_id": ID,
            "before": {"type": ["integer", "null"], "format": "int64"},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_MATCHES_LIMIT},
            "next_before": {
                "type": ["integer", "null"],
                "format": "int64",
                "description": "`before` of the next (older) page; null on the last",
            },
            "read_at": TIME,
            "matches": {"type": "array", "items": _ref("MatchSummary")},
        }
    ),
    "Season": _object(
        {
            "name": {"type": "string"},
            "started_at": {
                "type": ["string", "null"],
                "description": "null: the first season, which began with the log",
            },
            "ended_at": {"type": ["string", "null"], "description": "null: under way"},
            "carry": {"type": "number", "minimum": 0, "maximum": 1},
            "members": {"type": "integer", "minimum": 0},
            "current": {"type": "boolean"},
        }
    ),
    "Seasons": _object(
        {
            "guild_id": ID,
            "read_at": TIME,
            "seasons": {"type": "array", "items": _ref("Season"), "minItems": 1},
        }
    ),
}


def _id_parameter(name: str, description: str) -> Schema:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description + " (a decimal integer from 1 to 2^63 - 1)",
        "schema": {"type": "string", "pattern": ID_PATTERN},
    }


def _query(name: str, schema: Schema, description: str) -> Schema:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": schema,
    }


def _answer(description: str, schema: Schema) -> Schema:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERRORS: Final[dict[str, Schema]] = {
    "304": {"description": "Not modified: the If-None-Match ETag is current"},
    "400": _answer("A bad parameter, named in `error`", _ref("Error")),
    "404": _answer(
        "An unknown or hidden guild (one answer for both), an unknown member or match, or "
        "standings the guild does not have (a page past the end, an unknown season)",
        _ref("Error"),
    ),
}
HEADERS: Final[dict[str, Schema]] = {
    "ETag": {
        "description": "derived from the guild's change stamp",
        "schema": {"type": "string"},
    },
    "Cache-Control": {"schema": {"type": "string"}},
}
GUILD: Final = _id_parameter("guild_id", "The Discord server's id")


def _operation(
    operation_id: str,
    summary: str,
    schema: str,
    parameters: list[Schema],
) -> Schema:
    ok = _answer("OK", _ref(schema))
    ok["headers"] = HEADERS
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "parameters": [GUILD, *parameters],
            "responses": {"200": ok, **ERRORS},
        }
    }


def openapi_document() -> Schema:
    """The document (a fresh dict each call)."""
    guild = "/api/v1/guilds/{guild_id}"
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "ladderbot read API",
            "version": "1",
            "description": (
                "The standings of the Discord servers that show them (setting `web`), read "
                "only. Every response of a server carries an ETag derived from its change "
                "stamp; If-None-Match answers 304 while nothing changed. Only GET and HEAD "
                "are served (405 otherwise). Ids are 64-bit integers."
            ),
        },
        "paths": {
            f"{guild}/leaderboard": _operation(
                "leaderboard",
                "One page of the leaderboard, or of a closed season's closing standings",
                "Leaderboard",
                [
                    _query("by", {"enum": list(MEASURES), "default": "ladder"}, "the measure"),
                    _query(
                        "page",
                        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
                        f"{PAGE_SIZE} rows a page; a page past the end is a 404",
                    ),
                    _query(
                        "season",
                        {"type": "string"},
                        "a closed season's name (ranked by ladder only); the current "
                        "season's name, or none, is the standings now; an unknown season, or a "
                        "closed one by another measure, is a 404",
                    ),
                ],
            ),
            f"{guild}/members/{{user_id}}": _operation(
                "member",
                "A member's rating card",
                "Member",
                [
                    _id_parameter("user_id", "The member's Discord user id"),
                    _query(
                        "variant",
                        {"enum": list(VARIANTS)},
                        "the performance variant (default: the server's)",
                    ),
                ],
            ),
            f"{guild}/matches": _operation(
                "matches",
                "Matches, newest first (by id), every state",
                "Matches",
                [
                    _query(
                        "before",
                        {"type": "integer", "minimum": 1, "maximum": MAX_ID},
                        "only matches with a smaller id (the previous page's next_before)",
                    ),
                    _query(
                        "limit",
                        {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": MAX_MATCHES_LIMIT,
                            "default": MATCHES_LIMIT,
                        },
                        "matches a page",
                    ),
                ],
            ),
            f"{guild}/matches/{{match_id}}": _operation(
                "match",
                "One match with its participants and earlier lineups",
                "Match",
                [_id_parameter("match_id", "The match number")],
            ),
            f"{guild}/seasons": _operation(
                "seasons", "Every season, oldest first; the last is under way", "Seasons", []
            ),
        },
        "components": {"schemas": SCHEMAS},
    }
