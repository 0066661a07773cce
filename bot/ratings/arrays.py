"""The numpy array types every module speaks (defined once; bot.storage re-exports them)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
ObjectArray = NDArray[np.object_]
IndexArray = NDArray[np.integer[Any]]
"""Integers of any width: compact columns (int32 match and player, int8 side) as they are."""
