"""Client-replica benchmark: what running every client replica costs, per wire event, next to
the inspector's own ingest of the same stream.

Run with ``make bench`` or ``.venv/bin/python bench/clients.py [--calls N] [--kib K]
[--rounds R]``. A report, not a test: it exits 0 whatever the figures, and 1 only when a
replica raises something other than what a client library raises (a bug, not a finding).

The workload is the demo provider's own conforming rendering (``inspector.net.demo``) of one
large turn in each dialect: ``--calls`` parallel calls of a ``write_file`` tool whose arguments
hold ``--kib`` KiB of text each, streamed in the provider's token-sized fragments. Per dialect
the inspector's ingest (decode, map, accumulate, judge: what opening the stream costs) and
each replica speaking the dialect (:func:`inspector.core.clients.judge.run_replica`: the
replica fed every wire event plus the driver's prefix check, what a view or ``analyze`` pays
when it asks) are timed interleaved, round by round in rotating order, best wall time of each;
the ratio ``× ingest`` is a replica's time over the ingest's, measured in the same run. The
replicas reading the openai SDK's chunks share one decoding of the body per exchange
(:mod:`inspector.core.clients.openai_sdk.wire`): it has a line of its own.
Compare ``µs/event`` across ``--kib`` sizes to see whether a replica's cost per event grows
with the arguments (a replica that re-parses the arguments so far on every delta, as the
Anthropic SDK does, is quadratic in a call's size).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.clients.base import ClientRaised, Exchange, Replica
from inspector.core.clients.judge import exchange_of, expected_calls, run_replica
from inspector.core.clients.openai_sdk.sse import SdkChunkRun
from inspector.core.clients.openai_sdk.wire import decode
from inspector.core.clients.registry import REPLICAS
from inspector.core.providers import REGISTRY
from inspector.net.demo.planner import render
from inspector.net.demo.wire import Call, Ids, Turn

DIALECTS = ("openai-chat", "openai-responses", "anthropic", "gemini")
SHARED = "openai SDK's SSE"
"""The line for :func:`inspector.core.clients.openai_sdk.wire.decode`: the body as the openai SDK
decodes it, worked out once per exchange for every replica reading the SDK's chunks."""
NET_READ = 16 * 1024
"""Bytes per network read fed to the inspector."""

_PROSE = (
    "The quick brown fox jumps over the lazy dog; naïve café, Straße, 日本語, emoji 🚀, "
    'a "quoted" word, C:\\path\\to\\file, tab\there, line\nbreak. '
)


