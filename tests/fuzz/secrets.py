"""The redaction target: the session's key planted in hostile bytes, written and read back.

``roundtrip(data, variant)`` plants :data:`KEY` in ``data`` at a place ``variant`` picks, cuts
the result into chunks (so the key is often split across two or more), and writes a capture
with the key as the session's secret: the request (the data as a text body and a header
value), the response headers, every chunk and an end error quoting the data. Then:

- the key's bytes are nowhere in the file;
- the capture reads back, every chunk the same length as sent, and equal to it but for the
  ranges its records list as masked, which are exactly where the key was (``*`` there);
- what ``mask_secrets`` makes of the data holds neither the key nor a credential shape.

Any failure is an AssertionError: a crash for the harness.
"""

from __future__ import annotations

import os
import tempfile
from typing import Final

from inspector.core.capture.credentials import SHAPE
from inspector.core.capture.reader import load
from inspector.core.capture.redaction import find_keys, mask_secrets
from inspector.core.capture.writer import CaptureWriter

KEY: Final = "sk-fuzzcanary-0123456789abcdefXYZ"
_DIR: Final = tempfile.mkdtemp(
    prefix="tci-fuzz-secrets-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None
)
"""In memory where there is a tmpfs: the writer's fsync on close costs nothing there."""


def roundtrip(data: bytes, variant: int) -> None:
    """See the module doc."""
    key = KEY.encode()
    at = (variant * 7919) % (len(data) + 1)
    body = data[:at] + key + data[at:] + (b"." if variant & 1 else b"\n")
    cuts = sorted({(variant * p) % (len(body) + 1) for p in (3, 11, 29, 31)} | {at + 5})
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    path = os.path.join(_DIR, f"{os.getpid()}.jsonl")
    text = body.decode("utf-8", "replace")
    with CaptureWriter(path, meta={"model": text[:64]}, secrets=[KEY]) as w:
        w.request(1, "POST", "http://h/v1?key=" + KEY, {"X-Echo": text[:200]}, text, 0.0)
        w.response(1, 200, {"x-debug-echo": f"caller={KEY}."}, 0.1)
        for i, chunk in enumerate(chunks):
            w.chunk(1, 0.1 + i / 1000, chunk)
        w.end(1, 1.0, "error", f"echo: {text[:300]!r}")
    with open(path, "rb") as f:
        written = f.read()
    assert key not in written, "the key was written"
    capture = load(path)
    (attempt,) = capture.attempts
    got = [c for _, c in attempt.chunks]
    assert [len(c) for c in got] == [len(c) for c in chunks], "a chunk changed length"
    joined = b"".join(got)
    expected = bytearray(body)
    for start, end in find_keys(body, [key]):
        expected[start:end] = b"*" * (end - start)
    assert joined == bytes(expected), "the body differs from the masked original"
    spans = find_keys(body, [key])
    covered = {i for a, b in attempt.masked for i in range(a, b)}
    assert all(i in covered for a, b in spans for i in range(a, b)), "a masked range is missing"
    printed = mask_secrets(text, [KEY])
    assert KEY not in printed and not SHAPE.search(printed), "a printed line holds a key"
