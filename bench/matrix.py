"""Matrix benchmark: how close does a compatibility matrix come to its ideal wall time?

Runs >= 200 sessions against the demo provider at its realistic pacing (0.03 s between
frames; the provider in a process of its own, as a real one is elsewhere), 16 at a time,
through the same :class:`~inspector.net.matrix.runner.MatrixRunner` as ``toolcall-inspector
matrix`` (every session recorded as a capture and judged: expect block, quirks, every client
replica). The ideal is the sessions' scripted
durations (each response's frames - 1, times the pacing, summed over its attempts) divided by
16: what the matrix would take if nothing but the provider's pacing cost time. Goal: wall
time within 1.3x of the ideal (PASS/FAIL). The matrix's own CPU time and the machine's load
average are printed beside it: on a machine busy with other work the pacing itself stretches,
which the baseline (the first request of every session streamed by plain httpx, same
concurrency, same run) shows.

Issue 30: 1.34-1.45x before (1.76x at load 15), where a profile showed the slots busy only
~1.3x the ideal: the sessions ran in a fixed order, so the longest (a trip planned over
several rounds, ~5 s against ~0.5 s) of the last run started last and ran on alone at the
end, and each session's judging held its slot. The runner now hands out the longest
expected job first (:mod:`inspector.net.matrix.schedule`) and judges beside the next stream.

Run with ``make bench-matrix`` or ``.venv/bin/python bench/matrix.py [--sessions N]
[--delay S] [--concurrency N]``. A report, not a test: it exits 0 whatever the figures, and 1
only when a session did not run as scripted (an error or a skipped cell), so it never times a
broken path.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from proxy import process  # bench/proxy.py: a toolcall-inspector process, stopped cleanly

from inspector.core.analysis.session import Analysis
from inspector.core.capture.reader import load
from inspector.core.matrix.spec import MatrixSpec
from inspector.core.providers import REGISTRY
from inspector.core.requests.scenarios import RequestSpec
from inspector.net.matrix.default import default_spec
from inspector.net.matrix.runner import MatrixRunner
from inspector.net.matrix.session import request_for

MODELS = [
    "demo-clean", "demo-parallel", "demo-glm-empty-string", "demo-parallel-index-0",
    "demo-qwen-omitted", "demo-id-every-chunk", "demo-interleaved", "demo-glm-retry",
    "demo-keepalives", "demo-partial-args",
]  # fmt: skip
"""Conforming and quirky streams in all the shapes a matrix meets (parallel calls, a retry,
keep-alives, Gemini's partial arguments); no faults, so every session streams to its end."""

WARM_UP = 1.0
"""Seconds at the start when first imports and tool registries are built (told apart)."""


def scripted(path: Path, delay: float) -> float:
    """The seconds the demo's pacing alone takes for one capture: (events - 1) x delay per
    attempt (the server pauses ``delay`` between frames, one event per frame)."""
    analysis = Analysis.from_capture(load(path), providers=REGISTRY)
    return sum(max(0, len(v.state.events) - 1) * delay for v in analysis.attempts)


async def bench(sessions: int, delay: float, concurrency: int, out: Path, demo: str) -> int:
    scenarios = ["weather", "parallel", "trip", "tool-loop", "zero-arg", "filesystem"]
    runs = max(1, math.ceil(sessions / (len(MODELS) * len(scenarios))))
    spec = default_spec(MODELS, scenarios)
    targets = tuple(
        replace(t, concurrency=concurrency,
                profile=replace(t.profile, headers={k: v for k, v in t.profile.headers.items()
                                                    if k != "x-demo-chunk-delay"}))
        for t in spec.targets
    )  # fmt: skip
    spec = replace(spec, targets=targets, runs=runs, concurrency=concurrency)
    runner = MatrixRunner(spec, out, demo_url=demo)
    stalls: list[tuple[float, float, float]] = []
    ticker = asyncio.create_task(_loop_stalls(stalls))
    began, cpu = time.perf_counter(), time.process_time()
    result = await runner.run()
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    ticker.cancel()
    runs_done = list(result.runs())
    broken = [(c.key, r.word) for c, r in runs_done if r.word in ("error", "skipped")]
    ideal_total = sum(scripted(out / str(r.capture), delay) for _, r in runs_done if r.capture)
    ideal = ideal_total / concurrency
    print(
        f"sessions: {len(runs_done)} ({len(MODELS)} models x {len(scenarios)} scenarios x "
        f"{runs} runs), concurrency {concurrency}, pacing {delay * 1000:.0f} ms a frame"
    )
    print(
        f"scripted durations: {ideal_total:.1f} s in all, "
        f"{ideal_total / max(1, len(runs_done)):.2f} s a session"
    )
    print(f"wall/ideal {wall / ideal:.2f}x (goal 1.3x) -> "
          f"{'PASS' if wall <= 1.3 * ideal else 'FAIL'}: wall time {wall:.2f} s, ideal "
          f"(scripted / {concurrency}) {ideal:.2f} s")  # fmt: skip
    late = sorted(w for w, _, _ in stalls)
    busy = sorted(c for _, c, _ in stalls)
    warm = max((c for _, c, t in stalls if t - began < WARM_UP), default=0.0)
    steady = max((c for _, c, t in stalls if t - began >= WARM_UP), default=0.0)
    print(f"longest stall {late[-1] * 1000:.0f} ms (goal 50) -> "
          f"{'PASS' if late[-1] <= 0.05 else 'MISS'}: the loop's longest wait past a 5 ms "
          f"timer, p99 {late[int(len(late) * 0.99)] * 1000:.0f} ms; of which its own work at "
          f"most {busy[-1] * 1000:.0f} ms CPU (p99 {busy[int(len(busy) * 0.99)] * 1000:.0f} ms; "
          f"{warm * 1000:.0f} ms in the first {WARM_UP:.0f} s of first imports, "
          f"{steady * 1000:.0f} ms after)")  # fmt: skip
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"the matrix's CPU: {cpu:.2f} s ({cpu / wall:.0%} of one core); "
          f"load average {load} on {os.cpu_count()} CPUs")  # fmt: skip
    base = await _baseline(spec, demo, concurrency)
    print(f"baseline, the same requests read by plain httpx (no recording, no judging): "
          f"{base:.2f} s, {base / ideal:.2f}x the ideal: what the provider and this machine "
          f"allow; the matrix is {wall / base:.2f}x it")  # fmt: skip
    if broken:
        print(f"FAILED: {len(broken)} sessions did not run as scripted, e.g. {broken[:3]}")
        return 1
    return 0


