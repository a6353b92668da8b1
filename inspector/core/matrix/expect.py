"""One run's calls against its scenario's ``expect`` block
(:class:`~inspector.core.requests.scenarios_expect.Expect`; docs/matrix.md).

Invariants: pure; every miss is one short phrase (``tool get_time not called``, ``too few
calls: 1 of min 2``, ``too many calls: 3 of max 1``, ``not parallel: …``, ``arguments differ:
city "Lyon" not "Paris"``), and an empty list means the expectation is met. A response with
no call at all that misses it is ``["no tool call"]`` (its word is ``no call``, not
``wrong calls``). Arguments that are no JSON
object never match an ``arguments`` subset (and are no crash).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from inspector.core.requests.scenarios_expect import Expect

UNREADABLE: Final = "arguments unreadable: no call's arguments are a JSON object"
"""The ``arguments`` miss when no call's arguments parse: what is wrong is the argument text
(the ``invalid`` word's case under a validation mode), not which call was made."""

Call = tuple[str, str]
"""(name, arguments as received) of one call made on the wire."""


def judge_expect(expect: Expect, calls: Sequence[Call]) -> list[str]:
    """What ``calls`` (the final response's wire calls) miss of ``expect``; [] when met. A
    response without a call that misses it says only ``no tool call``."""
    misses: list[str] = []
    n = len(calls)
    if n < expect.calls_min:
        misses.append(f"too few calls: {n} of min {expect.calls_min}")
    if expect.calls_max is not None and n > expect.calls_max:
        misses.append(f"too many calls: {n} of max {expect.calls_max}")
    if expect.parallel is True and n < 2:
        misses.append(f"not parallel: {_calls(n)} in the response, expected 2 or more")
    if expect.parallel is False and n > 1:
        misses.append(f"parallel: {_calls(n)} in one response, expected one at a time")
    names = {name for name, _ in calls}
    misses.extend(f"tool {tool} not called" for tool in expect.tools if tool not in names)
    if (
        expect.arguments
        and n
        and not any(holds(_object(args), expect.arguments) for _, args in calls)
    ):
        readable = [c for c in calls if isinstance(_object(c[1]), Mapping)]
        misses.append(
            "arguments differ: " + closest_difference(expect, readable) if readable else UNREADABLE
        )
    return ["no tool call"] if misses and not n else misses


def closest_difference(expect: Expect, calls: Sequence[Call]) -> str:
    """Where the call nearest ``expect.arguments`` differs, e.g. ``city "Lyon" not "Paris"``
    (``city missing``; ``not a JSON object``): the call of an expected tool holding the most
    of the subset's keys, the first such call on a tie."""
    wanted = set(expect.tools)

    def score(call: Call) -> tuple[int, int]:
        value = _object(call[1])
        held = sum(
            1
            for k, v in expect.arguments.items()
            if isinstance(value, Mapping) and k in value and holds(value[k], v)
        )
        return held, call[0] in wanted

    best = max(calls, key=score)  # max keeps the first of equals
    return _difference(_object(best[1]), expect.arguments, "") or "not as expected"


def _difference(value: Any, subset: Any, path: str) -> str | None:
    if isinstance(subset, Mapping):
        if not isinstance(value, Mapping):
            return f"{path or 'arguments'} not a JSON object"
        for key, want in subset.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in value:
                return f"{where} missing"
            found = _difference(value[key], want, where)
            if found:
                return found
        return None
    if holds(value, subset):
        return None
    return f"{path} {_shown(value)} not {_shown(subset)}"


def _shown(value: Any) -> str:
    text = orjson.dumps(value).decode() if _dumpable(value) else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _dumpable(value: Any) -> bool:
    try:
        orjson.dumps(value)
    except TypeError:
        return False
    return True


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
