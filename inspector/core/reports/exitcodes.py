"""The one exit-code table of ``analyze``, and the session facts that decide it.

============  ===================================================================================
``2``         bad usage, an unreadable file, or a raw body in which no event of any dialect is
              recognised ("not a stream"); a file with a valid capture header is never "not a
              stream"; a stream whose events no provider recognises ("unknown dialect", saying
              its content type and first event: never read as another dialect) unless
              ``--dialect`` forces one (an empty or keep-alive-only body is an empty stream, a
              dialect the capture or its request URL names is recognised); ``--client NAME``
              naming no known client replica, or one that does not speak the stream's dialect; a HAR
              session whose response body the exporter did not record ("body not recorded",
              e.g. mitmproxy's empty text with no size for a streamed response; a HAR with
              other sessions judges those and lists this one)
``1``         an invalid call, a failed request (HTTP status >= 400, a transport error, a wrong
              content type, a provider error inside a 200 stream: the attempt carried the
              provider's error, whatever came before it), an interrupted attempt (no end
              record), a body that is not valid UTF-8 (a client raises there or reads U+FFFD
              in its place) or whose binary frames cannot be read whole (a bad CRC, a cut
              frame: the AWS SDKs raise); with ``--client NAME``, also a named client that
              would not get the inspector's calls
``0``         everything else, including calls ``not checked`` (validation off)
============  ===================================================================================

Invariants:
- This module is the only place the table is written down: ``analyze --help``, the README and
  the report's JSON take it from here (:data:`EXIT_TABLE`), and the CLI returns
  :func:`session_status`'s code for every analysis that opened.
- Exit 2 is decided before an analysis exists (usage, reading, :mod:`.gate`: not a stream,
  unknown dialect), or, for
  ``--client``, before anything is printed (:mod:`.clientreport`); a session that was analysed
  exits 0 or 1, and exits 1 exactly when :func:`session_status` (plus, with ``--client``,
  :func:`.clientreport.client_reasons`) gives a reason. Without ``--client`` no client replica
  decides an exit code.
- ``record`` keeps describing the run (2 when the request failed); ``analyze`` the content.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Final

from inspector.core.analysis.numbering import place_names
from inspector.core.analysis.session import Analysis, AttemptView
from inspector.core.base.provider import Head
from inspector.core.providers import REGISTRY
from inspector.core.providers.sniff import recognise
from inspector.core.quirks.codes import BAD_FRAME, INVALID_UTF8
from inspector.core.reports.words import BAD_FRAME as BAD_FRAME_LINE
from inspector.core.reports.words import (
    BAD_FRAME_AT,
    UNDECODABLE,
    UNDECODABLE_AT,
    attempt_word,
    provider_error,
)
from inspector.core.verdicts.validation import Problem

OK: Final = 0
"""Nothing wrong was found (calls not checked included)."""
FOUND: Final = 1
"""An invalid call, a failed request, an interrupted attempt, a body that is not UTF-8 (or a
client named by ``--client`` that breaks)."""
BAD_INPUT: Final = 2
"""Bad usage (an unknown ``--client``, or one that does not speak the dialect), an unreadable
file, not a stream, or a stream of an unknown dialect."""

EXIT_TABLE: Final[tuple[tuple[int, str], ...]] = (
    (
        BAD_INPUT,
        "bad usage, an unreadable file, or a raw body in which no event of any dialect is "
        'recognised ("not a stream"); a file with a valid capture header is never "not a '
        'stream"; a stream whose events no provider recognises ("unknown dialect", saying '
        "its content type and first event: never read as another dialect) unless --dialect "
        "forces one (an empty or keep-alive-only body is an empty stream, a dialect the "
        "capture or its request URL names is recognised); --client NAME naming no known "
        "client replica, or one that does not speak the stream's dialect; a HAR "
        'session whose response body the exporter did not record ("body not recorded", e.g. '
        "mitmproxy's empty text with no size for a streamed response; a HAR with other "
        "sessions judges those and lists this one)",
    ),
    (
        FOUND,
        "an invalid call, a failed request (HTTP status >= 400, a transport error, a wrong "
        "content type, a provider error inside a 200 stream, whatever came before it), an "
        "interrupted attempt (no end record), a body that is not valid "
        "UTF-8 (a client raises there or reads U+FFFD in its place) or whose binary frames "
        "cannot be read whole (a bad CRC, a cut frame: the AWS SDKs raise); with --client "
        "NAME, also a named client that would not get the inspector's calls",
    ),
    (OK, "everything else, including calls not checked (validation off)"),
)
"""(code, meaning), from 2 down to 0."""


def table_text(indent: str = "  ", width: int = 78) -> str:
    """The table as plain lines wrapped at ``width`` (``--help``'s epilog)."""
    rows = []
    for code, meaning in EXIT_TABLE:
        head = f"{indent}{code}  "
        rows.append(
            textwrap.fill(meaning, width, initial_indent=head, subsequent_indent=" " * len(head))
        )
    return "\n".join(rows)


@dataclass
class SessionStatus:
    """What ``analyze`` makes of one analysed session."""

    code: int
    """0 or 1 (an analysed session is never exit 2)."""
    attempts: list[str] = field(default_factory=list)
    """One line per interrupted or failed attempt, in session order."""
    undecodable: list[str] = field(default_factory=list)
    """One line per attempt whose body is not valid UTF-8 (:data:`.words.UNDECODABLE`), or
    has a binary frame that cannot be read whole (:data:`.words.BAD_FRAME`)."""
    calls: list[str] = field(default_factory=list)
    """One line per invalid call of a round's final attempt."""
    clients: list[str] = field(default_factory=list)
    """With ``--client``: one line per named client that would not get the inspector's calls
    (:func:`.clientreport.gated_status`); empty otherwise."""
    failed: bool = False
    """A request failed (HTTP status >= 400, a transport error, a wrong content type)."""
    interrupted: bool = False
    """An attempt has no end record."""
    first: tuple[str, str] | None = None
    """What a headline says of a broken session: the first failed or interrupted attempt as
    (its word, its failure, short: ``("failed", "HTTP 401")``, ``("interrupted", "attempt 2
    has no end record")``), else ``("invalid", "the body is not valid UTF-8 at byte N")`` for
    the first body that is not UTF-8."""

    @property
    def broken(self) -> bool:
        """The session fails whatever its calls: a request failed, an attempt was interrupted,
        or a body is not UTF-8 (top-level ``valid`` is false)."""
        return self.failed or self.interrupted or bool(self.undecodable)

    @property
    def reasons(self) -> list[str]:
        """Every line that makes the session exit 1: attempts, undecodable bodies, calls,
        named clients."""
        return self.attempts + self.undecodable + self.calls + self.clients

    def to_json(self) -> dict[str, object]:
        """The ``--json`` shape (``exit``)."""
        return {"code": self.code, "reasons": self.reasons}


def session_status(analysis: Analysis) -> SessionStatus:
    """The exit code of an analysed session and why: every interrupted or failed attempt,
    every body that is not UTF-8, then every invalid call of each round's final attempt (the
    calls whose verdicts decide :attr:`Analysis.all_valid`)."""
    status = SessionStatus(OK)
    records = analysis.records
    capture = analysis.capture
    names = place_names(analysis.attempts)
    several = len(analysis.attempts) > 1
    first: str | None = None  # the first body that is not UTF-8, short
    for view, record in zip(analysis.attempts, records, strict=True):
        word = attempt_word(view, record, capture)
        place = names[view.number]
        if word == "interrupted":
            status.interrupted = True
            status.attempts.append(f"{place} was interrupted (no end record)")
            status.first = status.first or (word, f"{place} has no end record")
        elif word == "failed":
            status.failed = True
            status.attempts.append(f"{place} failed: {_failure(view)}")
            short = _short_failure(view)
            status.first = status.first or (word, f"{place}: {short}" if several else short)
        for code, long, brief in ((INVALID_UTF8, UNDECODABLE, UNDECODABLE_AT),
                                  (BAD_FRAME, BAD_FRAME_LINE, BAD_FRAME_AT)):  # fmt: skip
            byte = undecodable_at(view, code)
            if byte is not None:
                line = long.format(byte=byte)
                status.undecodable.append(f"{place}: {line}" if several else line)
                short = brief.format(byte=byte)
                first = first or (f"{place}: {short}" if several else short)
    if status.first is None and first is not None:
        status.first = ("invalid", first)
    for rnd in analysis.rounds:
        for v in rnd.final.verdicts:
            if not v.orphan and not v.valid:
                where = f"{names[rnd.final.number]}: call {v.call.slot} {_name(v.name)}"
                status.calls.append(f"{where} is invalid ({_codes(v.problems)})")
    status.code = FOUND if status.reasons else OK
    return status


def undecodable_at(view: AttemptView, code: str = INVALID_UTF8) -> int | None:
    """The body offset of the first byte of ``view`` that is not UTF-8 (``code``
    ``bad_frame``: of the first frame that cannot be read whole), or None (read from the
    attempt's quirks, which scan each event once)."""
    for quirk in view.quirks:
        if quirk.code == code and quirk.chunks:
            return view.state.events[quirk.chunks[0]].start
    return None


def _short_failure(view: AttemptView) -> str:
    """``HTTP 401`` for an error status, ``wrong content type text/html`` for a body that is
    no event stream, else the error that ended it (clipped)."""
    status = view.source.status if view.source is not None else None
    if status is not None and status >= 400:
        return f"HTTP {status}"
    headers = (view.source.response or {}).get("headers") or {} if view.source else {}
    ctype = next((str(v) for k, v in headers.items() if str(k).lower() == "content-type"), "")
    ctype = ctype.split(";")[0].strip()
    if ctype and "event-stream" not in ctype and "json" not in ctype and not _framed(ctype):
        return f"wrong content type {ctype}"
    text = _failure(view)
    return text if len(text) <= 60 else text[:59] + "…"


def _failure(view: AttemptView) -> str:
    if view.error:
        return str(view.error)
    sent = provider_error(view)
    if sent is not None and not (view.source is not None and (view.source.status or 0) >= 400):
        return f"provider error in the stream: {sent}"
    status = view.source.status if view.source is not None else None
    return f"HTTP {status}" if status is not None else "the request failed"


def _name(name: object) -> str:
    return name if isinstance(name, str) and name else "(no name)"


def _codes(problems: list[Problem]) -> str:
    return ", ".join(p.code for p in problems)


def _framed(content_type: str) -> bool:
    """A content type some provider proves a stream of its own (Bedrock's event stream)."""
    return recognise(REGISTRY, Head(), content_type) is not None