async def _baseline(spec: MatrixSpec, demo: str, concurrency: int) -> float:
    """Seconds to stream every session's first request with plain httpx, ``concurrency`` at a
    time, reading and dropping the bytes: the floor the matrix is measured against."""
    gate = asyncio.Semaphore(concurrency)
    requests = [request_for(t.profile.resolved(demo), s) for t in spec.targets
                for s in spec.scenarios for _ in range(spec.runs)]  # fmt: skip

    async def one(client: httpx.AsyncClient, req: RequestSpec) -> None:
        async with (
            gate,
            client.stream("POST", req.url, json=req.body, headers=dict(req.headers)) as r,
        ):
            async for _ in r.aiter_raw():
                pass

    async with httpx.AsyncClient(trust_env=False, timeout=60) as client:
        began = time.perf_counter()
        await asyncio.gather(*(one(client, r) for r in requests))
        return time.perf_counter() - began


async def _loop_stalls(out: list[tuple[float, float, float]], period: float = 0.005) -> None:
    """How late the loop wakes a timer of ``period`` seconds, over and over (its stalls), with
    the CPU the thread spent meanwhile: a late wake-up with little CPU is the machine's load
    (the process was not scheduled), not the loop's work."""
    last, cpu = time.perf_counter(), time.thread_time()
    while True:
        await asyncio.sleep(period)
        now, now_cpu = time.perf_counter(), time.thread_time()
        out.append((max(0.0, now - last - period), now_cpu - cpu, now))
        last, cpu = now, now_cpu


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=200, help="at least this many (default 200)")
    p.add_argument("--delay", type=float, default=0.03, help="seconds between frames")
    p.add_argument("--concurrency", type=int, default=16)
    args = p.parse_args()
    demo_args = ["demo-server", "--port", "0", "--chunk-delay", str(args.delay)]
    with (
        tempfile.TemporaryDirectory(prefix="bench-matrix-") as tmp,
        process(demo_args, "listening on") as (_, url),
    ):
        return asyncio.run(
            bench(args.sessions, args.delay, args.concurrency, Path(tmp), url.rstrip("/"))
        )


if __name__ == "__main__":
    sys.exit(main())
