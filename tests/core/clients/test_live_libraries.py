"""The real Python client libraries, run live on a fixed handful of streams, still give the goldens.

The goldens test compares replicas with files; this one re-runs the libraries themselves
(``clients.real.RUNNERS``, Node excluded: ``make verify-clients`` runs it) on :data:`LIVE`,
so a golden edited by hand or a library upgraded under the pins cannot hide. Every verified
replica with a Python runner is run on each LIVE stream of its dialects; a verified replica
without a runner, or a golden without a LIVE stream, fails naming it (the list never shrinks
silently).
"""

from __future__ import annotations

from typing import Any

import pytest
from clients.compare import mismatch
from clients.real import RUNNERS
from clients.streams import CORPUS, demo_streams
from clients.verify import golden_path, load_golden, run_once

from inspector.core.clients.registry import REPLICAS, VERIFIED

LIVE = (
    "demo/openai-chat/demo-parallel-index-0",
    "demo/openai-chat/demo-keepalives",
    "demo/openai-chat/demo-missing-index",
    "demo/anthropic/demo-args-object",
    "demo/gemini/demo-keepalives",
    "demo/openai-responses/demo-lmstudio-no-deltas",
)
"""The streams every verified Python library is re-run on (one per behaviour worth keeping an
eye on: merged parallel calls, a keep-alive as data, no index, a whole input, an SSE comment,
arguments only in the done events)."""

LIVE_TIMEOUT = 90.0
"""Seconds a run may take before it counts as a stalled client: a bound for a hang, not a
speed (each run takes well under a second on a quiet machine; the library is imported before
the clock starts, :attr:`clients.real.Runner.imports`)."""

STREAMS = {s.id: s for s in demo_streams(CORPUS)}
SPEAKS = {r.name: r.dialects for r in REPLICAS}


def live_cases() -> list[Any]:
    """(replica, stream id) for every verified replica not run by Node, per LIVE stream."""
    cases = []
    for name in sorted(VERIFIED):
        runner = RUNNERS.get(name)
        if runner is not None and runner.node:
            continue
        for stream_id in LIVE:
            stream = STREAMS.get(stream_id)
            if stream is None or stream.dialect in SPEAKS.get(name, frozenset()):
                cases.append(pytest.param(name, stream_id, id=f"{name}:{stream_id}"))
    return cases


@pytest.mark.parametrize(("replica", "stream_id"), live_cases())
async def test_the_real_library_still_gives_its_golden(replica: str, stream_id: str) -> None:
    runner = RUNNERS.get(replica)
    assert runner is not None, f"{replica} is verified but has no runner in clients.real.RUNNERS"
    stream = STREAMS.get(stream_id)
    assert stream is not None, f"{stream_id} (LIVE) is not in the corpus"
    doc = load_golden(golden_path(replica))
    assert doc is not None, f"{replica} is verified but has no golden"
    golden = doc["streams"].get(stream_id)
    assert golden is not None, f"the {replica} golden has no {stream_id} (LIVE)"
    got = await run_once(runner, stream, timeout=LIVE_TIMEOUT)
    problem = mismatch(stream_id, golden, got, who=f"{runner.library} (live)")
    assert problem is None, problem


def test_every_live_stream_is_run_by_some_verified_library() -> None:
    covered = {c.values[1] for c in live_cases()}
    assert covered == set(LIVE), f"LIVE streams no verified library runs: {set(LIVE) - covered}"
