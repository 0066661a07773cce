"""The configuration file (SPEC 6): TOML into frozen dataclasses, every key checked.

Keys left out take the values of config.example.toml; an unknown key, a wrong type or an
out-of-range value is a ConfigError whose one-line message names the file, section and key.
The guild-setting rules (GUILD_SETTING_RULES) also serve `/admin settings`, so a value the
config refuses is refused the same way there.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

from bot.ratings.ladder import DEFAULT_SETTINGS, MAX_MINUTES
from bot.ratings.variants import VARIANTS as VARIANT_TABLE

VARIANTS: Final = tuple(VARIANT_TABLE)
"""The performance-rating variants by name, p1…p8."""
CONFIRM_MODES: Final = ("opponent", "none")
MAX_PAGE_SIZE: Final = 25
"""Discord embeds hold at most 25 fields; a leaderboard page is one embed."""
SQLITE_URL: Final = "sqlite:///"
POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")
DATABASE_SCHEMES: Final = (SQLITE_URL, *POSTGRES_SCHEMES)
"""How a database URL starts (bot.storage.database opens each)."""


class ConfigError(Exception):
    """A missing or invalid config file or token; str() is one line naming the key."""


class SettingError(ValueError):
    """A value outside a setting's rule; the message says what the rule is."""


_Number = TypeVar("_Number", int, float)


DECIMAL: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A decimal number as written: ASCII digits only (SPEC 7: float() would also read
Arabic-Indic digits, '1_0' and ' 1 ')."""


def finite_number(value: Any) -> float:
    """A number, or a string of one (DECIMAL)."""
    text_or_number = (isinstance(value, str) and DECIMAL.fullmatch(value)) or isinstance(
        value, int | float
    )
    if isinstance(value, bool) or not text_or_number:
        raise SettingError("must be a number")
    try:
        number = float(value)
    except ValueError:
        raise SettingError("must be a number") from None
    except OverflowError:  # an integer beyond the float range
        raise SettingError("must be a finite number") from None
    if not math.isfinite(number):
        raise SettingError("must be a finite number")
    return number


def ascii_whole(text: str, low: int, high: int) -> int | None:
    """`text` as a whole number from `low` to `high` written in the ASCII digits 0-9 only
    (SPEC 7: int() would also read Arabic-Indic digits, ' 10', '+10', '1_0'); else None. One of
    thousands of digits is refused by its length, never converted."""
    digits = text.lstrip("0")
    if not (text.isascii() and text.isdigit()) or len(digits) > len(str(high)):
        return None
    number = int(digits or "0")
    return number if low <= number <= high else None


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


@dataclass(frozen=True, slots=True)
class Bound:
    """The accepted range of a number setting (SPEC 7): low <= x <= high, or low < x."""

    low: float
    high: float
    low_included: bool = True
    whole: bool = False

    def __contains__(self, number: float) -> bool:
        above = number >= self.low if self.low_included else number > self.low
        return above and number <= self.high

    @property
    def rule(self) -> str:
        kind = "a whole number" if self.whole else "a number"
        if self.low_included:
            return f"must be {kind} from {readable(self.low)} to {readable(self.high)}"
        return f"must be {kind} > {readable(self.low)} and <= {readable(self.high)}"

    def check(self, value: Any) -> float:
        """The value as a number within the bound, else SettingError stating the rule."""
        parse: Callable[[Any], float] = _integer if self.whole else finite_number
        return _bounded(parse, self.__contains__, self.rule)(value)


def readable(number: float) -> str:
    """10000 as 10,000 (as SPEC 7 writes the bounds), 0.01 as 0.01."""
    return f"{int(number):,}" if float(number).is_integer() else f"{number:g}"


SETTING_BOUNDS: Final[Mapping[str, Bound]] = {
    "t": Bound(1.0, 10_000.0),
    "game_mult": Bound(0.01, 1_000.0),
    "max_game_length": Bound(1.0, MAX_MINUTES),
    "initial_rating": Bound(-1e6, 1e6),
    "auto_confirm_hours": Bound(0.0, 8_760.0, low_included=False),
    "min_games": Bound(0, 1_000, whole=True),
    "provisional_games": Bound(0, 1_000, whole=True),
    "inactive_days": Bound(0, 3_650, whole=True),
    "rank_margin": Bound(0.0, 1e6),
    "no_show_minutes": Bound(0, 1_440, whole=True),
    "lobby_hours": Bound(1.0, 168.0),
    "room_grace_seconds": Bound(0, 3_600, whole=True),
}
"""The bounds of the guild settings that are numbers (SPEC 7); the ladder update is finite
for every match within them (tests/ratings/test_bounds.py checks it at the corners)."""

non_negative_number = _bounded(finite_number, lambda number: number >= 0, "must be a number >= 0")
page_size = Bound(1, MAX_PAGE_SIZE, whole=True).check


def one_of(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        text = value.strip().lower() if isinstance(value, str) else value
        if text not in choices:
            raise SettingError(f"must be one of {', '.join(choices)}")
        return str(text)

    return check


SHIPPED_LANGUAGES: Final = ("en-US", "de", "es-ES", "fr", "pt-BR", "ru")
"""SPEC 13: Discord's locale codes of the languages the bot ships, the source first."""
LANGUAGE_SETTINGS: Final = ("auto", *SHIPPED_LANGUAGES)


