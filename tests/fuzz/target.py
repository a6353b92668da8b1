"""The fuzz target: the whole headless path, from a file's bytes to both reports.

``run(data, variant)`` reads ``data`` as ``analyze`` does (a capture, or a raw SSE body; the
gate that turns away a body that is not a stream is asked, but the body is judged anyway),
judges it under the settings ``variant`` picks (each dialect and ``auto``, both empty-id
policies, every validation mode; a capture header's dialect as ``analyze`` reads it), works out
the exit status, writes the JSON report (serialised as ``analyze --json`` does) and the
text report, lists the findings the window shows, asks each call's fragment progress (the
lanes), and, for some variants, flips the empty-id policy on a fork and compares the two (the
side-by-side view), or opens the bytes the way the window does (a progressive load).

Invariant: the only exception that may leave ``run`` is a crash. A clean refusal of the input
(:class:`~inspector.core.base.errors.InspectorError`: a capture that cannot be opened, with its
one-line message) is an answer, not a crash; every other exception is one.
"""

from __future__ import annotations

import io
import os
import traceback
from contextlib import suppress
from dataclasses import dataclass
from typing import Final

from fuzz.secrets import roundtrip
from inspector.core.analysis.session import Analysis
from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import EMPTY_ID_POLICIES, VALIDATION_MODES, Settings
from inspector.core.calls.progress import progress_of
from inspector.core.capture.reader import load_bytes
from inspector.core.capture.records import Capture
from inspector.core.providers import AUTO, REGISTRY
from inspector.core.replay.loading import ProgressiveLoad
from inspector.core.reports import report
from inspector.core.reports.compare import compare
from inspector.core.reports.exitcodes import session_status
from inspector.core.reports.gate import check_stream, header_settings
from inspector.core.reports.jsonstream import write_json

DIALECTS: Final = (AUTO, *REGISTRY.names())
"""Every dialect a user can choose: ``auto`` and each built-in provider."""

VARIANTS: Final = len(DIALECTS) * len(EMPTY_ID_POLICIES) * len(VALIDATION_MODES) * 8
"""How many distinct ways ``run`` judges one input (settings × extra paths)."""

_CORE: Final = os.sep + os.path.join("inspector", "core") + os.sep


def settings_of(variant: int) -> Settings:
    """The settings ``variant`` stands for (every combination over ``VARIANTS``)."""
    v = variant % VARIANTS
    dialect = DIALECTS[v % len(DIALECTS)]
    v //= len(DIALECTS)
    empty_id = EMPTY_ID_POLICIES[v % len(EMPTY_ID_POLICIES)]
    v //= len(EMPTY_ID_POLICIES)
    validation = VALIDATION_MODES[v % len(VALIDATION_MODES)]
    return Settings(dialect, validation, empty_id)


def _extras(variant: int) -> int:
    """Bits: 1, a fork under the other empty-id policy, compared, then another validation
    mode applied; 2, a progressive load; 4, a live-like feed, judged after every chunk."""
    return (variant % VARIANTS) // (len(DIALECTS) * len(EMPTY_ID_POLICIES) * len(VALIDATION_MODES))


SECRETS_EVERY: Final = 4
"""One input in this many also goes through the redaction round trip (:mod:`fuzz.secrets`)."""


def run(data: bytes, variant: int) -> bool:
    """Judge ``data`` under ``variant`` end to end; True when it was read, False when it was
    refused cleanly. Any exception is a crash."""
    if variant % SECRETS_EVERY == 0:
        roundtrip(data, variant)
    settings = settings_of(variant)
    try:
        capture = load_bytes(data, "fuzz")
    except InspectorError:
        return False
    with suppress(InspectorError):  # analyze stops at a body that is not a stream; not the core
        check_stream(capture, "fuzz")
    settings = header_settings(capture, settings, REGISTRY)
    analysis = Analysis.from_capture(capture, settings, providers=REGISTRY)
    _reports(analysis)
    session_status(analysis)
    extras = _extras(variant)
    if extras & 1:
        other = "literal" if settings.empty_id == "absent" else "absent"
        fork = analysis.fork(settings.with_strings(empty_id=other))
        compare(analysis, fork).lines()
        modes = [m for m in VALIDATION_MODES if m != settings.validation]
        analysis.apply(settings.with_strings(validation=modes[variant % len(modes)]))
        _reports(analysis)
    if extras & 4:
        _live(capture, settings)
    if extras & 2:
        load = ProgressiveLoad(data, "fuzz", settings, providers=REGISTRY)
        while not load.step(10.0):
            pass
        _reports(load.analysis)
    return True


def _live(capture: Capture, settings: Settings) -> None:
    """Feed every chunk as a live session does, asking what a view asks after each."""
    live = Analysis(settings, providers=REGISTRY)
    for source in capture.attempts:
        view = live.begin_attempt(source)
        for t, chunk in source.chunks:
            live.feed(chunk, t)
            view.quirks  # noqa: B018 (a view's read: works the quirks out)
            live.judge()
        live.end()
    _reports(live)


def _reports(analysis: Analysis) -> None:
    doc = report.to_json(analysis, source="fuzz")
    write_json(doc, io.BytesIO())  # the writer analyze --json uses (a lone surrogate escaped)
    report.to_text(analysis, "fuzz", colour=True)
    report.findings(analysis)
    for view in analysis.attempts:
        for call in view.state.calls:
            assert progress_of(call, view.state.events).last is not None or not call.fragments


@dataclass(frozen=True)
class Crash:
    """One exception that left :func:`run`."""

    site: str
    """``file:line`` of the innermost frame in ``inspector/core`` (where the core failed), or
    of the innermost frame at all when the core is not on the stack."""
    error: str
    """``Type: message``, on one line, clipped."""


def crash_of(exc: BaseException) -> Crash:
    """Where ``exc`` was raised, as a :class:`Crash`."""
    frames = traceback.extract_tb(exc.__traceback__)
    core = [f for f in frames if _CORE in f.filename]
    frame = (core or frames or [None])[-1]
    if frame is None:
        site = "?"
    else:
        path = frame.filename
        at = path.find(os.sep + "inspector" + os.sep)
        site = f"{path[at + 1 :] if at >= 0 else os.path.basename(path)}:{frame.lineno}"
    message = " ".join(f"{type(exc).__name__}: {exc}".split())
    return Crash(site, message[:200])
