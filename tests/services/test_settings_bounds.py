"""SPEC 7 for `/admin settings` (Settings.change, issue 8 item 8): a change within the
bounds is stored and the ratings replayed stay finite; one outside them is refused in one
line and changes nothing, the performance cache included."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from bot.config import SETTING_BOUNDS, Bound, Config
from bot.services import Actor, Services, UserError
from tests.services.invariants import assert_log_is_truth
from tests.test_cli_lineup import GUILD, dump, seeded

MOD = Actor(999, is_moderator=True)


async def change(path: Path, changes: dict[str, object]) -> None:
    """Apply the changes; either they are stored and the log is still the truth, or they
    are refused with one line and nothing changed."""
    before = dump(path)
    services = await Services.open(path, Config())
    try:
        try:
            result = await services.settings.change(GUILD, MOD, changes)
        except UserError as error:
            assert str(error).startswith("setting ") and "\n" not in str(error)
            assert dump(path) == before
            raise
        for key, bound in SETTING_BOUNDS.items():
            assert getattr(result.settings, key) in bound
        assert await services.settings.current(GUILD) == result.settings
        await assert_log_is_truth(services, GUILD)
        for member in await services.context.db.read.members(GUILD):
            assert member.rating is None or math.isfinite(member.rating)
    finally:
        await services.close()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"t": 1e-9}, "setting t: must be a number from 1 to 10,000, got 1e-09"),
        ({"t": 1e15}, "setting t: must be a number from 1 to 10,000, got 1000000000000000.0"),
        ({"game_mult": 1e15}, "setting game_mult: must be a number from 0.01 to 1,000"),
        ({"initial_rating": 1e300}, "setting initial_rating: must be a number from -1,000,000"),
        ({"min_games": 10**9}, "setting min_games: must be a whole number from 0 to 1,000"),
        ({"auto_confirm_hours": 1e9}, "setting auto_confirm_hours: must be a number > 0 and"),
        ({"max_game_length": 0.5}, "setting max_game_length: must be a number from 1 to 1,440"),
    ],
)
def test_admin_settings_refuses_the_values_that_made_300_digit_ratings(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    db = seeded(tmp_path / "settings.sqlite3")
    with pytest.raises(UserError) as refused:
        asyncio.run(change(db, changes))
    assert str(refused.value).startswith(message)


def lowest(bound: Bound) -> float:
    return bound.low if bound.low_included else math.nextafter(bound.low, math.inf)


def test_settings_at_their_bounds_are_applied_with_finite_ratings(tmp_path: Path) -> None:
    db = seeded(tmp_path / "settings.sqlite3")
    asyncio.run(change(db, {key: lowest(bound) for key, bound in SETTING_BOUNDS.items()}))
    asyncio.run(change(db, {key: bound.high for key, bound in SETTING_BOUNDS.items()}))


def setting_values(key: str) -> st.SearchStrategy[object]:
    bound = SETTING_BOUNDS[key]
    return st.one_of(
        st.sampled_from([bound.low, bound.high, math.nan, math.inf, "1", "\u0661", None, True]),
        st.floats(bound.low, bound.high),
        st.floats(bound.low - 1, bound.high + 1),
        st.integers(-(10**20), 10**20),
        st.floats(),
    )


@pytest.fixture(scope="module")
def fuzz_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return seeded(tmp_path_factory.mktemp("settings") / "fuzz.sqlite3")


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(), keys=st.sets(st.sampled_from(sorted(SETTING_BOUNDS)), min_size=1, max_size=2)
)
def test_fuzz_settings_are_applied_within_the_bounds_or_refused_changing_nothing(
    fuzz_db: Path, data: st.DataObject, keys: set[str]
) -> None:
    changes = {key: data.draw(setting_values(key), label=key) for key in sorted(keys)}
    try:
        asyncio.run(change(fuzz_db, changes))
    except UserError:  # change() checked the message and the unchanged database
        event("refused")
    else:
        event("applied")
