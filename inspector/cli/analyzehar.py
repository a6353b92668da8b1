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
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import Any

from inspector.core.base.errors import InspectorError
from inspector.core.capture.format import CaptureError
from inspector.core.capture.records import Capture
from inspector.core.replay.harsessions import HarSession, HarSessions, load_sessions
from inspector.core.reports.jsonstream import write_json

Judged = tuple[Any, int]
"""(the report, made as it is written: a lazy JSON document
(:mod:`inspector.core.reports.jsonstream`) under ``--json``, else the text's pieces, each ended
by a newline; the exit code)."""
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
    emit(report, as_json)
    return code


def _several(sessions: HarSessions, path: str, judge: Judge, as_json: bool) -> int:
    """Each session judged as its turn to be written comes (one analysis alive at a time)."""
    codes: list[int] = []

    def judged() -> Iterator[tuple[HarSession, Judged | str]]:
        for s in sessions.sessions:
            if s.problem is not None:
                yield s, s.problem
                continue
            try:
                report, code = judge(s.capture, source_of(path, s))
            except InspectorError as exc:
                yield s, str(exc)
                continue
            codes.append(code)
            yield s, (report, code)

    each = judged()
    if as_json:
        doc = {"har": path, "summary": sessions.summary, "hidden": sessions.hidden}
        emit({**doc, "sessions": (_entry(s, j) for s, j in each)}, True)
    else:
        head = [f"{path}: {sessions.summary}\n"]
        head += [
            f"  {s.label}{f'  ({s.problem})' if s.problem else ''}\n" for s in sessions.sessions
        ]
        emit(chain(head, chain.from_iterable(_text(s, j) for s, j in each)), False)
    for _ in each:  # a reader that stopped early: the sessions not written still decide the code
        pass
    return max(codes) if codes else 2


def _entry(session: HarSession, judged: Judged | str) -> dict[str, Any]:
    item: dict[str, Any] = {"entry": session.entry, "label": session.label}
    if isinstance(judged, str):
        return {**item, "problem": judged}
    return {**item, "report": judged[0]}


def _text(session: HarSession, judged: Judged | str) -> Iterable[str]:
    if isinstance(judged, str):
        # a session left out before judging is in the list above; one that failed says why
        return [] if session.problem is not None else [f"\n── {session.label} ──\n{judged}\n"]
    return chain([f"\n── HAR {session.label} ──\n"], judged[0])


def emit(report: Any, as_json: bool) -> None:
    """Write one report to stdout as it is made: a JSON document (its lazy parts made as
    written, :func:`.jsonstream.write_json`) or the text's pieces, each ended. A reader that
    stops reading (``analyze … | head``) ends the writing quietly; the exit code stands. A
    text piece the terminal cannot encode (a lone surrogate) is written with it escaped."""
    try:
        if as_json:
            write_json(report, sys.stdout.buffer)
        else:
            for piece in report:
                _write(piece)
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()


def _write(piece: str) -> None:
    """One piece of the text report: a lone surrogate (a client's reading of an escaped pair
    split across chunks) is written as its escape, ``\\ud83d``, never an encoding error."""
    try:
        sys.stdout.write(piece)
    except UnicodeEncodeError:
        sys.stdout.write(piece.encode("utf-8", "backslashreplace").decode("utf-8"))


def _stdout_to_devnull() -> None:
    """Point stdout at the null device, so what is still buffered (flushed at exit) goes
    nowhere instead of raising again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's stand-in)
        pass
