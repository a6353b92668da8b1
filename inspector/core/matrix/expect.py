"""One run's calls against its scenario's ``expect`` block
(:class:`~inspector.core.requests.scenarios_expect.Expect`; docs/matrix.md).

Invariants: pure; every miss is one short phrase (``no call of get_time``, ``1 call, expected
at least 2``), and an empty list means the expectation is met. Arguments that are no JSON
object never match an ``arguments`` subset (and are no crash).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from inspector.core.requests.scenarios_expect import Expect

Call = tuple[str, str]
"""(name, arguments as received) of one call made on the wire."""


def judge_expect(expect: Expect, calls: Sequence[Call]) -> list[str]:
    """What ``calls`` (the final response's wire calls) miss of ``expect``; [] when met."""
    misses: list[str] = []
    n = len(calls)
    if n < expect.calls_min:
        misses.append(f"{_calls(n)}, expected at least {expect.calls_min}")
    if expect.calls_max is not None and n > expect.calls_max:
        misses.append(f"{_calls(n)}, expected at most {expect.calls_max}")
    if expect.parallel is True and n < 2:
        misses.append(f"{_calls(n)} in the response, expected parallel calls")
    if expect.parallel is False and n > 1:
        misses.append(f"{_calls(n)} in one response, expected one at a time")
    names = {name for name, _ in calls}
    misses.extend(f"no call of {tool}" for tool in expect.tools if tool not in names)
    if (
        expect.arguments
        and n
        and not any(holds(_object(args), expect.arguments) for _, args in calls)
    ):
        shown = orjson.dumps(dict(expect.arguments)).decode()
        misses.append(f"no call's arguments hold {shown}")
    return misses


def holds(value: Any, subset: Any) -> bool:
    """``value`` holds ``subset``: objects key by key (recursively), a string when it contains
    the subset's string ignoring case, anything else by equality."""
    if isinstance(subset, Mapping):
        return isinstance(value, Mapping) and all(
            k in value and holds(value[k], v) for k, v in subset.items()
        )
    if isinstance(subset, str):
        return isinstance(value, str) and subset.casefold() in value.casefold()
    if isinstance(subset, bool) or isinstance(value, bool):
        return type(subset) is type(value) and subset == value
    return bool(value == subset)


def _object(arguments: str) -> Any:
    try:
        return orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return None


def _calls(n: int) -> str:
    return f"{n} call" if n == 1 else f"{n} calls"
