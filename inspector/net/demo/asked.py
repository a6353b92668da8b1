"""What a well-behaved model would call for one of the built-in request scenarios
(``resources/scenarios``: weather, parallel, trip …): the calls its ``expect`` block asks for.

The demo models each show one quirk; before this, each answered every prompt with its one
scripted call, so the default matrix showed ``demo-clean`` failing ``parallel`` ("≠ wrong
calls") and an audience saw the clean model fail. Now a demo model answers a built-in scenario
as a well-behaved model would, and its quirk is applied on top of those calls by the same
renderers as before.

Invariants:
- A request is recognised as a built-in scenario by its prompt text (the scenario's ``prompt``
  found in the conversation), never by its tools alone; anything else gets the demo scenario's
  own calls, exactly as before.
- The calls: each tool the ``expect`` block names (in its order, when the request offers it;
  then the request's other tools in order, as before, when more calls are due),
  at least ``calls.min``, at least two when ``parallel`` is true, at most ``calls.max`` (one
  when ``parallel`` is false), and never fewer than the demo scenario's own count (a parallel
  quirk keeps its three calls). The first call of the first expected tool carries the block's
  ``arguments`` (merged into the generated ones).
- A forced ``tool_choice`` and ``demo-zero-arg``'s bare tool win over the block (the request
  said which tool; the quirk is which tool).
- Pure, and the scenarios are read once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from inspector.core.requests.scenarios import load_scenarios
from inspector.core.requests.scenarios_expect import Expect


class Tool(Protocol):
    """A tool the request offers (:class:`.conversation.Tool`, which imports this module)."""

    @property
    def name(self) -> str: ...

    @property
    def schema(self) -> dict[str, Any]: ...


T = TypeVar("T", bound=Tool)


@functools.cache
def _builtin() -> tuple[tuple[str, Expect], ...]:
    """(prompt, expect) of each built-in scenario, longest prompt first."""
    found = [(" ".join(s.prompt.split()), s.expect) for s in load_scenarios()]
    return tuple(sorted(found, key=lambda pe: -len(pe[0])))


def recognise(conversation: str) -> Expect | None:
    """The ``expect`` block of the built-in scenario whose prompt ``conversation`` (the
    request's conversation as text) holds; None for any other request."""
    text = " ".join(conversation.split())
    return next((e for prompt, e in _builtin() if prompt and prompt in text), None)


def expected_calls(expect: Expect, tools: list[T], own: int) -> list[tuple[T, int]]:
    """(tool, argument variant) per call (see the module docstring); ``own``: the demo
    scenario's own call count."""
    offered = {t.name: t for t in tools}
    wanted = [offered[name] for name in expect.tools if name in offered]
    n = max(own, len(wanted), expect.calls_min, 2 if expect.parallel else 1)
    if expect.parallel is False:
        n = 1
    if expect.calls_max is not None:
        n = min(n, expect.calls_max)
    pool = wanted + [t for t in tools if t not in wanted]  # then the others, in order
    return [(pool[i % len(pool)], i // len(pool)) for i in range(n)]


def with_arguments(args: dict[str, Any], tool: Tool, expect: Expect) -> dict[str, Any]:
    """``args`` with the block's ``arguments`` merged in, for the keys ``tool`` takes."""
    props = tool.schema.get("properties")
    if not expect.arguments or not isinstance(props, Mapping):
        return args
    out = dict(args)
    for key, value in expect.arguments.items():
        if key in props:
            out[key] = _merged(out.get(key), value)
    return out


def _merged(have: Any, want: Any) -> Any:
    if isinstance(have, Mapping) and isinstance(want, Mapping):
        return {**have, **{k: _merged(have.get(k), v) for k, v in want.items()}}
    return want
