"""SPEC 1.6 reference values, typed in from the spec: (rep arguments, variant, rating)."""

from __future__ import annotations

import math

INF = math.inf

# fmt: off
_SINGLE_WINS = {
    "p4": (1512, 1573, 1649, 1702, 1746, 1766, 1775, 1780, 1781, 1781, 1779, 1776, 1773,
           1734, 1701, 1676, 1656),
    "p3": (1512, 1635, 1791, 1904, 2008, 2063, 2097, 2121, 2138, 2151, 2161, 2169, 2175,
           2197, 2199, 2200, 2200),
}
# fmt: on
_SINGLE_WIN_COUNTS = (1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200, 300, 400, 500)

_ALTERNATING = {
    "p4": (979, 986, 992, 994, 996, 996, 996, 996),
    "p3": (986, 995, 1000, 1001, 1002, 1003, 1003, 1003),
}
_ALTERNATING_COUNTS = (1, 2, 5, 10, 20, 30, 40, 50)

_SINGLE_LINE = (
    (("+1492", "20"), "p3", 2500),
    (("+2400; -2600", "10"), "p3", 2500),
    (("-2500", "1", "+1492", "20"), "p3", 2232),
    (("-2500", "1", "+2400; -2600", "10"), "p3", 2479),
    (("+2000; -2000", "50"), "p3", 2003),
    (("+2000; -2000", "50"), "p4", 1995),
    (("+1230", "100"), "p4", 2003),
)

_FINAL_LOSS_RATINGS = (3000, 2500, 2000, 1500, 1000, 500, 0)
_FINAL_LOSS_ALTERNATING = {
    "p4": (1995, 1987, 1929, 1842, 1818, 1817, 1816),
    "p3": (2003, 2002, 1995, 1987, 1986, 1986, 1986),
}
_FINAL_LOSS_FARMED_P4 = (1990, 1911, 1731, 1541, 1440, 1425, 1424)

_LATER_VARIANTS: tuple[tuple[tuple[str, ...], tuple[float, ...]], ...] = (
    (("+1000", "1"), (INF, 1512, 1512, 1512, 1512, 1512, 1512, 1606)),
    (("+1000", "20"), (INF, 2040, 2008, 1746, 1746, 1775, 1775, 1742)),
    (("+1000", "60"), (INF, 2232, 2138, 1781, 1797, 1887, 1795, 1755)),
    (("+1000", "200"), (INF, 2441, 2197, 1734, 1856, 2097, 1795, 1755)),
    (("+1000; -1000", "10"), (1000, 998, 1001, 994, 994, 992, 996, 1018)),
    (("+1500 a*; -1500 b*", "25"), (1500, 1499, 1502, 1502, 1502, 1502, 1502, 1503)),
)

SEED_RATINGS: list[tuple[tuple[str, ...], str, float]] = [
    *(
        (("+1000", str(count)), variant, rating)
        for variant, ratings in _SINGLE_WINS.items()
        for count, rating in zip(_SINGLE_WIN_COUNTS, ratings, strict=True)
    ),
    *(
        (("+1000; -1000", str(count)), variant, rating)
        for variant, ratings in _ALTERNATING.items()
        for count, rating in zip(_ALTERNATING_COUNTS, ratings, strict=True)
    ),
    *_SINGLE_LINE,
    *(
        ((f"-{loss} playerX", "1", "+2000; -2000", "50"), variant, rating)
        for variant, ratings in _FINAL_LOSS_ALTERNATING.items()
        for loss, rating in zip(_FINAL_LOSS_RATINGS, ratings, strict=True)
    ),
    *(
        ((f"-{loss} playerX", "1", "+1230", "100"), "p4", rating)
        for loss, rating in zip(_FINAL_LOSS_RATINGS, _FINAL_LOSS_FARMED_P4, strict=True)
    ),
]
"""The values the seed itself prints (p3 and p4)."""

REFERENCE_RATINGS: list[tuple[tuple[str, ...], str, float]] = [
    *SEED_RATINGS,
    *(
        (arguments, f"p{number}", rating)
        for arguments, ratings in _LATER_VARIANTS
        for number, rating in enumerate(ratings, start=1)
    ),
]

REFERENCE_STABILITY = (
    (("+1000; -1000", "10"), "p3", "1001 +20 -20", 4.47),
    (("+1000; -1000", "10"), "p4", "994 +76 -76", 4.47),
    (("+1500 a*; -1500 b*", "25"), "p7", "1502 +11 -11", 50.00),
)

SEED_P4_COLUMNS: dict[tuple[str, ...], int] = {
    arguments: int(rating) for arguments, variant, rating in SEED_RATINGS if variant == "p4"
}
"""The seed's p4 columns (every p4 value of the seed's tables), for `testit p4`."""