def language_code(value: Any) -> str:
    """A shipped language code in any letter case (`pt-br` is `pt-BR`), or `auto`."""
    text = value.strip() if isinstance(value, str) else value
    found = [
        code for code in LANGUAGE_SETTINGS if isinstance(text, str) and code.lower() == text.lower()
    ]
    if not found:
        raise SettingError(
            f"must be one of {', '.join(LANGUAGE_SETTINGS)}, not {str(value)[:40]!r}"
        )
    return found[0]


def true_or_false(value: Any) -> bool:
    """A yes/no setting: a boolean, or its words (true/false, yes/no, on/off, 1/0)."""
    if isinstance(value, bool):
        return value
    text = value.strip().lower() if isinstance(value, str) else None
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise SettingError("must be true or false")


def non_empty_text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SettingError("must be a non-empty string")
    return value


class SecretSettingError(SettingError):
    """A refused value that may be a secret: the message never quotes it."""


ENVIRONMENT_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def environment_variable_name(value: Any) -> str:
    """token_env: a name such as DISCORD_TOKEN. A pasted token is refused without echoing it."""
    if not isinstance(value, str) or not ENVIRONMENT_NAME.fullmatch(value):
        raise SecretSettingError(
            "must name an environment variable (letters, digits and _, such as DISCORD_TOKEN) "
            "that holds the token, not the token itself"
        )
    return value


def sync_target(value: Any) -> str:
    guild_id = isinstance(value, str) and value.isascii() and value.isdigit()
    if not isinstance(value, str) or not (value == "global" or guild_id):
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
    provisional_games: int = 5
    inactive_days: int = 0
    """SPEC 9.3: days without an applied match after which a member is inactive (0: off)."""
    rank_margin: float = 25.0
    """SPEC 9.2: a rank role is kept until the rating falls below min_rating - rank_margin."""
    no_show_minutes: int = 0
    """SPEC 10.2: minutes a member who let a ready check lapse cannot join a queue (0: off)."""
    lobby_hours: float = 3.0
    """SPEC 10.3: a lobby with no result after this many hours is cancelled."""
    room_grace_seconds: int = 120
    """SPEC 10.5: a closed lobby's room is deleted this long after it closed."""
    web: bool = False
    """SPEC 11.1: the guild's standings are shown on the web pages and the read API."""
    language: str = "auto"
    """SPEC 13: the language of what many see (a shipped code; auto: the server's locale)."""

    def changed(self, changes: Mapping[str, Any]) -> GuildSettings:
        """A copy with the changes checked by the setting rules (SettingError names the key)."""
        return replace(self, **check_section(GUILD_SETTING_RULES, changes))


