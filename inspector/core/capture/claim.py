"""A new capture's file name, claimed atomically and never empty.

Invariants:
- A name is made safe for a file name, never holds a secret (a part holding one, or a
  credential shape, is "REDACTED") and is never an existing file ("-2", "-3" …).
- The name is claimed with content: a header-only capture marked ``"pending": true`` is
  written to a temporary file and hard-linked to the name (a link fails on an existing name),
  so a claimed name never holds an empty file, even if the process dies before its writer
  starts; the writer (:mod:`.writer`) replaces it by rename. Without hard links the name is
  claimed empty (O_EXCL).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Collection
from pathlib import Path

import orjson

import inspector
from inspector.core.capture import compat
from inspector.core.capture.format import FORMAT, REDACTED, TOOL, CaptureError
from inspector.core.capture.redaction import holds_credential

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def new_capture_path(
    directory: str | os.PathLike[str], *parts: str, secrets: Collection[str] = ()
) -> Path:
    """A new, empty capture file in ``directory`` named after ``parts`` (joined by "-", each
    made safe for a file name: "openai/gpt-4o" gives "openai_gpt-4o"; a part holding one of
    ``secrets`` or a credential shape — a model string equal to a key — becomes "REDACTED"),
    never an existing file: two sessions in the same second get "-2", "-3" …

    The name is claimed atomically with content: a header-only capture (``"pending": true``)
    is written to a temporary file and hard-linked to the name (a link fails on an existing
    name), so the name never holds an empty file, not even if the process is killed before
    its writer starts; the writer then replaces it by rename (module doc). A file system
    without hard links gets the name claimed empty (O_EXCL) instead."""
    safe = [REDACTED if holds_credential(p, secrets) else p for p in parts]
    stem = "-".join(_UNSAFE_NAME.sub("_", p).strip("._") or "_" for p in safe)
    base = Path(directory)
    base.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10_000):
        path = base / (f"{stem}.jsonl" if n == 1 else f"{stem}-{n}.jsonl")
        try:
            if _claim(path):
                return path
        except OSError as exc:
            raise CaptureError(
                f"cannot create capture: {exc.strerror or exc}", path=str(path)
            ) from None
    raise CaptureError("too many captures of that name", path=str(base / stem))


def _pending_header() -> bytes:
    header = {"format": FORMAT, "version": compat.CURRENT_VERSION, "pending": True}
    header.update(tool=TOOL, tool_version=inspector.__version__)
    return orjson.dumps(header, option=orjson.OPT_APPEND_NEWLINE)


def _claim(path: Path) -> bool:
    """Claim ``path`` holding a pending header (see :func:`new_capture_path`); False when
    the name is taken. OSError when nothing can be written (a full disk: nothing is left)."""
    # A name of its own for each claim: sessions claim at once, from threads of one process.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(6).hex()}.claim")
    try:
        with open(tmp, "xb") as f:
            f.write(_pending_header())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:  # no hard links here: claim the name empty
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            except FileExistsError:
                return False
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def is_claim(path: str) -> bool:
    """Is ``path`` still the claim :func:`new_capture_path` made (empty, or its header)?"""
    try:
        if os.path.islink(path):
            return False
        with open(path, "rb") as f:
            data = f.read(4096)
    except OSError:
        return False
    return data in (b"", _pending_header())


def discard_claim(path: str | os.PathLike[str]) -> bool:
    """Remove ``path`` if it is still only the claim (no writer ever started on it): True
    when removed. A capture that got its real header is never touched."""
    name = os.fspath(path)
    if not is_claim(name):
        return False
    with contextlib.suppress(OSError):
        os.unlink(name)
        return True
    return False
