"""config.toml (SPEC 6): every key checked, one clear line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Config, ConfigError, GuildSettings, load_config, parse_config

ROOT = Path(__file__).resolve().parents[1]


def test_example_config_loads_to_the_spec_values() -> None:
    config = load_config(ROOT / "config.example.toml")
    assert config.discord.token_env == "DISCORD_TOKEN"
    assert config.discord.sync == "global"
    assert config.database.path == "ladderbot.sqlite3"
    assert config.defaults == GuildSettings(
        t=120.0,
        game_mult=2.0,
        max_game_length=20.0,
        initial_rating=500.0,
        variant="p8",
        confirm="opponent",
        auto_confirm_hours=24,
        min_games=1,
    )
    assert (config.leaderboard.edit_seconds, config.leaderboard.page_size) == (60, 10)


def test_missing_keys_take_the_example_values() -> None:
    assert parse_config("") == Config(source="config.toml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[defaults]\nt = 'abc'",
            "config.toml: [defaults] t must be a number from 1 to 10,000, got 'abc'",
        ),
        ("[defaults]\nt = 0", "[defaults] t must be a number from 1 to 10,000, got 0"),
        (
            "[defaults]\ngame_mult = nan",
            "[defaults] game_mult must be a number from 0.01 to 1,000, got nan",
        ),
        (
            "[defaults]\nmax_game_length = 2000",
            "[defaults] max_game_length must be a number from 1 to 1,440",
        ),
        (
            "[defaults]\ninitial_rating = inf",
            "[defaults] initial_rating must be a number from -1,000,000 to 1,000,000",
        ),
        ("[defaults]\nvariant = 'p9'", "[defaults] variant must be one of p1, p2"),
        ("[defaults]\nconfirm = 'always'", "[defaults] confirm must be one of opponent, none"),
        (
            "[defaults]\nmin_games = 1.5",
            "[defaults] min_games must be a whole number from 0 to 1,000",
        ),
        (
            "[defaults]\nauto_confirm_hours = -1",
            "[defaults] auto_confirm_hours must be a number > 0 and <= 8,760",
        ),
        ("[defaults]\ntt = 1", "[defaults] tt is not a known key"),
        ("[leaderboard]\npage_size = 0", "[leaderboard] page_size must be a whole number from 1"),
        ("[leaderboard]\nedit_seconds = 'x'", "[leaderboard] edit_seconds must be a number >= 0"),
        ("[discord]\nsync = 12", '[discord] sync must be "global" or a guild id'),
        ("[discord]\ntoken_env = ''", "[discord] token_env must name an environment variable"),
        ("[database]\npath = 3", "[database] path must be a non-empty string"),
        ("[extra]\nx = 1", "unknown section [extra]"),
        ("database = 1", "database must be a [database] section"),
        ("[defaults\nt = 1", "not valid TOML"),
    ],
)
def test_invalid_config_is_one_line_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_config(text)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.toml")


def test_token_comes_from_the_named_environment_variable() -> None:
    config = parse_config("[discord]\ntoken_env = 'MY_TOKEN'")
    assert config.token({"MY_TOKEN": " secret "}) == "secret"
    with pytest.raises(ConfigError, match="MY_TOKEN, which is not set"):
        config.token({})
