"""The receiver of docs/webhooks.md, run as written (its secret and port filled in), checks
the signature of a real delivery: 204 with the webhook's secret, 401 with another's (the
bot records each answer as the webhook's last delivery status)."""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

from bot.app.webhook_posts import HttpPoster
from bot.config import GuildSettings
from bot.services import Actor, ServiceContext, Services
from bot.services.delivery import Timing, WebhookDelivery
from bot.storage import Database

DOC = Path(__file__).resolve().parents[1] / "docs" / "webhooks.md"
MOD = Actor(1, is_moderator=True)
GUILD = 5


def receiver_code() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## A receiver") :]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_documented_receiver_is_ten_lines_of_the_standard_library() -> None:
    code = receiver_code()
    lines = [
        line for line in code.splitlines() if line.strip() and not line.strip().startswith("#")
    ]
    assert len(lines) == 10
    imported = re.findall(r"^import (.*)$", code, re.M)
    assert imported == ["hmac, http.server"]


async def test_the_documented_receiver_verifies_a_real_signed_delivery(tmp_path: Path) -> None:
    port = free_port()
    db = await Database.open(tmp_path / "docs.sqlite3")
    services = Services.build(ServiceContext(db, GuildSettings()), allow_private=True)
    url = f"http://127.0.0.1:{port}/ladder"
    right = await services.webhooks.add(GUILD, MOD, url)
    await services.webhooks.add(GUILD, MOD, url)  # another secret: its signatures fail
    code = receiver_code().replace("the secret that webhook add printed", right.secret)
    code = code.replace("8000", str(port))
    process = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.DEVNULL)
    delivery = WebhookDelivery(
        services.context, HttpPoster, allow_private=True, timing=Timing(timeout=5, first_wait=30)
    )
    try:
        for _ in range(500):  # until it listens
            try:
                socket.create_connection(("127.0.0.1", port), 0.1).close()
                break
            except OSError:
                time.sleep(0.01)
        await services.seasons.start(GUILD, MOD, "Documented")
        await delivery.start()
        await delivery.catch_up()
        async with asyncio.timeout(30):
            while not all(hook.last_status for hook in await services.webhooks.list(GUILD)):
                await asyncio.sleep(0.02)
        statuses = [hook.last_status for hook in await services.webhooks.list(GUILD)]
        assert statuses == ["204", "401"]
    finally:
        process.kill()
        process.wait()
        await delivery.stop()
        await services.close()
