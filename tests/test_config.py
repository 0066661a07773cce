"""config.toml (SPEC 6): every key checked, one clear line naming the key."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.config import (
    SETTING_BOUNDS,
    Config,
    ConfigError,
    GuildSettings,
    load_config,
    parse_config,
)

ROOT = Path(__file__).resolve().parents[1]


def test_example_config_loads_to_the_spec_values() -> None:
    config = load_config(ROOT / "config.example.toml")
    assert config.discord.token_env == "DISCORD_TOKEN"
    assert config.discord.sync == "global"
    assert config.database.location() == f"sqlite:///{ROOT / 'ladderbot.sqlite3'}"
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


def test_a_token_pasted_into_token_env_is_never_echoed() -> None:
    token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"
    with pytest.raises(ConfigError) as error:
        parse_config(f"[discord]\ntoken_env = '{token}'")
    message = str(error.value)
    assert "[discord] token_env must name an environment variable" in message
    assert token not in message and "GhIjKl" not in message


@pytest.mark.parametrize(
    ("key", "low", "high", "below", "above", "rule"),
    [
        ("t", 1, 10_000, 0.999, 10_000.5, "a number from 1 to 10,000"),
        ("game_mult", 0.01, 1_000, 0.0099, 1_000.5, "a number from 0.01 to 1,000"),
        ("max_game_length", 1, 1_440, 0.5, 1_441, "a number from 1 to 1,440"),
        (
            "initial_rating",
            -1e6,
            1e6,
            -1e6 - 1,
            1e300,
            "a number from -1,000,000 to 1,000,000",
        ),
        ("auto_confirm_hours", 1e-9, 8_760, 0, 1e9, "a number > 0 and <= 8,760"),
        ("min_games", 0, 1_000, -1, 10**9, "a whole number from 0 to 1,000"),
        ("no_show_minutes", 0, 1_440, -1, 1_441, "a whole number from 0 to 1,440"),  # SPEC 10.2
        ("lobby_hours", 1, 168, 0.999, 168.5, "a number from 1 to 168"),  # SPEC 10.3
        ("room_grace_seconds", 0, 3_600, -1, 3_601, "a whole number from 0 to 3,600"),  # 10.5
    ],
)
def test_defaults_are_held_to_the_spec_7_bounds(
    key: str, low: float, high: float, below: float, above: float, rule: str
) -> None:
    for value in (low, high):
        assert getattr(parse_config(f"[defaults]\n{key} = {value!r}").defaults, key) == value
    for value in (below, above):
        with pytest.raises(ConfigError) as error:
            parse_config(f"[defaults]\n{key} = {value!r}")
        assert str(error.value) == f"config.toml: [defaults] {key} must be {rule}, got {value!r}"


def test_a_huge_toml_integer_or_unicode_digits_are_one_line() -> None:
    with pytest.raises(ConfigError, match=r"\[defaults\] t must be a number from 1 to 10,000"):
        parse_config("[defaults]\nt = " + "9" * 400)
    with pytest.raises(ConfigError, match=r"\[defaults\] t must be a number from 1 to 10,000"):
        parse_config("[defaults]\nt = '\u0661\u0662'")
    with pytest.raises(ConfigError, match=r'\[discord\] sync must be "global" or a guild id'):
        parse_config("[discord]\nsync = '\u0661\u0662'")


TOML_VALUES = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.floats().map(repr),
    st.text(max_size=8).map(json.dumps),
    st.sampled_from(["true", "[]", "{}", "1e400", "-0.0", "0.01", "8760", "1000"]),
)


@settings(max_examples=200, deadline=None)
@given(values=st.dictionaries(st.sampled_from(sorted(SETTING_BOUNDS)), TOML_VALUES, max_size=4))
def test_fuzz_defaults_are_within_the_bounds_or_refused_in_one_line(
    values: dict[str, str],
) -> None:
    text = "[defaults]\n" + "".join(f"{key} = {value}\n" for key, value in values.items())
    try:
        defaults = parse_config(text).defaults
    except ConfigError as error:
        assert "\n" not in str(error)
        assert re.fullmatch(
            r"config\.toml: (not valid TOML: .*|\[defaults\] \w+ must be .*)", str(error)
        )
        return
    for key, bound in SETTING_BOUNDS.items():
        value = getattr(defaults, key)
        assert math.isfinite(value) and value in bound
        assert isinstance(value, int) or not bound.whole
