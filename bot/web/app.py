"""The web application (SPEC 11): the pages and the read API of the guilds that show them.

Every request of a guild first reads the guild's stamp (bot.web.reading.WebReads.stamp): a
hidden or unknown guild answers the one NOT_FOUND (no ETag, nothing else that differs), so
turning `web` off hides a guild at the next request. A shown guild's responses are made once
per stamp and kept (bot.web.kept); their ETag is a hash of the stamp and the request, so
`If-None-Match` answers 304 until the guild changes.

Only GET and HEAD are served; every response carries the security headers, and nothing a
request holds reaches a 500 or a traceback (a bad parameter is a 400 naming it).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from typing import Any, Final

import jinja2
from aiohttp import web
from babel.numbers import format_percent
from multidict import MultiMapping

from bot.config import VARIANTS
from bot.present.language import ENGLISH, N_, SOURCE, Words, refusal_text, shipped, words
from bot.present.words import (
    OUTCOME_WORDS,
    STATUS_WORDS,
    UNDEFINED,
    move_text,
    outcome_text,
    quoted,
    rating_move,
    team_words,
)
from bot.services import DatabaseBusy, DatabaseUnavailable, Services, UserError
from bot.services.lineup import parse_id
from bot.services.standings import MEASURES
from bot.web.chart import rating_chart
from bot.web.executor import THREAD_POOL
from bot.web.kept import Kept
from bot.web.openapi import openapi_document
from bot.web.reading import (
    MATCHES_LIMIT,
    MAX_MATCHES_LIMIT,
    MAX_PAGE,
    GuildHiddenError,
    NotFoundError,
    WebReads,
)

log = logging.getLogger(__name__)

CACHE_SECONDS: Final = 10
"""Cache-Control max-age of a guild's responses: a browser asks again (If-None-Match) after."""
STATIC_SECONDS: Final = 3600
CACHE_ENTRIES: Final = 512
CONTENT_POLICY: Final = (
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'"
)
SECURITY_HEADERS: Final = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
API_HEADERS: Final = {"Access-Control-Allow-Origin": "*"}
"""The API's data is public and read-only (no credentials): any site may read it."""
WORKING: Final = 2
"""Responses of guilds made at once (each reads, and may compute, on the web's threads).
Fewer than the database's read snapshots at once (SQLite's 4): a board read holds one while
it computes, and the bot's own reads must find one free."""
WAITING: Final = 32
"""Responses waiting for a turn; one more is refused with 503 (SPEC 11.1: the web's load is
bounded; a response asked again while it is being made waits for that one, no turn)."""
BUSY_SECONDS: Final = 5
PARAMETER_QUOTE: Final = 40
"""Characters of a bad parameter a 400 quotes at most."""
HANDLING: Final = 2
"""Requests handled at once; the others wait their turn (in arrival order) before anything
of theirs runs, so each of the bot's own steps waits behind at most this many of theirs."""
JSON_TYPE: Final = "application/json"
HTML_TYPE: Final = "text/html"
NOT_FOUND_MESSAGE: Final = N_("not found")
"""The one answer for an unknown or hidden guild (and any unknown address)."""
MEASURE_LINES: Final = {
    "ladder": N_("the ladder rating, moved by each applied match"),
    "p1": N_("performance rating: what the results are worth against the opponents' ratings"),
    "p2": N_("performance rating: p1 with a draw against a 0-rated player, so it stays finite"),
    "p3": N_("performance rating: p2 with newer games weighing more"),
    "p4": N_("performance rating: p3 with many games against one opponent counting less"),
    "p5": N_("performance rating: p4 with that reduction stopping at 50 games"),
    "p6": N_("performance rating: p5 with games ageing by the opponents played since"),
    "p7": N_("performance rating: p6 with each opponent's games weighing at most 5 together"),
    "p8": N_("performance rating: p7 with two draws against a 1500-rated player instead"),
    "ra": N_("rating accuracy: how well the games pin the performance rating down"),
}
"""One line of visible text for each measure of the leaderboard (SPEC 11.2, SPEC 1.4)."""
STATIC_FILES: Final = {"style.css": "text/css", "favicon.svg": "image/svg+xml"}


class BadParameterError(UserError):
    """A parameter that is not acceptable (400): a refusal saying which and why."""


class OverloadedError(Exception):
    """More responses are waiting to be made than WAITING (503)."""


