"""The example deployment (docs/deployment.md): its bot configs load and their shards cover
0 to N-1 once each, on one PostgreSQL database."""

from __future__ import annotations

import re
from pathlib import Path

from bot.config import WEB_HOST_ENV, load_config

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def test_the_example_processes_share_one_database_and_split_the_shards() -> None:
    configs = [load_config(path) for path in sorted(DEPLOY.glob("shard*.toml"))]
    assert len(configs) == 2
    counts = {config.discord.shard_count for config in configs}
    assert counts == {2}
    shards = sorted(shard for config in configs for shard in config.discord.shard_ids or ())
    assert shards == [0, 1]
    environ = {"LADDERBOT_DB_PASSWORD": "secret"}
    locations = {config.database.location(environ) for config in configs}
    assert locations == {"postgresql://ladderbot:secret@postgres:5432/ladderbot"}
    compose = (DEPLOY.parent / "docker-compose.yml").read_text(encoding="utf-8")
    for path in sorted(DEPLOY.glob("shard*.toml")):
        assert f"./deploy/{path.name}:/config/ladderbot.toml:ro" in compose


DOCKERFILE = DEPLOY.parent / "Dockerfile"


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions (continuation lines joined, comments left out)."""
    text = DOCKERFILE.read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    words = [line.split(None, 1) for line in lines if line and not line.startswith("#")]
    return [(word[0].upper(), word[1] if len(word) > 1 else "") for word in words]


def test_finding_13_docker_image_is_pinned_reachable_and_owns_its_data_folder() -> None:
    instructions = _instructions()
    base = [argument for name, argument in instructions if name == "FROM"]
    assert len(base) == 1 and re.fullmatch(r"python:3\.\d+\.\d+-slim-bookworm", base[0]), base
    assert ("EXPOSE", "8080") in instructions
    environment = " ".join(argument for name, argument in instructions if name == "ENV")
    assert f"{WEB_HOST_ENV}=0.0.0.0" in environment.split()
    run = " ".join(argument for name, argument in instructions if name == "RUN")
    assert "--gid 10001" in run and "--uid 10001 --gid 10001" in run
    assert "chown 10001:10001 /data" in run
    assert [argument for name, argument in instructions if name == "USER"] == ["10001:10001"]
    assert ("WORKDIR", "/data") in instructions and ("VOLUME", '["/data"]') in instructions
    port = load_config(DEPLOY.parent / "config.example.toml").web.port
    assert port == 8080  # what EXPOSE says


def test_finding_9_docker_image_has_fonts_for_cjk_and_emoji_names() -> None:
    run = " ".join(argument for name, argument in _instructions() if name == "RUN").split()
    assert {"fonts-noto-cjk", "fonts-noto-color-emoji", "fonts-symbola"} <= set(run)


def test_the_image_listens_on_every_interface_whatever_the_config_says(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[web]\nhost = "127.0.0.1"\n', encoding="utf-8")
    assert load_config(config, {WEB_HOST_ENV: "0.0.0.0"}).web.host == "0.0.0.0"
    assert load_config(config, {}).web.host == "127.0.0.1"


def test_the_compose_web_service_publishes_the_port_the_image_exposes() -> None:
    compose = (DEPLOY.parent / "docker-compose.yml").read_text(encoding="utf-8")
    web = compose.partition("\n  web:")[2].partition("\n\n")[0]
    assert 'command: ["web", ' in web and '- "8080:8080"' in web, web
