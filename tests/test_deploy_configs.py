"""The example deployment (README "Deploy"): its bot configs load and their shards cover
0 to N-1 once each, on one PostgreSQL database."""

from __future__ import annotations

from pathlib import Path

from bot.config import load_config

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