class Turns:
    """At most `working` holders at once and `waiting` more in line; past that, refused."""

    def __init__(self, working: int = WORKING, waiting: int = WAITING) -> None:
        self._free = asyncio.Semaphore(working)
        self.waiting_limit = waiting
        self.waiting = 0

    async def run(self, make: Callable[[], Awaitable[Rendered]]) -> Rendered:
        """What `make` gives, made in a turn; OverloadedError when the line is full."""
        if self._free.locked() and self.waiting >= self.waiting_limit:
            raise OverloadedError
        self.waiting += 1
        try:
            await self._free.acquire()
        finally:
            self.waiting -= 1
        try:
            return await make()
        finally:
            self._free.release()


@dataclass(frozen=True, slots=True)
class Rendered:
    body: bytes
    content_type: str
    status: int = 200


def _is_api(request: web.Request) -> bool:
    return request.path.startswith("/api/")


# --- parameters ---------------------------------------------------------------------------


def _one(query: MultiMapping[str], name: str) -> str | None:
    values = query.getall(name, [])
    if len(values) > 1:
        raise BadParameterError(
            N_("{name} is given {count} times; give it once"), name=name, count=len(values)
        )
    return values[0] if values else None


def _choice(query: MultiMapping[str], name: str, choices: tuple[str, ...], default: str) -> str:
    value = _one(query, name)
    if value is None:
        return default
    if value not in choices:
        raise BadParameterError(
            N_("{name} {value} must be one of {choices}"),
            name=name,
            value=quoted(value, PARAMETER_QUOTE),
            choices=", ".join(choices),
        )
    return value


def _whole(query: MultiMapping[str], name: str, low: int, high: int) -> int | None:
    value = _one(query, name)
    if value is None:
        return None
    digits = value.lstrip("0")
    number = int(digits or "0") if value.isascii() and value.isdigit() else None
    if number is None or len(digits) > len(str(high)) or not low <= number <= high:
        raise BadParameterError(
            N_("{name} {value} must be a whole number from {low} to {high}"),
            name=name,
            value=quoted(value, PARAMETER_QUOTE),
            low=low,
            high=f"{high:,}",
        )
    return number


def _path_id(request: web.Request, name: str, what: str) -> int:
    try:
        return parse_id(request.match_info[name], what)
    except UserError as error:
        raise BadParameterError(error.template, **error.params) from None


# --- the application ----------------------------------------------------------------------