GUILD_SETTING_RULES: Final[Mapping[str, Callable[[Any], Any]]] = {
    **{name: bound.check for name, bound in SETTING_BOUNDS.items()},
    "variant": one_of(*VARIANTS),
    "confirm": one_of(*CONFIRM_MODES),
    "web": true_or_false,
    "language": language_code,
}
RATING_CONSTANTS: Final = frozenset({"t", "game_mult", "max_game_length", "initial_rating"})
"""Settings whose change replays the guild (SPEC 2.5)."""


shard_count = _bounded(_integer, lambda number: number >= 1, "must be a whole number >= 1")


SHARD_IDS_RULE: Final = "must be a non-empty list of distinct whole numbers >= 0"
_shard_id = _bounded(_integer, lambda number: number >= 0, SHARD_IDS_RULE)


def shard_ids(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise SettingError(SHARD_IDS_RULE)
    ids = tuple(_shard_id(item) for item in value)
    if len(set(ids)) != len(ids):
        raise SettingError(SHARD_IDS_RULE)
    return ids


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard whose gateway connection carries the guild's events (Discord's rule)."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class DiscordConfig:
    """shard_count and shard_ids (SPEC 8.4) come together: this process runs those shards of
    shard_count; both None, it runs unsharded and owns every guild."""

    token_env: str = "DISCORD_TOKEN"
    sync: str = "global"
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        count, ids = self.shard_count, self.shard_ids
        if count is None and ids is None:
            return
        if ids is None:
            raise KeyedSettingError(
                "shard_ids", "must be given with shard_count: the shards to run"
            )
        if count is None:
            raise KeyedSettingError("shard_count", "must be given with shard_ids: shards in all")
        if any(shard >= count for shard in ids):
            raise KeyedSettingError(
                "shard_ids",
                f"must be shard numbers from 0 to {count - 1} (shard_count {count}), "
                f"got {list(ids)!r}",
            )

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process does the guild's scheduled work: its shard is one of ours."""
        if self.shard_count is None or self.shard_ids is None:
            return True
        return shard_of(guild_id, self.shard_count) in self.shard_ids


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


def web_address(value: Any) -> str:
    """public_url: where users reach the web pages, http(s)://host[:port][/path]."""
    text = non_empty_text(value).strip().rstrip("/")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise SettingError(
            "must be an http:// or https:// address such as https://ladder.example.org"
        )
    return text


port_number = Bound(1, 65_535, whole=True).check
connection_limit = Bound(1, 100_000, whole=True).check
MAX_FRAME_ANCESTORS: Final = 32
FRAME_ANCESTORS_RULE: Final = (
    f"must be a list of at most {MAX_FRAME_ANCESTORS} origins such as "
    '"https://example.org" or "https://*.example.org" (scheme and host, no path)'
)
ORIGIN_HOST: Final = re.compile(r"(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?")


def frame_ancestors(value: Any) -> tuple[str, ...]:
    """The origins allowed to embed the pages (CSP frame-ancestors); none by default."""
    if not isinstance(value, list) or len(value) > MAX_FRAME_ANCESTORS:
        raise SettingError(FRAME_ANCESTORS_RULE)
    origins = []
    for item in value:
        scheme, separator, host = item.partition("://") if isinstance(item, str) else ("", "", "")
        if scheme not in ("http", "https") or not separator or not ORIGIN_HOST.fullmatch(host):
            raise SettingError(f"{FRAME_ANCESTORS_RULE}; {item!r} is not one")
        origins.append(f"{scheme}://{host.lower()}")
    return tuple(dict.fromkeys(origins))


@dataclass(frozen=True, slots=True)
class WebConfig:
    """SPEC 11.1: the web pages and read API; `enabled` serves them from the bot process
    too (`ladderbot web` serves them whatever it says)."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 8080
    public_url: str | None = None
    max_connections: int = 1000
    """Open connections at once; one past that is closed at once (SPEC 11.1)."""
    frame_ancestors: tuple[str, ...] = ()
    """Origins whose pages may embed ours in a frame (none: no one may)."""

    def guild_address(self, guild_id: int) -> str:
        """The guild's leaderboard page, absolute when public_url is set."""
        return f"{self.public_url or ''}/g/{guild_id}"


