"""Typed arrays filled from lists of numbers at C speed.

``array("q", values)`` and ``array.extend`` convert each signed or float item through the
argument parser (``PyArg_Parse``): several times the cost of the ``struct`` module's
conversion, which packs a whole list in one call. The columns here take one number per event
or chunk, so that difference is per event.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from struct import error, pack
from typing import Any

__all__ = ["extend", "filled"]


def filled(code: str, values: Sequence[Any]) -> array[Any]:
    """``array(code, values)`` (``code`` "q", "I" or "d"), packed at once."""
    out: array[Any] = array(code)
    extend(out, values)
    return out


def extend(column: array[Any], values: Sequence[Any]) -> None:
    """``column.extend(values)`` (a "q", "I" or "d" column), packed at once: the same result, and
    the same error for a value the column cannot take (the column's own ``extend`` decides)."""
    if not values:
        return
    try:
        packed = pack(f"{len(values)}{column.typecode}", *values)
    except error:  # out of range, or not a number of that kind
        column.extend(values)
        return
    column.frombytes(packed)