class WebSite:
    """The handlers over one WebReads, with the templates and the response cache."""

    def __init__(
        self,
        services: Services,
        *,
        clock: Callable[[], float] = time.time,
        frame_ancestors: Sequence[str] = (),
        thread_pool: Executor | None = None,
    ) -> None:
        self.reads = WebReads(services, clock)
        self.cache: Kept[Rendered] = Kept(CACHE_ENTRIES)
        self.turns = Turns()
        self.handling = asyncio.Semaphore(HANDLING)
        """Requests handled on the event loop at once (their waits for a response being made
        excluded): the loop the bot shares is never queued up with web requests."""
        self.thread_pool = thread_pool
        embedders = " ".join(frame_ancestors) or "'none'"
        self.headers = {
            "Content-Security-Policy": f"{CONTENT_POLICY}; frame-ancestors {embedders}",
            **SECURITY_HEADERS,
        }
        self.templates = jinja2.Environment(
            loader=jinja2.PackageLoader("bot.web", "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        for name, worded in (
            ("measure", _measure),
            ("number", _number),
            ("percent", _percent),
            ("move", _move),
            ("change", _change),
            ("outcome", _outcome),
            ("status", _status),
            ("sides", _sides),
            ("when", _when),
        ):
            self.templates.filters[name] = in_language(worded)
        self.templates.filters["isolated"] = _isolated
        self.static: dict[str, tuple[bytes, str, str]] = {}
        for name, kind in STATIC_FILES.items():
            body = resources.files("bot.web").joinpath("static", name).read_bytes()
            self.static[name] = (body, kind, _etag(body))
        self.openapi = json.dumps(openapi_document(), indent=1).encode()
        self.openapi_tag = _etag(self.openapi)

    # --- responses ------------------------------------------------------------------------

    def _html(
        self, template: str, code: int = 200, said: Words = ENGLISH, **context: Any
    ) -> Rendered:
        """A page; its words (`_`, `ngettext` in the templates) and numbers (the filters)
        in `said`'s language."""
        text = self.templates.get_template(template).render(
            _=said.gettext, ngettext=said.ngettext, language=said.language, said=said, **context
        )
        return Rendered(text.encode(), HTML_TYPE, code)

    def _said(self, guild_id: int) -> Words:
        """The words of a shown guild's pages: its `language` setting."""
        return words(self.reads.guild_language(guild_id))

    @staticmethod
    def _json(found: Any, status: int = 200) -> Rendered:
        return Rendered(json.dumps(found, allow_nan=False).encode(), JSON_TYPE, status)

    def error(self, request: web.Request, status: int, refusal: UserError) -> web.Response:
        """An error answer: JSON `{"error": …}` for the API (English), else a page in the
        language the browser asks for (no guild's setting is known here)."""
        if _is_api(request):
            return _response(self._json({"error": str(refusal)}, status))
        said = words(asked_language(request.headers.get("Accept-Language")))
        return _response(self._error_page(status, refusal, said), {"Vary": "Accept-Language"})

    def _error_page(self, status: int, refusal: UserError, said: Words) -> Rendered:
        unpublished = status == 404 and refusal.template == NOT_FOUND_MESSAGE
        return self._html(
            "error.html",
            status,
            said,
            status=status,
            message=refusal_text(refusal, said),
            unpublished=unpublished,
        )

    async def _guild_response(
        self,
        request: web.Request,
        guild_id: int,
        asked: tuple[object, ...],
        make: Callable[[], Awaitable[Rendered]],
    ) -> web.Response:
        """The response of a shown guild's address: made once per stamp (and the parameters
        `asked`), 304 for a client that has it."""
        stamp = await self.reads.stamp(guild_id)
        key = hashlib.blake2b(
            repr((stamp, request.path, asked)).encode(), digest_size=16
        ).hexdigest()
        tag = f'"{key}"'
        self.handling.release()  # waiting for a response to be made takes no handling slot
        try:
            rendered = await self.cache.get(key, lambda: self.turns.run(make))
        finally:
            await self.handling.acquire()
        headers = {"ETag": tag, "Cache-Control": f"public, max-age={CACHE_SECONDS}"}
        if rendered.status == 200 and _matches(request.headers.get("If-None-Match"), tag):
            return web.Response(status=304, headers=headers)
        return _response(rendered, headers)

    # --- the API --------------------------------------------------------------------------

    async def api_openapi(self, request: web.Request) -> web.Response:
        tag = self.openapi_tag
        headers = {"ETag": tag, "Cache-Control": f"public, max-age={STATIC_SECONDS}"}
        if _matches(request.headers.get("If-None-Match"), tag):
            return web.Response(status=304, headers=headers)
        return _response(Rendered(self.openapi, JSON_TYPE), headers)

    async def api_leaderboard(self, request: web.Request) -> web.Response:
        guild_id = _path_id(request, "guild_id", "guild id")
        by, page, season = _board_parameters(request.query)

        async def make() -> Rendered:
            return self._json(await self.reads.leaderboard(guild_id, by, page, season))

        return await self._guild_response(
            request, guild_id, (by, page, season), lambda: self._api(make)
        )

    async def api_member(self, request: web.Request) -> web.Response:
        guild_id = _path_id(request, "guild_id", "guild id")
        user_id = _path_id(request, "user_id", "user id")
        variant = _variant(request.query)

        async def make() -> Rendered:
            return self._json((await self.reads.player(guild_id, user_id, variant)).card)

        return await self._guild_response(request, guild_id, (variant,), lambda: self._api(make))

    async def api_matches(self, request: web.Request) -> web.Response:
        guild_id = _path_id(request, "guild_id", "guild id")
        before, limit = _list_parameters(request.query)

        async def make() -> Rendered:
            return self._json(await self.reads.matches(guild_id, before, limit))

        return await self._guild_response(
            request, guild_id, (before, limit), lambda: self._api(make)
        )

    async def api_match(self, request: web.Request) -> web.Response:
        guild_id = _path_id(request, "guild_id", "guild id")
        match_id = _path_id(request, "match_id", "match id")

        async def make() -> Rendered:
            return self._json(await self.reads.match(guild_id, match_id))

        return await self._guild_response(request, guild_id, (), lambda: self._api(make))

    async def api_seasons(self, request: web.Request) -> web.Response:
        guild_id = _path_id(request, "guild_id", "guild id")

        async def make() -> Rendered:
            return self._json(await self.reads.seasons(guild_id))

        return await self._guild_response(request, guild_id, (), lambda: self._api(make))

    async def _api(self, make: Callable[[], Awaitable[Rendered]]) -> Rendered:
        try:
            return await make()
        except NotFoundError as missing:
            return self._json({"error": str(missing)}, 404)  # the API speaks English

    # --- the pages ------------------------------------------------------------------------

    async def _page(self, guild_id: int, make: Callable[[], Awaitable[Rendered]]) -> Rendered:
        try:
            return await make()
        except NotFoundError as missing:
            return self._error_page(404, missing, self._said(guild_id))

    async def page_leaderboard(self, request: web.Request) -> web.Response:
        guild_id = _path_id(request, "guild_id", "guild id")
        by, page, season = _board_parameters(request.query)

        async def make() -> Rendered:
            board = await self.reads.leaderboard(guild_id, by, page, season)
            seasons = await self.reads.seasons(guild_id)
            return self._html(
                "leaderboard.html",
                said=self._said(guild_id),
                board=board,
                seasons=[s["name"] for s in seasons["seasons"] if not s["current"]],
                measures=MEASURES,
                measure_lines=MEASURE_LINES,
                guild_id=guild_id,
                guild_name=self.reads.guild_name(guild_id),
            )

        return await self._guild_response(
            request, guild_id, (by, page, season), lambda: self._page(guild_id, make)
        )

    async def page_player(self, request: web.Request) -> web.Response:
        guild_id = _path_id(request, "guild_id", "guild id")
        user_id = _path_id(request, "user_id", "user id")
        variant = _variant(request.query)

        async def make() -> Rendered:
            view = await self.reads.player(guild_id, user_id, variant)
            said = self._said(guild_id)
            chart = None if view.start is None else rating_chart(view.start, view.history, said)
            return self._html(
                "player.html",
                said=said,
                card=view.card,
                chart=chart,
                guild_id=guild_id,
                guild_name=self.reads.guild_name(guild_id),
                variants=VARIANTS,
            )

        return await self._guild_response(
            request, guild_id, (variant,), lambda: self._page(guild_id, make)
        )

    async def page_matches(self, request: web.Request) -> web.Response:
        guild_id = _path_id(request, "guild_id", "guild id")
        before, limit = _list_parameters(request.query)

        async def make() -> Rendered:
            listed = await self.reads.matches(guild_id, before, limit)
            return self._html(
                "matches.html",
                said=self._said(guild_id),
                listed=listed,
                guild_id=guild_id,
                guild_name=self.reads.guild_name(guild_id),
            )

        return await self._guild_response(
            request, guild_id, (before, limit), lambda: self._page(guild_id, make)
        )

    async def page_match(self, request: web.Request) -> web.Response:
        guild_id = _path_id(request, "guild_id", "guild id")
        match_id = _path_id(request, "match_id", "match id")

        async def make() -> Rendered:
            match = await self.reads.match(guild_id, match_id)
            return self._html(
                "match.html",
                said=self._said(guild_id),
                match=match,
                guild_id=guild_id,
                guild_name=self.reads.guild_name(guild_id),
            )

        return await self._guild_response(request, guild_id, (), lambda: self._page(guild_id, make))

    async def page_index(self, request: web.Request) -> web.Response:
        said = words(asked_language(request.headers.get("Accept-Language")))
        headers = {"Cache-Control": f"max-age={STATIC_SECONDS}", "Vary": "Accept-Language"}
        return _response(self._html("index.html", said=said), headers)

    async def static_file(self, request: web.Request) -> web.Response:
        found = self.static.get(request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound
        body, kind, tag = found
        headers = {"ETag": tag, "Cache-Control": f"public, max-age={STATIC_SECONDS}"}
        if _matches(request.headers.get("If-None-Match"), tag):
            return web.Response(status=304, headers=headers)
        return web.Response(body=body, content_type=kind, headers=headers)

    # --- errors and headers ---------------------------------------------------------------

    @web.middleware
    async def guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Only GET and HEAD; every failure an answer of its own kind, never a traceback;
        the security headers on everything; the request's thread work on the web's pool."""
        if self.thread_pool is not None:
            THREAD_POOL.set(self.thread_pool)  # this request's task (and those it starts)
        async with self.handling:
            response = await self._answer(request, handler)
        response.headers.update(self.headers)
        if _is_api(request):
            response.headers.update(API_HEADERS)
        return response

    async def _answer(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            return self._not_allowed(request)
        try:
            return await handler(request)
        except GuildHiddenError:
            return self.error(request, 404, UserError(NOT_FOUND_MESSAGE))
        except BadParameterError as error:
            return self.error(request, 400, error)
        except web.HTTPNotFound:
            return self.error(request, 404, UserError(NOT_FOUND_MESSAGE))
        except web.HTTPMethodNotAllowed:
            return self._not_allowed(request)
        except web.HTTPException as error:  # aiohttp's own refusals (a bad request line, …)
            return self.error(request, error.status, UserError(error.reason))
        except (DatabaseBusy, DatabaseUnavailable) as error:
            busy = N_("the database is busy; try again in a moment")
            down = N_("the database is unavailable; try again in a moment")
            refusal = UserError(busy if isinstance(error, DatabaseBusy) else down)
            return self._busy(self.error(request, 503, refusal))
        except OverloadedError:
            refusal = UserError(
                N_("the server has too many requests to answer; try again in a moment")
            )
            return self._busy(self.error(request, 503, refusal))
        except Exception:
            log.exception("the web request %s %s failed", request.method, request.path_qs)
            return self.error(request, 500, UserError(N_("something went wrong on our side")))

    def _not_allowed(self, request: web.Request) -> web.Response:
        refusal = UserError(N_("{method} is not served: only GET and HEAD"), method=request.method)
        response = self.error(request, 405, refusal)
        response.headers["Allow"] = "GET, HEAD"
        return response

    @staticmethod
    def _busy(response: web.Response) -> web.Response:
        response.headers["Retry-After"] = str(BUSY_SECONDS)
        return response


def asked_language(header: str | None) -> str:
    """The shipped language a browser asks for first (Accept-Language, by its q values),
    else English: the language of the pages no server's setting decides (the index, and the
    errors answered before a server is known, a hidden one's 404 the same as an unknown's)."""
    asked: list[tuple[float, int, str]] = []
    for position, part in enumerate((header or "").split(",")):
        tag, _, rest = part.strip().partition(";")
        quality = 1.0
        for parameter in rest.split(";"):
            key, _, value = parameter.strip().partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and quality > 0:
            asked.append((-quality, position, tag))
    for _, _, tag in sorted(asked):
        found = shipped(tag)
        if found != SOURCE or tag.split("-")[0].lower() in ("en", "*"):
            return found
    return SOURCE


def in_language(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` as a template filter that takes the page's words (WebSite._html puts them
    in the context) as its keyword `said`."""

    @jinja2.pass_context
    def filtered(context: jinja2.runtime.Context, *args: Any) -> Any:
        return function(*args, said=context["said"])

    return filtered


def _measure(value: float | str | None, by: str = "ladder", *, said: Words = ENGLISH) -> str:
    """A rating (or with `by` "ra", RA) of the API's JSON in the page's language: one
    decimal (RA two); "+inf" / "-inf" as they are; null as "undefined"."""
    if value is None:
        return said.gettext(UNDEFINED)
    if isinstance(value, str):
        return value
    return said.accuracy(value) if by == "ra" else said.rating(value)


def _number(value: float, *, said: Words = ENGLISH) -> str:
    """A score or minutes as typed, in the page's digits."""
    return said.number(value)


def _percent(value: float, *, said: Words = ENGLISH) -> str:
    """A share as a whole percentage, the page's way (48 %, 48%)."""
    return format_percent(value, "#,##0%", locale=said.locale)


def _isolated(text: str) -> str:
    """A user's text isolated by Unicode marks (FSI … PDI) where <bdi> cannot go (a title,
    an option): its right-to-left characters cannot reorder what follows (SPEC 11.2)."""
    return f"\u2068{text}\u2069"


def _move(participant: dict[str, Any], status: str, *, said: Words = ENGLISH) -> str:
    """A participant's rating change as every front end shows it; a dash while unrated."""
    shown = move_text(
        participant["rating_before"],
        participant["rating_after"],
        participant["rated"],
        status,
        said,
    )
    return shown or "—"


def _change(entry: dict[str, Any], *, said: Words = ENGLISH) -> str:
    """A recent match's rating change on the player page: before → after (change)."""
    return rating_move(entry["rating_before"], entry["rating_after"], said)


def _outcome(result: str, *, said: Words = ENGLISH) -> str:
    """A recent match's result (W, L, 2nd/5) with the page's letters."""
    return outcome_text(result, said)


def _status(status: str, *, said: Words = ENGLISH) -> str:
    """A match's state in a word of the page's language."""
    return said.gettext(STATUS_WORDS[status])


def _when(moment: str, *, said: Words = ENGLISH) -> str:
    """An ISO-8601 UTC time as the page's language writes it: Dec 6, 2025, 06:21 UTC."""
    try:
        parsed = datetime.fromisoformat(moment)
    except ValueError:
        return moment
    return said.time(parsed)


@dataclass(frozen=True, slots=True)
class _Side:
    name: str
    players: list[dict[str, Any]]
    outcome: str | None
    """won, drew or lost (its rated players' record; the page translates it), None when
    nobody on it was rated."""


def _sides(participants: list[dict[str, Any]], *, said: Words = ENGLISH) -> list[_Side]:
    """A match's participants by side, the sides in lineup order, named in the page's
    language."""
    sides: dict[str, list[dict[str, Any]]] = {}
    for participant in participants:
        sides.setdefault(participant["side"], []).append(participant)
    return [
        _Side(
            team_words(label, said),
            players,
            next((OUTCOME_WORDS[p["outcome"]] for p in players if p["outcome"]), None),
        )
        for label, players in sides.items()
    ]


def _etag(body: bytes) -> str:
    """The ETag of a body that does not change while the process runs (made once)."""
    return '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'


def _response(rendered: Rendered, headers: Mapping[str, str] | None = None) -> web.Response:
    content_type = rendered.content_type
    return web.Response(
        body=rendered.body,
        status=rendered.status,
        content_type=content_type,
        charset="utf-8",
        headers=headers,
    )


def _matches(if_none_match: str | None, tag: str) -> bool:
    """Whether an If-None-Match header names `tag` (weakly, as RFC 9110 says) or is *."""
    if if_none_match is None:
        return False
    wanted = [part.strip().removeprefix("W/") for part in if_none_match.split(",")]
    return "*" in wanted or tag in wanted


def _board_parameters(query: MultiMapping[str]) -> tuple[str, int, str | None]:
    by = _choice(query, "by", MEASURES, "ladder")
    page = _whole(query, "page", 1, MAX_PAGE) or 1
    season = _one(query, "season")
    if season is not None and not season.strip():
        season = None
    return by, page, season


def _list_parameters(query: MultiMapping[str]) -> tuple[int | None, int]:
    before = _whole(query, "before", 1, 2**63 - 1)
    limit = _whole(query, "limit", 1, MAX_MATCHES_LIMIT) or MATCHES_LIMIT
    return before, limit


def _variant(query: MultiMapping[str]) -> str | None:
    value = _one(query, "variant")
    if value is None:
        return None
    if value not in VARIANTS:
        raise BadParameterError(
            f"variant {quoted(value, PARAMETER_QUOTE)} must be one of {', '.join(VARIANTS)}"
        )
    return value


SITE: Final = web.AppKey("site", WebSite)


def create_app(
    services: Services,
    *,
    clock: Callable[[], float] = time.time,
    frame_ancestors: Sequence[str] = (),
    thread_pool: Executor | None = None,
) -> web.Application:
    """The application over the services (read only: it never writes); `frame_ancestors`
    may embed its pages; `thread_pool` does its thread work (None: the default executor)."""
    site = WebSite(services, clock=clock, frame_ancestors=frame_ancestors, thread_pool=thread_pool)
    app = web.Application(middlewares=[site.guard])
    app[SITE] = site
    guild = "/api/v1/guilds/{guild_id}"
    app.router.add_get("/", site.page_index)
    app.router.add_get("/api/v1/openapi.json", site.api_openapi)
    app.router.add_get(f"{guild}/leaderboard", site.api_leaderboard)
    app.router.add_get(f"{guild}/members/{{user_id}}", site.api_member)
    app.router.add_get(f"{guild}/matches", site.api_matches)
    app.router.add_get(f"{guild}/matches/{{match_id}}", site.api_match)
    app.router.add_get(f"{guild}/seasons", site.api_seasons)
    app.router.add_get("/g/{guild_id}", site.page_leaderboard)
    app.router.add_get("/g/{guild_id}/players/{user_id}", site.page_player)
    app.router.add_get("/g/{guild_id}/matches", site.page_matches)
    app.router.add_get("/g/{guild_id}/matches/{match_id}", site.page_match)
    app.router.add_get("/static/{name}", site.static_file)
    return app
