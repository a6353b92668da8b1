"""``analyze FILE.har``: the LLM sessions of a HAR file, judged like captures.

Which sessions: ``--entry N`` judges the session whose first request is HAR entry N (the
number the window's picker and this command's list show). Without it, a HAR with one LLM
session is judged like a capture (the same report); a HAR with several lists them and judges
each in turn, in file order — nothing in the file is passed over in silence.

Invariants:
- Output for one session is the capture report, unchanged (text, or ``--json``'s document).
  For several: text is the list, then each report under a ``── HAR entry N · … ──`` line;
  ``--json`` is one document ``{"har", "summary", "hidden", "sessions": [{"entry", "label",
  "report"} or {"entry", "label", "problem"}]}``.
- Exit codes follow the capture table, session by session; several sessions exit with the
  worst code among those judged. A session that cannot be shown (a body the exporter left
  out, a non-streaming reply) is its one-line reason: exit 2 when it is the only one asked
  for or none could be judged, otherwise listed with its reason and left out of the worst.
- HAR entry numbers name sessions everywhere (1-based positions in ``log.entries``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import orjson

from inspector.core.base.errors import InspectorError
from inspector.core.capture.format import CaptureError
from inspector.core.capture.records import Capture
from inspector.core.replay.harsessions import HarSession, HarSessions, load_sessions

Judged = tuple[Any, int]
"""(the report: a JSON document under ``--json``, else text; the exit code)."""
Judge = Callable[[Capture, str], Judged]
"""Judges one capture (``source``: how the report names it) as ``analyze`` does."""


def analyze_har(args: argparse.Namespace, judge: Judge) -> int:
    """``analyze FILE.har [--entry N]`` (see the module docstring)."""
    path: str = args.path
    sessions = load_sessions(path)
    if not sessions.sessions:
        raise CaptureError(sessions.none_reason(), path=path)
    entry = getattr(args, "entry", None)
    if entry is not None or len(sessions.sessions) == 1:
        session = sessions.pick(entry) if entry is not None else sessions.sessions[0]
        return _one(session, path, judge, args.json)
    return _several(sessions, path, judge, args.json)


def source_of(path: str, session: HarSession) -> str:
    """How a report names a HAR session: ``FILE.har, entry N``."""
    return f"{path}, entry {session.entry}"


def _one(session: HarSession, path: str, judge: Judge, as_json: bool) -> int:
    if session.problem is not None:
        raise CaptureError(session.problem, path=path)
    report, code = judge(session.capture, source_of(path, session))
    _emit(report, as_json)
    return code


def _several(sessions: HarSessions, path: str, judge: Judge, as_json: bool) -> int:
    results: list[dict[str, Any]] = []
    codes: list[int] = []
    texts = [f"{path}: {sessions.summary}\n"]
    texts += [f"  {s.label}{f'  ({s.problem})' if s.problem else ''}\n" for s in sessions.sessions]
    for s in sessions.sessions:
        item: dict[str, Any] = {"entry": s.entry, "label": s.label}
        if s.problem is not None:
            results.append({**item, "problem": s.problem})
            continue
        try:
            report, code = judge(s.capture, source_of(path, s))
        except InspectorError as exc:
            results.append({**item, "problem": str(exc)})
            texts.append(f"\n── {s.label} ──\n{exc}\n")
            continue
        codes.append(code)
        results.append({**item, "report": report})
        texts.append(f"\n── HAR {s.label} ──\n{report}")
    if as_json:
        doc = {"har": path, "summary": sessions.summary, "hidden": sessions.hidden}
        _emit({**doc, "sessions": results}, True)
    else:
        _emit("".join(texts), False)
    return max(codes) if codes else 2


def _emit(report: Any, as_json: bool) -> None:
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        sys.stdout.write(report)
    sys.stdout.flush()
