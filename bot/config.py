"""The configuration file (SPEC 6): TOML into frozen dataclasses, every key checked.

Keys left out take the values of config.example.toml; an unknown key, a wrong type or an
out-of-range value is a ConfigError whose one-line message names the file, section and key.
The guild-setting rules (GUILD_SETTING_RULES) also serve `/admin settings`, so a value the
config refuses is refused the same way there.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

from bot.ratings.ladder import DEFAULT_SETTINGS, MAX_MINUTES, valid_minutes
from bot.ratings.variants import VARIANTS as VARIANT_TABLE

VARIANTS: Final = tuple(VARIANT_TABLE)
"""The performance-rating variants by name, p1…p8."""
CONFIRM_MODES: Final = ("opponent", "none")
MAX_PAGE_SIZE: Final = 25
DATABASE_SCHEMES: Final = ("sqlite:///", "postgresql://", "postgres://")
"""Discord embeds hold at most 25 fields; a leaderboard page is one embed."""


class ConfigError(Exception):
    """A missing or invalid config file or token; str() is one line naming the key."""


class SettingError(ValueError):
    """A value outside a setting's rule; the message says what the rule is."""


_Number = TypeVar("_Number", int, float)


def finite_number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise SettingError("must be a number") from None
        else:
            raise SettingError("must be a number")
    number = float(value)
    if not math.isfinite(number):
        raise SettingError("must be a finite number")
    return number


def _integer(value: Any) -> int:
    number = finite_number(value)
    if not number.is_integer():
        raise SettingError("must be a whole number")
    return int(number)


def _bounded(
    parse: Callable[[Any], _Number], within: Callable[[_Number], Any], rule: str
) -> Callable[[Any], _Number]:
    """A setting rule: `parse` the value, then `within` must hold; either failing says
    `rule`, so the message names the whole rule whatever was wrong."""

    def check(value: Any) -> _Number:
        try:
            number = parse(value)
        except SettingError:
            raise SettingError(rule) from None
        if not within(number):
            raise SettingError(rule)
        return number

    return check


positive_number = _bounded(finite_number, lambda number: number > 0, "must be a number > 0")
game_length = _bounded(
    finite_number, valid_minutes, f"must be a number of minutes > 0 and <= {MAX_MINUTES:g}"
)
non_negative_number = _bounded(finite_number, lambda number: number >= 0, "must be a number >= 0")
non_negative_integer = _bounded(_integer, lambda number: number >= 0, "must be a whole number >= 0")
page_size = _bounded(
    _integer,
    lambda number: 1 <= number <= MAX_PAGE_SIZE,
    f"must be a whole number from 1 to {MAX_PAGE_SIZE}",
)


