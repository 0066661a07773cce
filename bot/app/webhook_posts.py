"""The webhooks' HTTP client (SPEC 14), given to bot.services.delivery by the bot: aiohttp,
no redirects followed, and a resolver that checks every address a connection is about to
use (bot.services.webhooks.refused_address), so a name that now resolves to a private
address is refused at each attempt (DNS can change after `webhook add`)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Mapping
from typing import Final

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult

from bot.services.webhooks import Resolve, refused_address

USER_AGENT: Final = "ladderbot-webhooks"


class CheckedResolver(AbstractResolver):
    """The connection's resolver: `resolve`'s addresses, each checked as public unless
    `allow_private` (the addresses actually connected to are the ones checked)."""

    def __init__(self, resolve: Resolve, allow_private: bool) -> None:
        self._resolve = resolve
        self._allow_private = allow_private

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        found: list[ResolveResult] = []
        for address in await self._resolve(host, port):
            why = None if self._allow_private else refused_address(address)
            if why is not None:
                raise OSError(f"{host} → {why}")
            version = ipaddress.ip_address(address.split("%", 1)[0]).version
            found.append(
                ResolveResult(
                    hostname=host,
                    host=address,
                    port=port,
                    family=socket.AF_INET6 if version == 6 else socket.AF_INET,
                    proto=0,
                    flags=socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
                )
            )
        if not found:
            raise OSError(f"{host} resolves to no address")
        return found

    async def close(self) -> None:
        return None


class HttpPoster:
    """bot.services.delivery.Poster over one aiohttp session (made in a running loop)."""

    def __init__(self, resolve: Resolve, allow_private: bool, timeout: float) -> None:
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(
                resolver=CheckedResolver(resolve, allow_private),
                limit=0,
                use_dns_cache=False,
            ),
            timeout=aiohttp.ClientTimeout(total=timeout),
            headers={"User-Agent": USER_AGENT},
        )

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> str:
        """One attempt: the answer's HTTP status, or what went wrong instead."""
        try:
            async with self._session.post(
                url, data=body, headers=headers, allow_redirects=False
            ) as answer:
                return str(answer.status)
        except TimeoutError:
            return "timeout"
        except aiohttp.ClientError as error:
            return f"failed: {type(error).__name__}"
        except OSError as error:
            return f"failed: {error}"

    async def close(self) -> None:
        await self._session.close()
