"""The fake's role rate limiter itself: what the burst test relies on to call a client too
fast (a violation) and to answer 429 as Discord does (retry_after, X-RateLimit-*, Via)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests.app.fakediscord import GUILD_ID, FakeDiscord, Member, RoleRateLimit
from tests.app.harness import serving

PLAYER = Member(6_000_001, "limited")


@pytest.fixture
def limited() -> Iterator[FakeDiscord]:
    yield from serving(FakeDiscord([PLAYER], role_rate=RoleRateLimit(limit=2, window=30.0)))


def put_role(fake: FakeDiscord, role_id: int) -> tuple[int, dict[str, str], bytes]:
    url = f"{fake.url}/api/v10/guilds/{GUILD_ID}/members/{PLAYER.id}/roles/{role_id}"
    request = urllib.request.Request(url, method="PUT")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_calls_past_the_limit_are_429_and_recorded_as_violations(limited: FakeDiscord) -> None:
    role = limited.add_role("bronze", 2)
    first, second, third = (put_role(limited, role.id) for _ in range(3))
    assert (first[0], first[1]["X-RateLimit-Remaining"]) == (204, "1")
    assert (second[0], second[1]["X-RateLimit-Remaining"]) == (204, "0")
    status, headers, body = third
    assert status == 429 and headers["Via"] and float(headers["X-RateLimit-Reset-After"]) > 0
    assert json.loads(body)["retry_after"] > 0
    assert len(limited.role_violations()) == 1
    assert limited.held(GUILD_ID, PLAYER.id) == {role.id}


def test_a_role_above_the_bots_is_forbidden(limited: FakeDiscord) -> None:
    above = limited.add_role("above", 20)
    assert put_role(limited, above.id)[0] == 403
    assert limited.held(GUILD_ID, PLAYER.id) == set()