def one_of(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        text = value.strip().lower() if isinstance(value, str) else value
        if text not in choices:
            raise SettingError(f"must be one of {', '.join(choices)}")
        return str(text)

    return check


def non_empty_text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SettingError("must be a non-empty string")
    return value


def sync_target(value: Any) -> str:
    if not isinstance(value, str) or not (value == "global" or value.isdigit()):
        raise SettingError('must be "global" or a guild id as a string of digits')
    return value


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """One guild's settings (SPEC 2.1 and 4); [defaults] gives every new guild its copy."""

    t: float = DEFAULT_SETTINGS.t
    game_mult: float = DEFAULT_SETTINGS.game_mult
    max_game_length: float = DEFAULT_SETTINGS.max_game_length
    initial_rating: float = DEFAULT_SETTINGS.initial_rating
    variant: str = "p8"
    confirm: str = "opponent"
    auto_confirm_hours: float = 24.0
    min_games: int = 1

    def changed(self, changes: Mapping[str, Any]) -> GuildSettings:
        """A copy with the changes checked by the setting rules (SettingError names the key)."""
        return replace(self, **check_section(GUILD_SETTING_RULES, changes))


GUILD_SETTING_RULES: Final[Mapping[str, Callable[[Any], Any]]] = {
    "t": positive_number,
    "game_mult": positive_number,
    "max_game_length": game_length,
    "initial_rating": finite_number,
    "variant": one_of(*VARIANTS),
    "confirm": one_of(*CONFIRM_MODES),
    "auto_confirm_hours": positive_number,
    "min_games": non_negative_integer,
}
RATING_CONSTANTS: Final = frozenset({"t", "game_mult", "max_game_length", "initial_rating"})
"""Settings whose change replays the guild (SPEC 2.5)."""


@dataclass(frozen=True, slots=True)
class DiscordConfig:
    token_env: str = "DISCORD_TOKEN"
    sync: str = "global"


@dataclass(frozen=True, slots=True)
class DatabaseConfig:
    """SPEC 8.1: `url` names the database (sqlite:///path or postgresql://...), its password
    optionally in the environment variable `password_env`; the older `path` a SQLite file."""

    path: str = "ladderbot.sqlite3"
    url: str | None = None
    password_env: str | None = None

    def location(self, environ: Mapping[str, str] = os.environ) -> str:
        """The database to open: `url` (with the password from password_env), else `path`."""
        if self.url is None:
            return self.path
        if self.password_env is None:
            return self.url
        password = environ.get(self.password_env, "")
        if not password:
            raise ConfigError(
                f"[database] password_env names the environment variable {self.password_env}, "
                "which is not set: export the database password in it"
            )
        parts = urlsplit(self.url)
        user = parts.username or ""
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit(parts._replace(netloc=f"{user}:{quote(password, safe='')}@{host}"))


def database_url(value: Any) -> str:
    text = non_empty_text(value)
    if not text.startswith(DATABASE_SCHEMES):
        raise SettingError(f"must start with {' or '.join(DATABASE_SCHEMES)}")
    return text


@dataclass(frozen=True, slots=True)
class LeaderboardConfig:
    edit_seconds: float = 60.0
    page_size: int = 10


@dataclass(frozen=True, slots=True)
class Config:
    discord: DiscordConfig = field(default_factory=DiscordConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    defaults: GuildSettings = field(default_factory=GuildSettings)
    leaderboard: LeaderboardConfig = field(default_factory=LeaderboardConfig)
    source: str = "config.toml"

    def token(self, environ: Mapping[str, str] = os.environ) -> str:
        """The bot token from the environment variable [discord] token_env names."""
        name = self.discord.token_env
        token = environ.get(name, "").strip()
        if not token:
            raise ConfigError(
                f"{self.source}: [discord] token_env names the environment variable {name}, "
                "which is not set: export the bot token in it"
            )
        return token


SECTION_RULES: Final[Mapping[str, tuple[type, Mapping[str, Callable[[Any], Any]]]]] = {
    "discord": (DiscordConfig, {"token_env": non_empty_text, "sync": sync_target}),
    "database": (
        DatabaseConfig,
        {"path": non_empty_text, "url": database_url, "password_env": non_empty_text},
    ),
    "defaults": (GuildSettings, GUILD_SETTING_RULES),
    "leaderboard": (
        LeaderboardConfig,
        {"edit_seconds": non_negative_number, "page_size": page_size},
    ),
}


class KeyedSettingError(SettingError):
    """A SettingError that knows which key it is about."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def check_section(
    rules: Mapping[str, Callable[[Any], Any]], values: Mapping[str, Any]
) -> dict[str, Any]:
    """Check every key; an unknown key or a bad value raises KeyedSettingError naming it."""
    checked = {}
    for key, value in values.items():
        rule = rules.get(key)
        if rule is None:
            raise KeyedSettingError(key, f"is not a known key (known: {', '.join(rules)})")
        try:
            checked[key] = rule(value)
        except SettingError as error:
            raise KeyedSettingError(key, f"{error}, got {value!r}") from None
    return checked


def parse_config(text: str, source: str = "config.toml") -> Config:
    """Config from TOML text; ConfigError names the file, section and key at fault."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not valid TOML: {error}") from None
    sections: dict[str, Any] = {}
    for name, content in document.items():
        if name not in SECTION_RULES:
            raise ConfigError(
                f"{source}: unknown section [{name}] (known: {', '.join(SECTION_RULES)})"
            )
        if not isinstance(content, dict):
            raise ConfigError(f"{source}: {name} must be a [{name}] section")
        kind, rules = SECTION_RULES[name]
        try:
            sections[name] = kind(**check_section(rules, content))
        except KeyedSettingError as error:
            raise ConfigError(f"{source}: [{name}] {error.key} {error}") from None
    return Config(**sections, source=source)


def load_config(path: str | Path) -> Config:
    """Read and check the config file; a missing or unreadable file is a ConfigError."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: config file not found (copy config.example.toml to {path})"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the config file: {error}") from None
    return parse_config(text, str(path))


__all__ = [
    "GUILD_SETTING_RULES",
    "RATING_CONSTANTS",
    "VARIANTS",
    "Config",
    "ConfigError",
    "DatabaseConfig",
    "DiscordConfig",
    "GuildSettings",
    "KeyedSettingError",
    "LeaderboardConfig",
    "SettingError",
    "load_config",
    "parse_config",
]
