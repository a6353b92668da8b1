"""``make verify-clients``: run each real client library over its streams; write the goldens.

Usage (from the checkout): ``PYTHONPATH=tests .venv/bin/python -m clients.verify
[--replica NAME] [--record] [--timeout S]``. ``--record`` re-records the corpus first
(:mod:`clients.record`); ``--replica`` limits the run to one runner.

Invariants:
- Each run gets its own replay server (:func:`clients.serve.replay_server`) and at most
  ``--timeout`` seconds; a run still going then is recorded as the error ``HarnessTimeout``,
  never a hang. An exception out of ``run`` is recorded as the library's error.
- A runner's streams run concurrently, ``Runner.concurrency`` at a time; runners one after
  the other (their summary lines carry their own wall time).
- A run that raised is run once more, on a new server (another port): when the two messages
  differ (a port, a request id, an address in them), the golden's error says
  ``"varies": true`` and the goldens test compares its type only.
- ``goldens/<replica>.json`` is ``{"replica", "library", "version", "streams": {id: {"calls",
  "error"}}}``: keys in that order, streams sorted by id, two-space indent, ASCII, a
  trailing newline; re-running on unchanged libraries and corpus rewrites the same bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from clients.real import RUNNERS, Outcome, Runner, raised
from clients.record import record_corpus
from clients.serve import replay_server
from clients.streams import HERE, Stream, all_streams

GOLDENS = HERE / "goldens"
RUN_TIMEOUT = 30.0
"""Seconds one real run may take (``--timeout``)."""
SERVER = "<server>"
"""How a varying message writes the replay server's ``host:port``."""


class RunnerBroken(Exception):
    """A runner returned something that is no outcome (a harness bug, not the library's)."""


def golden_path(replica: str, goldens: Path = GOLDENS) -> Path:
    """Where ``replica``'s golden lives."""
    return goldens / f"{replica}.json"


_CALL_KEYS = {"id", "name", "arguments"}
_CALL_MORE = {"kind", "item_type", "object"}


def _checked_call(c: Any, where: str) -> dict[str, Any]:
    """One call in the golden's key order; RunnerBroken when it is not one."""
    ok = isinstance(c, dict) and _CALL_KEYS <= set(c) <= _CALL_KEYS | _CALL_MORE
    if not ok or not isinstance(c["arguments"], str) or not all(
        v is None or isinstance(v, str) for v in (c["id"], c["name"])
    ):  # fmt: skip
        raise RunnerBroken(f"{where}: a call is {{'id', 'name', 'arguments': str}}: {c!r}")
    out = {"id": c["id"], "name": c["name"], "arguments": c["arguments"]}
    if "kind" in c:
        out["kind"], out["item_type"] = str(c["kind"]), c.get("item_type")
    if c.get("object"):
        out["object"] = True
    return out


def checked(result: Any, where: str) -> Outcome:
    """``result`` as an outcome in the golden's key order; RunnerBroken when it is none. An
    outcome is ``{"calls", "error"}``, then ``error_after`` (with calls AND an error: how many
    calls came before it) and ``hosted`` (the provider's own items the library handed over)
    only where they say something."""
    if not isinstance(result, dict) or not {"calls", "error"} <= set(result):
        raise RunnerBroken(f"{where}: a run returns {{'calls', 'error'}}, not {result!r:.200}")
    calls = [_checked_call(c, where) for c in result["calls"]]
    error = result["error"]
    if error is not None:
        if not isinstance(error, dict) or not {"type", "message"} <= set(error):
            raise RunnerBroken(f"{where}: an error is {{'type', 'message'}}: {error!r}")
        error = {"type": str(error["type"]), "message": str(error["message"])}
    out: Outcome = {"calls": calls, "error": error}
    if error is not None and calls:
        after = result.get("error_after")
        out["error_after"] = len(calls) if after is None else int(after)
    hosted = [_checked_call(c, where) for c in result.get("hosted") or []]
    if hosted:
        out["hosted"] = hosted
    return out


async def run_once(runner: Runner, stream: Stream, timeout: float = RUN_TIMEOUT) -> Outcome:
    """``runner`` over ``stream`` on a fresh replay server (see the module's invariants)."""
    outcome, _ = await _run(runner, stream, timeout)
    return outcome


async def _run(runner: Runner, stream: Stream, timeout: float) -> tuple[Outcome, str]:
    for module in runner.imports:  # before the clock: an import is no stall
        importlib.import_module(module)
    async with replay_server(stream) as base_url:
        try:
            async with asyncio.timeout(timeout):
                result = await runner.run(base_url, stream)
        except TimeoutError:
            stalled = f"the client did not finish within {timeout:g} s"
            error = {"type": "HarnessTimeout", "message": stalled}
            return {"calls": [], "error": error}, base_url
        except Exception as exc:
            return {"calls": [], "error": raised(exc)}, base_url
    return checked(result, f"{runner.replica} on {stream.id}"), base_url


