"""The fake Discord refuses what Discord refuses (tests/app/discord_rules.py), with HTTP 400
and JSON code 50035 naming the bad field, on every endpoint that takes a message, on the
command sync and on autocomplete answers (issue 23 finding 2)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.discord_rules import JsonDict, message_problems
from tests.app.fakediscord import APPLICATION_ID, CHANNEL_ID, GUILD_ID, FakeDiscord, Token


def field(name: str = "n", value: str = "v") -> dict[str, str]:
    return {"name": name, "value": value}


def embed(**parts: Any) -> JsonDict:
    return {"title": "t", **parts}


TOO_BIG: dict[str, JsonDict] = {
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
def test_each_limit_is_refused(body: JsonDict) -> None:
    assert message_problems(body) != []


def test_a_message_at_every_limit_is_accepted() -> None:
    assert message_problems(AT_THE_LIMITS) == []


@pytest.fixture(scope="module")
def server() -> Iterator[FakeDiscord]:
    fake = FakeDiscord([])
    fake.start()
    yield fake
    fake.stop()


def request(
    fake: FakeDiscord, method: str, path: str, body: Any, upload: bytes | None = None
) -> tuple[int, Any]:
    """The fake's answer to a JSON body, or to a multipart one with `upload` as its file."""
    data, kind = json.dumps(body).encode(), "application/json"
    if upload is not None:
        boundary = "fake-boundary"
        data = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\n'
            f"Content-Type: application/json\r\n\r\n".encode()
            + data
            + f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="files[0]"; '
            f'filename="f.csv"\r\nContent-Type: text/csv\r\n\r\n'.encode()
            + upload
            + f"\r\n--{boundary}--\r\n".encode()
        )
        kind = f"multipart/form-data; boundary={boundary}"
    sent = urllib.request.Request(
        f"{fake.url}/api/v10{path}", data=data, method=method, headers={"Content-Type": kind}
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


BUTTON = {"type": 2, "style": 1, "custom_id": "same", "label": "x"}
BAD_BODIES: dict[str, tuple[JsonDict, bytes | None, tuple[str, ...]]] = {
    "26 fields": (TOO_BIG["more than 25 fields"], None, ("embeds", "0", "fields")),
    "a custom_id twice": (
        {"components": [{"type": 1, "components": [BUTTON, BUTTON]}]},
        None,
        ("components", "0", "components", "1", "custom_id"),
    ),
    "a file over 10 MiB": ({"content": "x"}, b"x" * (10 * 1024 * 1024 + 1), ("files[0]",)),
}


@pytest.mark.parametrize("bad", BAD_BODIES)
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_every_message_endpoint_answers_400_50035(
    server: FakeDiscord, endpoint: str, bad: str
) -> None:
    # an interaction as the fake's own injection would register it (no bot needed here)
    server._tokens[TOKEN] = Token("1", 2, CHANNEL_ID, None)
    status, posted = request(server, "POST", f"/channels/{CHANNEL_ID}/messages", {"content": "x"})
    assert status == 200
    method, path, callback = ENDPOINTS[endpoint]
    path = path.format(message=posted["id"])
    body, upload, where = BAD_BODIES[bad]
    mark = server.mark()
    sent = {"type": 4, "data": body} if callback else body
    status, answer = request(server, method, path, sent, upload)
    assert (status, answer["code"], answer["message"]) == (400, 50035, "Invalid Form Body")
    errors = answer["errors"]
    for key in where:
        errors = errors[key]
    assert errors["_errors"]
    assert len(server.rejected(mark)) == 1


def test_a_command_sync_with_one_bad_command_is_refused_whole(server: FakeDiscord) -> None:
    good = {"name": "match", "description": "Matches", "type": 1}
    bad: JsonDict = {**good, "name": "show", "options": [
        {"type": 4, "name": "id", "description": "d", "min_value": 1, "max_value": 2**53}
    ]}  # fmt: skip
    path = f"/applications/{APPLICATION_ID}/guilds/1/commands"
    mark = server.mark()
    status, answer = request(server, "PUT", path, [good, bad])
    assert (status, answer["code"]) == (400, 50035)
    assert answer["errors"]["1"]["options"]["0"]["max_value"]["_errors"]
    assert server.of_kind("sync", mark) == []  # nothing registered, not even the good one
    bad["options"][0]["max_value"] = 2**53 - 1
    assert request(server, "PUT", path, [good, bad])[0] == 200
    assert [c["name"] for c in server.synced_commands()] == ["match", "show"]


def test_an_autocomplete_answer_of_26_choices_is_refused(server: FakeDiscord) -> None:
    server._tokens["token-auto"] = Token("2", 4, CHANNEL_ID, None)
    choices = [{"name": f"q{n}", "value": f"q{n}"} for n in range(26)]
    path = "/interactions/2/token-auto/callback"
    status, answer = request(server, "POST", path, {"type": 8, "data": {"choices": choices}})
    assert (status, answer["code"]) == (400, 50035)
    assert answer["errors"]["choices"]["_errors"]


def test_finding_8_a_bad_channel_or_overwrite_is_refused_400_50035_naming_the_field(
    server: FakeDiscord,
) -> None:
    """Issue 25 finding 8: under mypy, the fake's refusals of a channel or an overwrite were
    found built without their code, which broke its own 400 answer (a 500 instead)."""
    bad_channel = {"name": "x", "type": 7, "permission_overwrites": [{"id": "r", "type": 3}]}
    status, answer = request(server, "POST", f"/guilds/{GUILD_ID}/channels", bad_channel)
    assert (status, answer["code"]) == (400, 50035)
    assert answer["errors"]["type"]["_errors"][0]["code"] == "BASE_TYPE_CHOICES"
    assert set(answer["errors"]["permission_overwrites"]["0"]) == {"type", "id"}
    status, channel = request(server, "POST", f"/guilds/{GUILD_ID}/channels", {"name": "x"})
    assert status == 201
    path = f"/channels/{channel['id']}/permissions/{GUILD_ID}"
    status, answer = request(server, "PUT", path, {"type": 5, "allow": "0", "deny": "0"})
    assert (status, answer["code"]) == (400, 50035)
    assert answer["errors"]["type"]["_errors"][0]["code"] == "BASE_TYPE_CHOICES"
