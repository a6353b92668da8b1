"""What masking the session's key costs the capture writer (issue 25): chunks of a long
tool-call stream written with no key, then with a key (the proxy's case: every request carries
one), in the same run; prints microseconds per chunk and the ratio. The chunks hold no piece
of the key, as nearly every real chunk; a second line writes chunks that echo the key.

Run: ``.venv/bin/python bench/redaction.py [--chunks N]``. A report, not a test.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from inspector.core.capture.writer import CaptureWriter

KEY = "sk-proj-BENCHa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8"
PLAIN = (
    b'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":'
    b'{"tool_calls":[{"index":0,"function":{"arguments":"Paris, France, today"}}]}}]}\n\n'
)
ECHO = PLAIN.replace(b"Paris, France, today", KEY.encode())


def _run(chunk: bytes, secrets: tuple[str, ...], n: int, folder: str) -> float:
    path = os.path.join(folder, "bench.jsonl")
    start = time.perf_counter()
    with CaptureWriter(path, secrets=secrets) as w:
        for i in range(n):
            w.chunk(1, i / 1000, chunk)
    return (time.perf_counter() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=20000)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    for label, chunk in (("no piece of the key", PLAIN), ("the key echoed", ECHO)):
        runs = [(_run(chunk, (), args.chunks, folder), _run(chunk, (KEY,), args.chunks, folder))
                for _ in range(3)]  # fmt: skip
        base, keyed = sorted(r[0] for r in runs)[1], sorted(r[1] for r in runs)[1]
        print(f"{label:20}  no key {base:6.1f} µs/chunk  with the key {keyed:6.1f} µs/chunk  "
              f"ratio {keyed / base:.2f}  (median of 3, {args.chunks} chunks)")  # fmt: skip


if __name__ == "__main__":
    main()
