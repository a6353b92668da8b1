"""Delta debugging (Zeller's ddmin): the smallest subsequence of ``items`` the test still
passes on that removing any one chunk of it at the finest granularity breaks (1-minimal
over single items once the granularity reaches one).

Invariants: the result keeps the items' order; ``test`` is never asked about the empty
sequence; the number of tests is bounded (``budget``), so a costly property on a long stream
ends with the smallest candidate found so far, never a hang.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def ddmin(items: Sequence[T], test: Callable[[list[T]], bool], budget: int = 2000) -> list[T]:
    """The reduced items (see the module docstring); ``test(items)`` is assumed True."""
    current = list(items)
    n = 2
    tests = 0
    while len(current) >= 2 and tests < budget:
        size = len(current) // n
        chunks = [current[i * size : (i + 1) * size] for i in range(n - 1)]
        chunks.append(current[(n - 1) * size :])
        reduced = False
        for i in range(n):  # each complement: all but chunk i
            complement = [x for j, c in enumerate(chunks) if j != i for x in c]
            if not complement:
                continue
            tests += 1
            if test(complement):
                current = complement
                n = max(n - 1, 2)
                reduced = True
                break
            if tests >= budget:
                break
        if not reduced:
            if n >= len(current):
                break
            n = min(len(current), n * 2)
    return current
