"""[discord] shard_count and shard_ids (SPEC 6, 8.4): both or neither, checked at start."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.app.run import EXIT_BAD_SETUP, run_bot
from bot.config import ConfigError, DiscordConfig, parse_config, shard_of

GUILD_IDS = st.integers(min_value=1, max_value=2**63 - 1)


def test_both_left_out_runs_unsharded_and_owns_every_guild() -> None:
    discord = parse_config("[discord]\nsync = 'global'").discord
    assert (discord.shard_count, discord.shard_ids) == (None, None)
    assert discord.owns_guild(123 << 22) and discord.owns_guild(1)


def test_both_given_are_read() -> None:
    discord = parse_config("[discord]\nshard_count = 4\nshard_ids = [3, 1]").discord
    assert (discord.shard_count, discord.shard_ids) == (4, (3, 1))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("shard_count = 2", "[discord] shard_ids must be given with shard_count"),
        ("shard_ids = [0]", "[discord] shard_count must be given with shard_ids"),
        (
            "shard_count = 2\nshard_ids = [0, 2]",
            "[discord] shard_ids must be shard numbers from 0 to 1 (shard_count 2), got [0, 2]",
        ),
        ("shard_count = 2\nshard_ids = [-1]", "[discord] shard_ids must be a non-empty list"),
        ("shard_count = 2\nshard_ids = [1, 1]", "distinct whole numbers >= 0, got [1, 1]"),
        ("shard_count = 2\nshard_ids = []", "[discord] shard_ids must be a non-empty list"),
        ("shard_count = 2\nshard_ids = 1", "[discord] shard_ids must be a non-empty list"),
        ("shard_count = 2\nshard_ids = [0.5]", "[discord] shard_ids must be a non-empty list"),
        ("shard_count = 2\nshard_ids = ['a']", "[discord] shard_ids must be a non-empty list"),
        ("shard_count = 0\nshard_ids = [0]", "[discord] shard_count must be a whole number >= 1"),
        ("shard_count = 1.5\nshard_ids = [0]", "[discord] shard_count must be a whole number"),
        ("shard_count = true\nshard_ids = [0]", "[discord] shard_count must be a whole number"),
        ("shard_count = 'two'\nshard_ids = [0]", "[discord] shard_count must be a whole number"),
    ],
)
def test_bad_shards_are_one_line_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_config(f"[discord]\n{text}")
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_bad_shards_stop_the_bot_at_start_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[discord]\nshard_count = 2\nshard_ids = [2]\n", encoding="utf-8")
    assert run_bot(str(config)) == EXIT_BAD_SETUP
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "[discord] shard_ids must be shard numbers from 0 to 1" in error
    assert not (tmp_path / "ladderbot.sqlite3").exists()


@given(GUILD_IDS, st.integers(min_value=1, max_value=64))
def test_every_guild_is_owned_by_exactly_one_process_of_a_split(
    guild_id: int, shard_count: int
) -> None:
    processes = [
        DiscordConfig(shard_count=shard_count, shard_ids=(shard,)) for shard in range(shard_count)
    ]
    owners = [shard for shard, process in enumerate(processes) if process.owns_guild(guild_id)]
    assert owners == [shard_of(guild_id, shard_count)]


@given(GUILD_IDS)
def test_the_shard_is_discords_rule_on_the_snowflake_timestamp(guild_id: int) -> None:
    # The low 22 bits (worker, process, increment) never move a guild to another shard.
    assert shard_of(guild_id, 2) == shard_of(guild_id ^ ((1 << 22) - 1), 2)
    assert shard_of(guild_id, 1) == 0
    assert shard_of((5 << 22) | 12345, 3) == 2
