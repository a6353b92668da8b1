"""The proxy's loop-lag ticker (``inspector/net/proxy/looplag.py``): a held loop is noted
with its length, the proxy's own share of it, and where the other threads were."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import orjson

from inspector.net.proxy.looplag import LoopLag, worst_between

HELD = 0.08


async def _held_once(lag: LoopLag, blocker: threading.Event | None = None) -> tuple[float, float]:
    """Tick, hold the loop ``HELD`` seconds (a blocking call on it), tick again, stop;
    the monotonic window from before the first tick to after the last (a busy machine may
    delay any tick, so the stall's tick may fall due well before the hold began)."""
    start = time.monotonic()
    lag.start()
    await asyncio.sleep(0.02)
    time.sleep(HELD)  # what a blocking call on the loop does to every agent
    await asyncio.sleep(0.02)
    end = time.monotonic()
    await lag.stop()
    return start, end


async def test_a_held_loop_is_noted_as_the_proxys_own_hold() -> None:
    lag = LoopLag()
    window = await _held_once(lag)
    assert lag.ticks >= 2 and lag.worst >= HELD - 0.01
    longest, own, count = worst_between(lag.record(), *window)
    assert longest >= HELD - 0.01 and count >= 1
    # Blocked in a call, not waiting for a CPU: all of it is the proxy's.
    assert own >= HELD - 0.03
    assert worst_between(lag.record(), window[1] + 1, window[1] + 2) == (0.0, 0.0, 0)


async def test_a_long_stall_says_where_the_other_threads_were() -> None:
    release = threading.Event()

    def parked_worker() -> None:
        release.wait()

    worker = threading.Thread(target=parked_worker, daemon=True)
    worker.start()
    try:
        lag = LoopLag()
        await _held_once(lag)
    finally:
        release.set()
        worker.join()
    (where,) = {w for _, _late, threads in lag.traces for w in threads if "parked_worker" in w}
    assert "test_loop_lag.py" in where


async def test_the_record_is_written_as_json(tmp_path: Path) -> None:
    lag = LoopLag()
    await _held_once(lag)
    lag.write(tmp_path / "lag.json")
    record = orjson.loads((tmp_path / "lag.json").read_bytes())
    assert record["ticks"] == lag.ticks and len(record["stalls"]) == len(lag.stalls) >= 1
    _due, late, cpu, queued = record["stalls"][-1]
    assert late > record["noted"] and cpu >= 0 and queued >= 0
