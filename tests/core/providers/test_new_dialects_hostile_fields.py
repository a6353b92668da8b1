"""Cohere v2, Gemini Interactions and legacy completions never raise on a field of the wrong
type: every value of every event of their realworld streams (nested ones included) is replaced,
one at a time, by values of other types, and the body read whole: a ``wire_field_type`` problem
or an UNKNOWN delta, never an exception (and never a lost event: every event maps to a delta).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from conftest import SHARED

from inspector.core.base.model import EventKind
from inspector.core.providers import (
    COHERE_V2,
    GEMINI_INTERACTIONS,
    OPENAI_COMPLETIONS,
    REGISTRY,
    analyze_bytes,
)

STREAMS = {
    COHERE_V2: "cohere/cohere-tool-call.sse",
    GEMINI_INTERACTIONS: "google-interactions/google-search.sse",
    OPENAI_COMPLETIONS: "openai-completion/openai-completion-text.sse",
}
ODD: tuple[Any, ...] = (None, 7, "x", [1], {"k": 1}, True)


def _payloads(dialect: str) -> list[tuple[str, dict[str, Any]]]:
    path = SHARED / "fixtures" / "realworld" / STREAMS[dialect]
    if not path.is_file():
        pytest.fail(f"missing shared fixture {path}", pytrace=False)
    out = []
    for block in path.read_bytes().decode().split("\n\n"):
        name = next((ln[7:] for ln in block.splitlines() if ln.startswith("event: ")), "")
        data = next((ln[6:] for ln in block.splitlines() if ln.startswith("data: ")), "")
        if data.startswith("{"):
            out.append((name, orjson.loads(data)))
    return out


def _mutants(obj: Any) -> Iterator[Any]:
    """``obj`` with one value (at any depth) replaced by each odd value."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            for odd in ODD:
                if type(odd) is not type(value):
                    yield {**obj, key: odd}
            for inner in _mutants(value):
                yield {**obj, key: inner}


def _body(name: str, obj: Any) -> bytes:
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {orjson.dumps(obj).decode()}\n\n".encode()


@pytest.mark.parametrize("dialect", list(STREAMS))
def test_a_field_of_the_wrong_type_is_flagged_never_raised(dialect: str) -> None:
    payloads = _payloads(dialect)
    seen = 0
    for n, (name, obj) in enumerate(payloads[:12]):
        before = b"".join(_body(nm, o) for nm, o in payloads[:n])
        for mutant in _mutants(obj):
            state = analyze_bytes(before + _body(name, mutant), dialect, providers=REGISTRY)
            events = [e.seq for e in state.events if e.kind == EventKind.EVENT]
            mapped = {d.seq for d in state.deltas}
            assert set(events) <= mapped, (dialect, mutant)  # nothing received is lost
            seen += 1
    assert seen > 100