def turn(dialect: str, calls: int, kib: int) -> Turn:
    """One conforming turn of ``calls`` write_file calls, ``kib`` KiB of content each."""
    ids = Ids(f"bench:{dialect}")
    content = (_PROSE * (kib * 1024 // len(_PROSE) + 1))[: kib * 1024]
    out = []
    for i in range(calls):
        call = Call("write_file", {"path": f"notes/file-{i}.md", "content": content})
        if dialect in ("openai-chat", "openai-responses"):
            call.id = "call_" + ids.token(24)
        if dialect == "openai-responses":
            call.item_id = "fc_" + ids.hex(50)
        elif dialect == "anthropic":
            call.id = "toolu_01" + ids.token(22)
        out.append(call)
    return Turn(dialect, "demo-parallel", ids, text="Writing the files now.", calls=out)


def body(dialect: str, calls: int, kib: int) -> bytes:
    """The demo provider's bytes for :func:`turn` (a conforming stream: only bytes frames)."""
    frames = render(turn(dialect, calls, kib))
    return b"".join(f for f in frames if isinstance(f, bytes))


def ingest(dialect: str, data: bytes) -> Analysis:
    """The inspector's own path: feed in network reads, end, judge (verdicts and quirks)."""
    analysis = Analysis(Settings(dialect=dialect), providers=REGISTRY)
    analysis.begin_attempt(None)
    for i in range(0, len(data), NET_READ):
        analysis.feed(data[i : i + NET_READ])
    analysis.end()
    analysis.judge()
    analysis.final.detect_quirks()
    return analysis


def best(contenders: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Best wall time per contender over ``rounds`` interleaved rounds (gc collected before
    each round, off while a round runs)."""
    names = list(contenders)
    out = dict.fromkeys(names, float("inf"))
    for r in range(rounds):
        gc.collect()
        gc.disable()
        try:
            for name in names[r % len(names) :] + names[: r % len(names)]:
                t0 = time.perf_counter()
                contenders[name]()
                out[name] = min(out[name], time.perf_counter() - t0)
        finally:
            gc.enable()
    return out


def _reads_sdk_chunks(replica: Replica, exchange: Exchange) -> bool:
    """Whether ``replica`` reads the openai SDK's chunks (the shared SSE decoding)."""
    try:
        return isinstance(replica.open(exchange), SdkChunkRun)
    except ClientRaised:
        return False


def bench_dialect(dialect: str, calls: int, kib: int, rounds: int) -> tuple[list[str], bool]:
    """The report lines for one dialect, and whether every replica behaved (no crash)."""
    data = body(dialect, calls, kib)
    analysis = ingest(dialect, data)
    view = analysis.final
    events = len(view.state.events)
    # the body's bytes too, as ``analyze`` of a raw body has them (the replicas over the
    # openai SDK's SSE layer re-decode the bytes, as the SDK does)
    exchange, expected = replace(exchange_of(view), body=data), expected_calls(view)
    speakers: list[Replica] = [r for r in REPLICAS if dialect in r.dialects]
    lines = [f"{dialect}: {len(data):,} bytes, {events:,} wire events, {len(expected)} calls"]
    if not speakers:
        return [*lines, "  no replica speaks it"], True
    words: dict[str, str] = {}
    ok = True
    for replica in speakers:
        try:
            result = run_replica(replica, exchange, expected, failed=False)
        except Exception as exc:  # a replica bug: report it, time nothing of it
            words[replica.name] = f"CRASHED: {type(exc).__name__}: {exc}"
            ok = False
            continue
        words[replica.name] = "agrees" if result.agrees else f"disagrees ({result.error})"
    contenders: dict[str, Callable[[], Any]] = {"inspector ingest": lambda: ingest(dialect, data)}
    if any(_reads_sdk_chunks(r, exchange) for r in speakers):
        # worked out once per exchange and shared by those replicas (not in their figures)
        contenders[SHARED] = lambda: decode(exchange)
    for replica in speakers:
        if not words[replica.name].startswith("CRASHED"):
            contenders[replica.name] = (
                lambda r=replica: run_replica(r, exchange, expected, failed=False)  # type: ignore[misc]
            )
    times = best(contenders, rounds)
    base = times["inspector ingest"]
    width = max(len(n) for n in contenders)
    lines.append(f"  {'':{width}}  ms/run  µs/event  × ingest")
    for name, seconds in times.items():
        word = words.get(name, "once for all of them")
        ratio = "" if name == "inspector ingest" else f"{seconds / base:8.2f}×  {word}"
        per_event = seconds / max(events, 1) * 1e6
        lines.append(f"  {name:{width}}  {seconds * 1e3:6.0f}  {per_event:8.2f}  {ratio}".rstrip())
    for name, word in words.items():
        if word.startswith("CRASHED"):
            lines.append(f"  {name:{width}}  {word}")
    return lines, ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=8, help="parallel calls (default 8)")
    p.add_argument("--kib", type=int, default=4, help="KiB of arguments per call (default 4)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    args = p.parse_args(argv)
    print(
        f"client replicas: {len(REPLICAS)} registered; per dialect, a conforming demo stream of "
        f"{args.calls} calls x {args.kib} KiB, best of {args.rounds} interleaved runs"
    )
    ok = True
    for dialect in DIALECTS:
        lines, fine = bench_dialect(dialect, args.calls, args.kib, args.rounds)
        print("\n".join(lines))
        ok = ok and fine
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
