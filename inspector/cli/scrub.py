"""``toolcall-inspector scrub FILE… [--out PATH] [--key-env VAR…]``: today's redaction rule
applied to captures and HAR files already on disk (:mod:`inspector.core.capture.scrub`).

In place, each FILE is first renamed to a backup (``FILE.orig``, ``FILE.orig-2`` …: it still
holds what was there, so the line printed says to delete it once checked); with ``--out``
(one FILE) the original is left as it is. ``--key-env VAR`` names an environment variable
holding a key to look for too (a capture's own headers no longer say its key: they were
redacted when it was written); a key is never taken from the command line, where ``ps``
would show it.

Exit codes: 0 every file scrubbed, 2 a file that cannot be read or written (one line; the
others are still done).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import orjson

from inspector.core.base.errors import InspectorError
from inspector.core.capture import harexport
from inspector.core.capture.format import CaptureError
from inspector.core.capture.scrub import backup_name, scrub_capture, scrub_har
from inspector.core.replay.harsessions import is_har_file


def add_scrub_parser(sub: Any) -> None:
    """The ``scrub`` subcommand."""
    s = sub.add_parser(
        "scrub",
        help="apply today's redaction rule to captures and HAR files on disk",
        description="Rewrite captures (.jsonl) and HAR files under today's redaction rule: keys "
        "by value (in response bodies too, masked by * of the same length), credential "
        "shapes, credential body fields. In place with a backup (FILE.orig), or --out.",
    )
    s.add_argument("paths", nargs="+", metavar="FILE", help="captures or HAR files")
    s.add_argument("--out", metavar="PATH", help="write here instead (one FILE only)")
    s.add_argument(
        "--key-env",
        action="append",
        default=[],
        metavar="VAR",
        help="an environment variable holding a key to mask wherever it shows (repeatable)",
    )


def scrub(args: argparse.Namespace) -> int:
    """Scrub each file (module doc); 0, or 2 when one could not be done."""
    if args.out and len(args.paths) != 1:
        raise InspectorError("--out takes one FILE")
    missing = [v for v in args.key_env if not os.environ.get(v)]
    if missing:
        raise InspectorError(f"--key-env: {missing[0]} is not set")
    secrets = [os.environ[v] for v in args.key_env]
    code = 0
    for path in args.paths:
        try:
            line = _one(path, args.out, secrets)
        except (InspectorError, OSError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            print(f"toolcall-inspector: {path}: {why}", file=sys.stderr)
            code = 2
            continue
        print(line)
    return code


def _one(path: str, out: str | None, secrets: list[str]) -> str:
    if not os.path.isfile(path):
        raise CaptureError("no such file", path=path)
    target, backup = out or path, None
    source = path
    if out is None:
        backup = backup_name(path)
        os.rename(path, backup)  # the original keeps its bytes under the backup's name
        source = backup
    try:
        what = _write(source, target, secrets)
    except BaseException:
        if backup is not None and not os.path.exists(path):
            os.rename(backup, path)
        raise
    kept = f"; the original is {backup} (delete it once checked)" if backup else ""
    return f"scrubbed {target}: {what}{kept}"


def _write(source: str, target: str, secrets: list[str]) -> str:
    if is_har_file(source) or source.lower().endswith((".har", ".har.orig")):
        with open(source, "rb") as f:
            data = f.read()
        try:
            doc = orjson.loads(data.removeprefix(b"\xef\xbb\xbf"))
        except orjson.JSONDecodeError:
            raise CaptureError("not a HAR file (no JSON)", path=source) from None
        entries = scrub_har(doc, secrets)
        harexport.write(target, doc)
        return f"{entries} HAR entr{'y' if entries == 1 else 'ies'}"
    attempts = scrub_capture(source, target, secrets)
    return f"capture, {attempts} attempt{'' if attempts == 1 else 's'}"