@dataclass(frozen=True, slots=True)
class WebhooksConfig:
    """SPEC 14: `allow_private` lets webhooks reach loopback, private and link-local
    addresses, and http (tests, receivers inside one's own network)."""

    allow_private: bool = False


@dataclass(frozen=True, slots=True)
class Config:
    discord: DiscordConfig = field(default_factory=DiscordConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    defaults: GuildSettings = field(default_factory=GuildSettings)
    leaderboard: LeaderboardConfig = field(default_factory=LeaderboardConfig)
    web: WebConfig = field(default_factory=WebConfig)
    webhooks: WebhooksConfig = field(default_factory=WebhooksConfig)
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
    "discord": (
        DiscordConfig,
        {
            "token_env": environment_variable_name,
            "sync": sync_target,
            "shard_count": shard_count,
            "shard_ids": shard_ids,
        },
    ),
    "database": (
        DatabaseConfig,
        {"path": non_empty_text, "url": database_url, "password_env": environment_variable_name},
    ),
    "defaults": (GuildSettings, GUILD_SETTING_RULES),
    "leaderboard": (
        LeaderboardConfig,
        {"edit_seconds": non_negative_number, "page_size": page_size},
    ),
    "web": (
        WebConfig,
        {
            "enabled": true_or_false,
            "host": non_empty_text,
            "port": port_number,
            "public_url": web_address,
            "max_connections": connection_limit,
            "frame_ancestors": frame_ancestors,
        },
    ),
    "webhooks": (WebhooksConfig, {"allow_private": true_or_false}),
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
        except SecretSettingError as error:
            raise KeyedSettingError(key, str(error)) from None
        except SettingError as error:
            raise KeyedSettingError(key, f"{error}, got {value!r}") from None
    return checked


def parse_config(text: str, source: str = "config.toml", folder: Path | None = None) -> Config:
    """Config from TOML text; ConfigError names the file, section and key at fault. With
    `folder` (the config file's), relative paths in it are taken relative to that folder."""
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
    config = Config(**sections, source=source)
    if folder is None:
        return config
    database = config.database
    url = database.url
    if url is not None and url.startswith(SQLITE_URL):
        url = SQLITE_URL + in_folder(folder, url[len(SQLITE_URL) :])
    path = in_folder(folder, database.path)
    return replace(config, database=replace(database, path=path, url=url))


NOT_FILE_PATHS: Final = (":memory:", "file:")
"""What names no file (the database refuses it with its own message): left as written."""


def in_folder(folder: Path, path: str) -> str:
    """A path of the config file as the program opens it: a relative one is relative to the
    config file's folder (SPEC 6), never to the shell's current folder."""
    if Path(path).is_absolute() or path == "-" or path.startswith(NOT_FILE_PATHS):
        return path
    return str(folder / path)


WEB_HOST_ENV: Final = "LADDERBOT_WEB_HOST"
"""Replaces [web] host when set: a container image sets it to 0.0.0.0, since inside a
container 127.0.0.1 is unreachable from outside."""


def load_config(path: str | Path, environ: Mapping[str, str] = os.environ) -> Config:
    """Read and check the config file; a missing or unreadable file is a ConfigError."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: config file not found (copy config.example.toml to {path})"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the config file: {error}") from None
    return with_environment(parse_config(text, str(path), Path(path).absolute().parent), environ)


def with_environment(config: Config, environ: Mapping[str, str] = os.environ) -> Config:
    """The config with what the environment replaces (WEB_HOST_ENV)."""
    host = environ.get(WEB_HOST_ENV, "").strip()
    return replace(config, web=replace(config.web, host=host)) if host else config


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
    "WebConfig",
    "WebhooksConfig",
    "load_config",
    "parse_config",
    "shard_of",
    "with_environment",
]
