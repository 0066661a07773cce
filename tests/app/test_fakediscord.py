"""The fake Discord refuses what Discord refuses (its documented message limits), with
HTTP 400 and JSON code 50035, on every endpoint that takes a message."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.fakediscord import APPLICATION_ID, CHANNEL_ID, FakeDiscord, message_problems


def field(name: str = "n", value: str = "v") -> dict[str, str]:
    return {"name": name, "value": value}


def embed(**parts: Any) -> dict[str, Any]:
    return {"title": "t", **parts}


TOO_BIG: dict[str, dict[str, Any]] = {
    "content over 2,000": {"content": "c" * 2001},
    "more than 10 embeds": {"embeds": [embed() for _ in range(11)]},
    "more than 25 fields": {"embeds": [embed(fields=[field() for _ in range(26)])]},
    "field name over 256": {"embeds": [embed(fields=[field(name="n" * 257)])]},
    "field value over 1,024": {"embeds": [embed(fields=[field(value="v" * 1025)])]},
    "empty field value": {"embeds": [embed(fields=[field(value="")])]},
    "title over 256": {"embeds": [embed(title="t" * 257)]},
    "description over 4,096": {"embeds": [embed(description="d" * 4097)]},
    "footer over 2,048": {"embeds": [embed(footer={"text": "f" * 2049})]},
    "embed total over 6,000": {
        "embeds": [embed(description="d" * 4000, fields=[field(value="v" * 1000)] * 2)]
    },
    "total over 6,000 across embeds": {
        "embeds": [embed(description="d" * 3000), embed(description="d" * 3000)]
    },
}
AT_THE_LIMITS = {  # 256 + 1,904 + 3 * (256 + 1,024) = 6,000 characters
    "content": "c" * 2000,
    "embeds": [
        embed(title="t" * 256, description="d" * 1904, fields=[field("n" * 256, "v" * 1024)] * 3),
        *[embed(title="") for _ in range(9)],
    ],
}


@pytest.mark.parametrize("body", TOO_BIG.values(), ids=list(TOO_BIG))
def test_each_limit_is_refused(body: dict[str, Any]) -> None:
    assert message_problems(body) != []


def test_a_message_at_every_limit_is_accepted() -> None:
    assert message_problems(AT_THE_LIMITS) == []


@pytest.fixture(scope="module")
def server() -> Iterator[FakeDiscord]:
    fake = FakeDiscord([])
    fake.start()
    yield fake
    fake.stop()


def request(fake: FakeDiscord, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    sent = urllib.request.Request(
        f"{fake.url}/api/v10{path}",
        data=json.dumps(body).encode(),
        method=method,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(sent, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


TOKEN = "token-limits"
ENDPOINTS = {
    "interaction callback": ("POST", f"/interactions/1/{TOKEN}/callback", True),
    "webhook followup": ("POST", f"/webhooks/{APPLICATION_ID}/{TOKEN}", False),
    "webhook edit": ("PATCH", f"/webhooks/{APPLICATION_ID}/{TOKEN}/messages/@original", False),
    "channel message": ("POST", f"/channels/{CHANNEL_ID}/messages", False),
    "message edit": ("PATCH", f"/channels/{CHANNEL_ID}/messages/{{message}}", False),
}


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_every_message_endpoint_answers_400_50035(server: FakeDiscord, endpoint: str) -> None:
    # an interaction as the fake's own injection would register it (no bot needed here)
    server._tokens[TOKEN] = {"id": "1", "type": 2, "channel_id": CHANNEL_ID, "clicked": None}
    status, posted = request(server, "POST", f"/channels/{CHANNEL_ID}/messages", {"content": "x"})
    assert status == 200
    method, path, callback = ENDPOINTS[endpoint]
    path = path.format(message=posted["id"])
    bad = TOO_BIG["more than 25 fields"]
    mark = server.mark()
    status, answer = request(server, method, path, {"type": 4, "data": bad} if callback else bad)
    assert (status, answer["code"]) == (400, 50035)
    assert "fields" in answer["errors"]["embeds"]["0"]
    assert len(server.rejected(mark)) == 1