async def run_stream(runner: Runner, stream: Stream, timeout: float = RUN_TIMEOUT) -> Outcome:
    """One stream's golden entry: run it; run a raise again to see whether its message varies
    (a varying message is kept with the server's address written ``<server>``)."""
    first, base_url = await _run(runner, stream, timeout)
    error = first["error"]
    if error is None or error["type"] == "HarnessTimeout":
        return first
    second, _ = await _run(runner, stream, timeout)
    if second["error"] is None or second["error"]["message"] != error["message"]:
        address = base_url.removeprefix("http://")
        error["message"] = error["message"].replace(address, SERVER)
        error["varies"] = True
    return first


async def sweep(
    runner: Runner, streams: Sequence[Stream], timeout: float = RUN_TIMEOUT
) -> dict[str, Outcome]:
    """Every stream ``runner`` speaks, run ``runner.concurrency`` at a time, by id."""
    mine = [s for s in streams if s.dialect in runner.dialects]
    gate = asyncio.Semaphore(runner.concurrency)

    async def one(stream: Stream) -> Outcome:
        async with gate:
            return await run_stream(runner, stream, timeout)

    results = await asyncio.gather(*(one(s) for s in mine))
    return {s.id: r for s, r in sorted(zip(mine, results, strict=True), key=lambda p: p[0].id)}


def golden(runner: Runner, outcomes: dict[str, Outcome]) -> dict[str, Any]:
    """The golden document, keys in order."""
    return {
        "replica": runner.replica,
        "library": runner.library,
        "version": runner.library_version(),
        "streams": dict(sorted(outcomes.items())),
    }


def dumps(doc: dict[str, Any]) -> str:
    """The golden file's text."""
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"


def load_golden(path: Path) -> dict[str, Any] | None:
    """A golden file, or None when it does not exist."""
    return json.loads(path.read_text()) if path.exists() else None


def summary_line(doc: dict[str, Any], before: dict[str, Any] | None, seconds: float) -> str:
    """One row of the summary table."""
    streams = doc["streams"]
    errors = [o["error"] for o in streams.values() if o["error"] is not None]
    old = (before or {}).get("streams", {})
    changed = sum(1 for k, v in streams.items() if old.get(k) != v) + len(set(old) - set(streams))
    varies = sum(1 for e in errors if e.get("varies"))
    return (
        f"{doc['replica']:<15} {doc['library'] + ' ' + doc['version']:<34} {len(streams):>7} "
        f"{len(errors):>6} {varies:>6} {changed:>7} {seconds:>6.1f}s"
    )


HEADER = f"{'replica':<15} {'library':<34} {'streams':>7} {'raised':>6} {'varies':>6} " \
    f"{'changed':>7} {'time':>7}"  # fmt: skip


async def verify(runners: Sequence[Runner], streams: Sequence[Stream], timeout: float,
                 goldens: Path = GOLDENS) -> list[str]:  # fmt: skip
    """Run and write every runner's golden; the summary rows."""
    rows = []
    goldens.mkdir(parents=True, exist_ok=True)
    for runner in runners:
        start = time.monotonic()
        doc = golden(runner, await sweep(runner, streams, timeout))
        path = golden_path(runner.replica, goldens)
        before = load_golden(path)
        path.write_text(dumps(doc))
        rows.append(summary_line(doc, before, time.monotonic() - start))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring); 2 with one line on a bad choice."""
    parser = argparse.ArgumentParser(prog="python -m clients.verify", description=__doc__)
    parser.add_argument("--replica", help="only this replica's runner")
    parser.add_argument("--record", action="store_true", help="re-record the corpus first")
    parser.add_argument("--timeout", type=float, default=RUN_TIMEOUT, metavar="S")
    args = parser.parse_args(argv)
    if args.replica is not None and args.replica not in RUNNERS:
        known = ", ".join(sorted(RUNNERS)) or "none registered"
        print(f"verify: no runner for replica {args.replica!r} (known: {known})", file=sys.stderr)
        return 2
    if args.record:
        start = time.monotonic()
        paths = asyncio.run(record_corpus())
        size = sum(p.stat().st_size for p in paths)
        print(f"recorded {len(paths)} captures ({size / 1024:.0f} KiB) "
              f"in {time.monotonic() - start:.1f}s")  # fmt: skip
    runners = [RUNNERS[args.replica]] if args.replica else [RUNNERS[k] for k in sorted(RUNNERS)]
    if not runners:
        print("verify: no runner is registered in tests/clients/real/__init__.py", file=sys.stderr)
        return 2
    streams = all_streams()
    start = time.monotonic()
    try:
        rows = asyncio.run(verify(runners, streams, args.timeout))
    except RunnerBroken as exc:
        print(f"verify: {exc}", file=sys.stderr)
        return 2
    print(f"{len(streams)} streams; goldens in {os.path.relpath(GOLDENS)}")
    print(HEADER)
    print("\n".join(rows))
    print(f"total {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
