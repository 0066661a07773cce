"""Numbers in each shipped language are written as Babel writes them, to the character."""

from __future__ import annotations

import numpy as np
import pytest
from babel.numbers import format_decimal
from hypothesis import given
from hypothesis import strategies as st

from bot.present.language import SHIPPED, words

PLACES = st.integers(min_value=0, max_value=4)
NUMBERS = st.floats(min_value=-1e12, max_value=1e12) | st.sampled_from(
    [0.0, -0.0, 2.675, 0.125, -0.05, 999.95, -999.95, 1234.5, 5e-324]
)
"""Up to 1e12 (Babel's own quantize refuses some numbers past 10^(28 - places))."""


def _assert_written_as_babel(language: str, value: float, places: int) -> None:
    """decimal and signed in `language` equal Babel's output for the same pattern (signed:
    a + before a positive number)."""
    said = words(language)
    pattern = "#,##0" + ("." + "0" * places if places else "")
    assert said.decimal(value, places) == format_decimal(value, format=pattern, locale=said.locale)
    assert said.signed(value, places) == format_decimal(
        value, format=f"+{pattern};-{pattern}", locale=said.locale
    )


@pytest.mark.parametrize("language", SHIPPED)
@given(value=NUMBERS, places=PLACES)
def test_decimals_and_changes_are_babels(language: str, value: float, places: int) -> None:
    """Rounded half to even from the shortest repr, grouped by three, in the language's
    separators and minus sign."""
    _assert_written_as_babel(language, value, places)


@pytest.mark.parametrize("language", SHIPPED)
@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
@pytest.mark.parametrize("places", [0, 1, 2])
def test_numbers_that_are_not_finite_are_babels(language: str, value: float, places: int) -> None:
    """Babel writes them with the same patterns (`+∞` for a change, `NaN.0`)."""
    _assert_written_as_babel(language, value, places)


@pytest.mark.parametrize("language", SHIPPED)
@pytest.mark.parametrize("value", [np.float64(1234.5), np.float64(-2.675), np.float32(2.675)])
def test_numpy_scalars_are_written_as_babel_writes_them(language: str, value: float) -> None:
    """numpy 2 repr()s its scalars as `np.float64(…)`: the digits come from str()."""
    for places in (1, 2):
        _assert_written_as_babel(language, value, places)
