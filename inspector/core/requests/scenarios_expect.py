"""A scenario's ``expect`` block: which tool calls a model should make for its prompt.

Schema (docs/matrix.md), every field optional::

    "expect": {
      "tools": ["get_weather"],          each named tool is called at least once
      "calls": {"min": 1, "max": 3},     how many calls the response makes (default min 1)
      "parallel": true,                  true: >= 2 calls in one response; false: at most 1
      "arguments": {"city": "Paris"}     some call's arguments hold this subset
    }

A string in ``arguments`` matches a string argument that contains it, ignoring case ("Paris"
matches "Paris, France"); other values match by equality; an object matches an object
holding its subset, recursively. A scenario without ``expect`` expects at least one call.

Invariants: parsing never half-succeeds (a bad block is a one-line ScenarioError naming the
field); judging a run against it is pure (:mod:`inspector.core.matrix.expect`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

EXPECT_FIELDS: Final = frozenset({"tools", "calls", "parallel", "arguments"})


@dataclass(frozen=True)
class Expect:
    """What a run of the scenario should call (see the module docstring)."""

    tools: tuple[str, ...] = ()
    calls_min: int = 1
    calls_max: int | None = None
    parallel: bool | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def to_json(self) -> dict[str, Any]:
        """The block as a scenario file writes it (defaults left out)."""
        out: dict[str, Any] = {}
        if self.tools:
            out["tools"] = list(self.tools)
        calls: dict[str, int] = {"min": self.calls_min} if self.calls_min != 1 else {}
        if self.calls_max is not None:
            calls["max"] = self.calls_max
        if calls:
            out["calls"] = calls
        if self.parallel is not None:
            out["parallel"] = self.parallel
        if self.arguments:
            out["arguments"] = dict(self.arguments)
        return out


def parse_expect(obj: Any) -> Expect:
    """The ``expect`` block; ValueError with a one-line reason (the caller names the file)."""
    if obj is None:
        return Expect()
    if not isinstance(obj, dict):
        raise ValueError("'expect' must be an object")
    unknown = sorted(set(obj) - EXPECT_FIELDS)
    if unknown:
        raise ValueError(f"'expect' has unknown field(s) {', '.join(unknown)}")
    tools = obj.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools):
        raise ValueError("'expect.tools' must be a list of tool names")
    calls = obj.get("calls", {})
    if not isinstance(calls, dict) or set(calls) - {"min", "max"}:
        raise ValueError("'expect.calls' must be an object with 'min' and/or 'max'")
    low, high = calls.get("min", 1), calls.get("max")
    if type(low) is not int or low < 0 or (high is not None and (type(high) is not int
                                                                 or high < low)):  # fmt: skip
        raise ValueError("'expect.calls' min and max must be whole numbers, 0 <= min <= max")
    parallel = obj.get("parallel")
    if parallel is not None and not isinstance(parallel, bool):
        raise ValueError("'expect.parallel' must be true or false")
    arguments = obj.get("arguments", {})
    if not isinstance(arguments, dict):
        raise ValueError("'expect.arguments' must be an object (a subset of some call's)")
    return Expect(tuple(tools), low, high, parallel, arguments)
