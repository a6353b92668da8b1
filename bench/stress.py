"""Stress benchmark: peak memory over input size on huge inputs (``make bench-stress``).

Run with ``.venv/bin/python bench/stress.py [--scale 0.05] [--only NAME] [--no-loader]``.
A report, not a test: it exits 0 whether or not the goal is met.

It builds the inputs of the issue on huge inputs (raw SSE bodies, OpenAI Chat Completions,
cached in the temp directory):

- ``calls``: 200,000 tool calls in one body (~34 MB), one chunk per call (~170 bytes);
- ``comments``: 1,000,000 keep-alive comments (~13 MB) around one small call;
- ``fragments``: 10 MB of arguments in 100,000 fragments of one call;
- ``line``: one 200 MB ``data:`` line (a single call whose arguments are one huge string).

Each input is judged in a fresh subprocess twice: ``toolcall-inspector analyze --json`` (its
stdout discarded) and the window's loader (the core's :class:`ProgressiveLoad` stepped in the
window's 25 ms slices with ``gc.freeze()`` after each, as ``ui/loading/progressive.py`` does, no
views). The child's peak RSS comes from ``os.wait4`` (its own ``ru_maxrss``, not the sum of all
children). Printed: input size, peak RSS, the ratio peak / input (goal <= 8x) and the ratio
above an idle interpreter's peak (the same child on a 1-byte input), plus wall time. ``--scale``
multiplies every size (0.05 for a quick run; small inputs make the interpreter's own ~50-80 MB
dominate the plain ratio, so read the second one then).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

GOAL = 8.0
GEN_VERSION = 2
ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

_CHUNK = (
    b'data: {"model":"m","choices":[{"index":0,"delta":{"tool_calls":[%s]},"finish_reason":null}]}'
    b"\n\n"
)
_TAIL = (
    b'data: {"id":"chatcmpl-stress","object":"chat.completion.chunk","created":1726000000,'
    b'"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    b"data: [DONE]\n\n"
)


def _entry(index: int, args: bytes, opening: bool) -> bytes:
    """One tool-call entry: the opening one carries id, type and name."""
    if not opening:
        return b'{"index":%d,"function":{"arguments":"%s"}}' % (index, args)
    return (
        b'{"index":%d,"id":"call_%08d","type":"function","function":{"name":"lookup",'
        % (
            index,
            index,
        )
        + b'"arguments":"%s"}}' % args
    )


def build_calls(n: int) -> bytes:
    """``n`` complete tool calls, one chunk each (~170 bytes a call, as a fuzzing run's)."""
    out = [_CHUNK % _entry(i, b'{\\"id\\":%d}' % i, True) for i in range(n)]
    return b"".join(out) + _TAIL


def build_comments(n: int) -> bytes:
    """``n`` keep-alive comment lines (13 bytes each) around one small call."""
    head = _CHUNK % _entry(0, b"", True)
    half = b": keep-alive\n" * (n // 2)
    rest = b": keep-alive\n" * (n - n // 2)
    return head + half + _CHUNK % _entry(0, b'{\\"q\\":1}', False) + rest + _TAIL


def build_fragments(n: int, size: int = 100) -> bytes:
    """One call whose arguments (``n`` x ``size`` characters) arrive in ``n`` fragments."""
    piece = b"x" * (size - 1)
    out = [_CHUNK % _entry(0, b'{\\"text\\":\\"', True)]
    out += [_CHUNK % _entry(0, piece + b"%d" % (i % 10), False) for i in range(n)]
    out.append(_CHUNK % _entry(0, b'\\"}', False))
    return b"".join(out) + _TAIL


def build_line(size: int) -> bytes:
    """One ``data:`` line of about ``size`` bytes: a call whose arguments are one huge string."""
    filler = b"y" * max(size - 200, 1)
    return _CHUNK % _entry(0, b'{\\"blob\\":\\"' + filler + b'\\"}', True) + _TAIL


INPUTS: dict[str, tuple[Callable[[float], bytes], str]] = {
    "calls": (lambda s: build_calls(round(200_000 * s)), "200k tool calls"),
    "comments": (lambda s: build_comments(round(1_000_000 * s)), "1M keep-alive comments"),
    "fragments": (lambda s: build_fragments(round(100_000 * s)), "10 MB args, 100k fragments"),
    "line": (lambda s: build_line(round(200_000_000 * s)), "one 200 MB line"),
}


def _cache_dir() -> Path:
    d = Path(tempfile.gettempdir()) / "tci-bench-stress"
    d.mkdir(parents=True, exist_ok=True)
    return d


def input_file(name: str, scale: float) -> Path:
    """The input ``name`` at ``scale`` (generated once, cached), generated in a process of its
    own: a child this process starts after it grew would report this process's size as its
    own peak (Linux keeps the larger of the two across ``exec`` in ``ru_maxrss``)."""
    path = _cache_dir() / f"{name}-x{scale:g}-v{GEN_VERSION}.sse"
    if not path.exists():
        argv = [sys.executable, __file__, "--generate", name, "--scale", f"{scale!r}"]
        subprocess.run(argv, check=True, cwd=ROOT)
    return path


def generate(name: str, scale: float) -> None:
    """Write the input ``name`` at ``scale`` to its cache file (runs in its own process)."""
    path = _cache_dir() / f"{name}-x{scale:g}-v{GEN_VERSION}.sse"
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(INPUTS[name][0](scale))
    tmp.rename(path)


# -- the children ---------------------------------------------------------------------------


def load_child(path: str) -> None:
    """Open ``path`` the way the window does, minus the views (runs in the child)."""
    import gc

    from inspector.core.base.settings import Settings
    from inspector.core.capture.readahead import read_for_load
    from inspector.core.replay.loading import AHEAD_PAST, ProgressiveLoad

    opening = read_for_load(path, AHEAD_PAST)  # these raw bodies are read whole (no read-ahead)
    load = ProgressiveLoad(opening.data, path, Settings(), ahead=opening.ahead, size=opening.size)
    del opening
    while not load.step(0.025):
        gc.freeze()
    gc.freeze()
    calls = sum(len(a.stream.calls) for a in load.analysis.attempts)
    print(f"calls={calls}", file=sys.stderr)


def run_child(argv: list[str], timeout: float) -> tuple[int, float, str]:
    """(peak RSS in bytes, wall seconds, "" or what went wrong) of one child; one still
    running after ``timeout`` seconds is killed, its peak so far read from /proc."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        hwm, problem = 0, ""
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            hwm = max(hwm, _hwm(proc.pid))
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                problem = f"TIMEOUT after {timeout:g} s (peak so far)"
                break
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if not problem and proc.returncode not in (0, 1):
            err.seek(0)
            problem = f"failed ({proc.returncode}): {err.read().decode(errors='replace')[-300:]}"
    return max(usage.ru_maxrss * 1024, hwm), time.perf_counter() - t0, problem


def _hwm(pid: int) -> int:
    """The child's peak RSS so far (VmHWM), 0 when it cannot be read."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            found = re.search(rb"VmHWM:\s+(\d+) kB", f.read())
    except OSError:
        return 0
    return int(found.group(1)) * 1024 if found else 0


def analyze_argv(path: Path) -> list[str]:
    return [str(BIN / "toolcall-inspector"), "analyze", "--json", str(path)]


def loader_argv(path: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--load-child", str(path)]


# -- the report -----------------------------------------------------------------------------


def report(
    name: str, what: str, path: Path, idle: dict[str, int], modes: list[str], timeout: float
) -> bool:
    size = path.stat().st_size
    print(f"{name:<10} {what} — {size / 1e6:.1f} MB")
    ok = True
    for mode in modes:
        argv = analyze_argv(path) if mode == "analyze" else loader_argv(path)
        peak, wall, problem = run_child(argv, timeout)
        ratio = peak / size
        above = (peak - idle[mode]) / size
        met = ratio <= GOAL and not problem
        ok = ok and met
        print(
            f"  {mode:<8} peak {peak / 1e6:8.1f} MB  {ratio:6.1f}x input  "
            f"({above:5.1f}x above idle)  {wall:6.1f} s  {'PASS' if met else 'MISS'}",
            flush=True,
        )
        if problem:
            print(f"    {problem}")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every size (0.05: quick)")
    ap.add_argument("--only", choices=tuple(INPUTS), action="append", help="run these inputs")
    ap.add_argument("--no-loader", action="store_true", help="analyze only")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per child at most")
    ap.add_argument("--load-child", help=argparse.SUPPRESS)
    ap.add_argument("--generate", choices=tuple(INPUTS), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.load_child:
        load_child(args.load_child)
        return 0
    if args.generate:
        generate(args.generate, args.scale)
        return 0
    modes = ["analyze"] if args.no_loader else ["analyze", "loader"]
    empty = _cache_dir() / f"idle-v{GEN_VERSION}.sse"
    empty.write_bytes(_TAIL)  # the smallest stream: a finish and [DONE]
    idle = {
        "analyze": run_child(analyze_argv(empty), args.timeout)[0],
        "loader": run_child(loader_argv(empty), args.timeout)[0],
    }
    print(
        f"idle interpreter peak: analyze {idle['analyze'] / 1e6:.0f} MB, "
        f"loader {idle['loader'] / 1e6:.0f} MB; goal <= {GOAL:g}x input; scale {args.scale:g}"
    )
    ok = True
    for name in args.only or INPUTS:
        t0 = time.perf_counter()
        path = input_file(name, args.scale)
        if time.perf_counter() - t0 > 1:
            print(f"  (generated {path.name} in {time.perf_counter() - t0:.1f} s)")
        ok = report(name, INPUTS[name][1], path, idle, modes, args.timeout) and ok
    print("every ratio within its goal" if ok else "some ratio misses its goal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
