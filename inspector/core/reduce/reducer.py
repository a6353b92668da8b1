"""The reduction: from a capture and a :class:`~.keep.Keep` to the smallest capture found that
still shows it.

Steps (each candidate written and read back as a file would be, then judged):
1. Which attempts: the property must hold on the original. The last attempt that shows it
   alone becomes a one-attempt capture; when no attempt does alone (a property about a retry),
   every attempt is kept and only the last is reduced: reduce never drops an attempt the
   property depends on.
2. Timing: a property that stops holding when every chunk is sent at once, or that rests on an
   attempt ended by a timeout (a stall), is a timing fault: events cannot reproduce it, and
   :class:`NotReducible` says so.
3. Events: delta debugging over the reduced attempt's wire events (:mod:`.units`), which drops
   unrelated calls, text and keep-alives as one; then fragments: neighbouring events merged
   (:mod:`.merge`: argument fragments joined), and events again.
4. Tools: the request body's ``tools`` entries the property does not need are dropped.

A candidate counts only when it shows no fault the original did not
(:func:`~.keep.signature`): cutting a stream makes faults of its own (a call cut short), and
a reduction to one of those would reproduce another bug than the one reported.

Invariants: the result shows the property (it was judged as written); it is never larger
than the original in events or bytes (a step that does not shrink is not taken).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from inspector.core.base.errors import InspectorError
from inspector.core.base.provider import Providers
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.capture.records import Attempt, Capture
from inspector.core.reduce.ddmin import ddmin
from inspector.core.reduce.keep import Keep, signature
from inspector.core.reduce.merge import merged
from inspector.core.reduce.units import Unit, chunks_of, units_of
from inspector.core.reduce.write import dump


class NotReducible(InspectorError):
    """The property cannot be reduced: not shown at all, or a timing fault; one line."""


@dataclass
class Reduced:
    """What a reduction made."""

    data: bytes
    """The reduced file's bytes (a capture, or a raw body for a raw body)."""
    events_before: int
    events_after: int
    bytes_before: int
    bytes_after: int
    attempts_before: int
    attempts_after: int
    tests: int
    """How many candidates were judged."""

    def summary(self, keep: Keep) -> str:
        return (
            f"kept {keep.text}: {self.events_before} events -> {self.events_after}, "
            f"{self.bytes_before} bytes -> {self.bytes_after}, "
            f"{self.attempts_before} attempt(s) -> {self.attempts_after} "
            f"({self.tests} candidates judged)"
        )


def reduce_capture(
    capture: Capture, keep: Keep, settings: Settings, providers: Providers
) -> Reduced:
    """Reduce ``capture`` while ``keep`` holds (see the module docstring)."""
    tests = [0]
    faults = signature(capture, settings, providers)

    def holds(attempts: list[Attempt]) -> bool:
        tests[0] += 1
        data = dump(capture, attempts, {"keep": keep.text})
        candidate = load_bytes(data, capture.path or "<reduced>")
        if not signature(candidate, settings, providers) <= faults:
            return False
        return keep.holds(candidate, settings, providers)

    if not keep.holds(capture, settings, providers):
        raise NotReducible(
            f"{capture.path or 'the capture'} does not show {keep.text}: nothing to keep"
        )
    kept = _attempts(capture, holds)
    last = kept[-1]
    stalled = [a.number for a in kept if (a.end or {}).get("reason") == "timeout"]
    if stalled:
        raise NotReducible(
            f"{keep.text} rests on attempt {stalled[-1]}, which ended by a timeout (a stall): "
            "a timing fault is not reducible by events; share the whole capture "
            "(serve keeps its pace)"
        )
    units = units_of(last.chunks)

    def with_units(chosen: list[Unit], flat: bool = False) -> list[Attempt]:
        return [*kept[:-1], replace(last, chunks=chunks_of(chosen, flat))]

    if not holds(with_units(units, flat=True)):
        raise NotReducible(
            f"{keep.text} depends on when the bytes arrived, not which: a timing fault is not "
            "reducible by events; share the whole capture (serve keeps its pace)"
        )
    chosen = ddmin(units, lambda sub: holds(with_units(sub))) if len(units) > 1 else units
    chosen = _merge_neighbours(chosen, lambda sub: holds(with_units(sub)))
    if len(chosen) > 1:
        chosen = ddmin(chosen, lambda sub: holds(with_units(sub)))
    attempts = _fewer_tools(with_units(chosen), holds)
    before = sum(len(units_of(a.chunks)) for a in capture.attempts)
    data = dump(capture, attempts, {"keep": keep.text, "events_before": before})
    original = capture.path and _size(capture)
    return Reduced(
        data,
        before,
        sum(len(units_of(a.chunks)) for a in attempts),
        int(original or sum(len(d) for _, d in _all(capture))),
        len(data),
        len(capture.attempts),
        len(attempts),
        tests[0],
    )


def _merge_neighbours(units: list[Unit], holds: Callable[[list[Unit]], bool]) -> list[Unit]:
    """The fragment phase (:mod:`.merge`): every mergeable run at once when the property
    holds on that, else neighbour by neighbour, keeping each merge it survives."""
    greedy: list[Unit] = []
    for unit in units:
        joined = merged(greedy[-1], unit) if greedy else None
        if joined is not None:
            greedy[-1] = joined
        else:
            greedy.append(unit)
    if len(greedy) < len(units) and holds(greedy):
        return greedy
    out = list(units)
    i = 0
    while i + 1 < len(out):
        joined = merged(out[i], out[i + 1])
        if joined is not None:
            candidate = [*out[:i], joined, *out[i + 2 :]]
            if holds(candidate):
                out = candidate
                continue
        i += 1
    return out


def _attempts(capture: Capture, holds: Callable[[list[Attempt]], bool]) -> list[Attempt]:
    """The attempts the property needs: the last that shows it alone, else all."""
    if len(capture.attempts) > 1:
        for attempt in reversed(capture.attempts):
            if attempt.chunks and holds([attempt]):
                return [attempt]
    return list(capture.attempts)


def _fewer_tools(attempts: list[Attempt], holds: Callable[[list[Attempt]], bool]) -> list[Attempt]:
    """Drop the request's tool definitions the property does not need (every attempt alike)."""
    last = attempts[-1]
    body = (last.request or {}).get("body")
    tools = body.get("tools") if isinstance(body, dict) else None
    if not isinstance(tools, list) or len(tools) < 2:
        return attempts

    def with_tools(chosen: list[Any]) -> list[Attempt]:
        out = []
        for a in attempts:
            b = (a.request or {}).get("body")
            if a.request is not None and isinstance(b, dict) and isinstance(b.get("tools"), list):
                a = replace(a, request={**a.request, "body": {**b, "tools": chosen}})
            out.append(a)
        return out

    chosen = ddmin(tools, lambda sub: holds(with_tools(sub)), budget=64)
    return with_tools(chosen)


def _all(capture: Capture) -> list[tuple[float, bytes]]:
    return [c for a in capture.attempts for c in a.chunks]


def _size(capture: Capture) -> int:
    import os

    try:
        return os.path.getsize(capture.path or "")
    except OSError:
        return 0
