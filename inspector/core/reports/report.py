"""The analyzer's two outputs: a JSON document for scripts/CI and a compact table for people.

Invariants:
- The JSON keeps identity fields as received: ``id``/``name``/``index`` are the value (null when
  omitted) and ``*_presence`` says which of omitted / null / empty / null-string / value it was.
  A call written in the assistant text says its format in ``written_as`` (null: a wire call);
  the table shows ``text (format)`` where a wire call shows its index.
- ``tool_calls`` is the assembled turn of the final attempt (orphan id-only entries are listed
  under ``orphan_entries`` instead); ``valid`` is true only when every one of them is valid.
- Human output uses colour only when asked to (the CLI asks on a TTY).
- Tool loops only add: ``rounds``, ``loop`` and each attempt's ``round`` in the JSON, and a
  rounds section in the text when the session has tool-loop events (older outputs unchanged).
- Words come from :mod:`inspector.core.reports.words` (each call's and attempt's ``word`` in the
  JSON, the verdict column and attempt lines in the text): validation off says "not checked".
  The top-level ``valid`` is false when a request failed, an attempt was interrupted or a body
  is not UTF-8, and ``exit`` carries the code and reasons of
  :mod:`inspector.core.reports.exitcodes`.
- Both outputs lead with the one-line :func:`~inspector.core.reports.headline.headline` and
  carry every client replica's result (JSON ``clients``, the text's ``clients:`` section),
  from one :class:`~inspector.core.reports.clients.ClientsVerdict`.
- Provider quirk checks that do not apply to a stream's dialect are named as "not checked for
  this dialect" (JSON ``quirks_not_checked``), never left to read as clean.
- Both are made as they are written: the JSON document by :mod:`.jsonreport` (lazy parts,
  written by :func:`.jsonstream.write_json`; :func:`to_json` is that document made plain),
  the text by :func:`text_lines`, one line at a time (:func:`to_text` joins them). Neither
  holds a second copy of the calls: a call's row or dict is made when written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from inspector.core.analysis.numbering import place_names
from inspector.core.analysis.session import Analysis, AttemptView, CallVerdict
from inspector.core.base.model import OMITTED
from inspector.core.base.settings import DEFAULT_MODE
from inspector.core.calls.textobject import TextCall
from inspector.core.reports.clientreport import clients_lines, gate_lines, gated_status
from inspector.core.reports.clients import ClientsVerdict, clients_verdict
from inspector.core.reports.headline import headline
from inspector.core.reports.jsonreport import (
    attempt_parts,
    json_doc,
    loop_json,
    not_checked_quirks,
    utf8_size,
)
from inspector.core.reports.jsonstream import materialize
from inspector.core.reports.kinds import item_type_word, kind_word, shows_kinds
from inspector.core.reports.words import attempt_word, call_word, retry_facts, shown_word


def to_json(
    analysis: Analysis,
    source: str | None = None,
    clients: ClientsVerdict | None = None,
    named: Sequence[str] = (),
) -> dict[str, Any]:
    """The whole ``analyze --json`` document as one dict (``clients``: a verdict already
    made, else every registered replica's; ``named``: the ``--client`` names, whose breaking
    adds to ``exit``). ``analyze`` writes :func:`.jsonreport.json_doc` as it is made instead."""
    doc: dict[str, Any] = materialize(json_doc(analysis, source, clients, named))
    return doc


def attempt_json(view: AttemptView, validation: str = DEFAULT_MODE) -> dict[str, Any]:
    """The stream-level facts of one attempt, as one dict."""
    parts: dict[str, Any] = materialize(attempt_parts(view, validation))
    return parts


@dataclass
class Finding:
    """One line of the problems-and-quirks list, with the chunks that show it."""

    kind: str
    """``error`` (a validation problem), ``quirk`` (provider behaviour), ``note`` (e.g. quirk
    checks that do not apply to the dialect) or ``warning``."""
    code: str
    """The problem or quirk code."""
    where: str
    """Which call or attempt it concerns, readable ("call 0 ExecCommand")."""
    message: str
    """One readable line."""
    chunks: Sequence[int] = ()
    """Wire event sequence numbers to jump to (ascending; a quirk's own, never copied)."""
    slot: int | None = None
    """The call's lane, when it concerns one call."""


def findings(analysis: Analysis, view: AttemptView | None = None) -> list[Finding]:
    """Problems of every call, then quirks, then warnings, for one attempt (default: final)."""
    view = view or analysis.final
    analysis.judge()
    out: list[Finding] = []
    for v in view.verdicts:
        c = v.call
        if not v.problems:
            continue
        where = f"call {c.slot} {shown(c.name)}"
        chunks = sorted({f.seq for f in c.fragments})
        for p in v.problems:
            out.append(Finding("error", p.code, where, p.message, chunks, c.slot))
    place = place_names(analysis.attempts).get(view.number, f"attempt {view.number}")
    for e in view.state.errors:
        out.append(Finding("error", "provider_error", place, str(e.value), [e.seq]))
    for q in view.quirks:
        out.append(Finding("quirk", q.code, f"{len(q.chunks)} chunk(s)", q.message, q.chunks))
    unchecked = not_checked_quirks(view)
    if unchecked:
        where = view.state.dialect_name or ""
        message = "quirks not checked for this dialect: " + ", ".join(unchecked)
        out.append(Finding("note", "not_checked", where, message))
    for w in analysis.warnings:
        out.append(Finding("warning", "warning", "", w))
    return out


# -- human output ------------------------------------------------------------------------

_GREEN, _RED, _YELLOW, _DIM, _RESET = "\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[2m", "\x1b[0m"


def shown(value: Any) -> str:
    """An identity field as a person should see it: omitted, null, "" and "null" all distinct."""
    if value is OMITTED:
        return "(omitted)"
    if value is None:
        return "null"
    if isinstance(value, str):
        return '""' if value == "" else ('"null"' if value == "null" else value)
    return repr(value)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def to_text(
    analysis: Analysis,
    source: str | None = None,
    colour: bool = False,
    clients: ClientsVerdict | None = None,
    named: Sequence[str] = (),
) -> str:
    """The human report as one string (:func:`text_lines`, each line ended)."""
    return "".join(f"{line}\n" for line in text_lines(analysis, source, colour, clients, named))


def text_lines(
    analysis: Analysis,
    source: str | None = None,
    colour: bool = False,
    clients: ClientsVerdict | None = None,
    named: Sequence[str] = (),
) -> Iterator[str]:
    """The human report, line by line as made: the headline, a per-call table, then attempts,
    quirks, warnings and the clients (``clients``: a verdict already made, else every
    registered replica's), and one line per ``--client`` name in ``named``."""

    def paint(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if colour else text

    s = analysis.settings
    final = analysis.final
    yield (
        f"{source or '<stream>'}: {analysis.dialect or 'unknown dialect'} · validation "
        f"{s.validation} · empty-id {s.empty_id} · {len(analysis.attempts)} attempt(s)"
    )
    clients = clients or clients_verdict(analysis)
    status = gated_status(analysis, clients, named)
    verdict = headline(analysis, clients, status)
    yield paint(_GREEN if not status.code and not clients.broken else _RED, verdict)
    yield from _table(final, s.validation, paint if colour else None)
    for v in final.verdicts:
        if not v.orphan:
            yield f"  [{v.call.slot}] arguments: {_clip(repr(v.call.arguments), 100)}"
    words = [
        attempt_word(view, rec, analysis.capture)
        for view, rec in zip(analysis.attempts, analysis.records, strict=True)
    ]
    if (
        len(analysis.attempts) > 1
        or any(rec.reason for rec in analysis.records)
        or any(w != "accepted" for w in words)
    ):
        yield "attempts:"
        for rec, word in zip(analysis.records, words, strict=True):
            reason, recovery = retry_facts(word, rec)  # none for a retry that never happened
            extra = f" reason={reason}" if reason else ""
            extra += f" recovery={recovery}" if recovery else ""
            yield f"  {rec.attempt}: {word}{extra}"
    for reason in status.attempts + status.undecodable:  # calls are in the table above
        yield paint(_RED, reason)
    st = final.state
    yield (
        f"finish: {st.finish_reason!r}  usage: {st.usage!r}"
        if st.finish or st.usage
        else "finish: none"
    )
    if st.full_text:
        yield f"text: {_clip(repr(st.full_text), 100)}"
    for e in st.errors:
        yield paint(_RED, f"provider error: {e.value}")
    if final.quirks:
        yield "quirks:"
        for q in final.quirks:
            shown_chunks = ",".join(map(str, q.chunks[:12])) + ("…" if len(q.chunks) > 12 else "")
            yield f"  {paint(_YELLOW, q.code)}  chunks {shown_chunks}  {q.message}"
    unchecked = not_checked_quirks(final)
    if unchecked:
        yield f"quirks not checked for this dialect: {', '.join(unchecked)}"
    for w in analysis.warnings:
        yield paint(_YELLOW, f"warning: {w}")
    if analysis.events:
        yield from rounds_text(analysis)
    yield from clients_lines(clients)
    for name, line in zip(named, gate_lines(clients, named), strict=True):
        yield paint(_RED if name in clients.broken else _GREEN, line)


Paint = Callable[[str, str], str]
"""Colours a line (an ANSI code, the text)."""

_HEADER = ("#", "index", "id", "name", "frags", "bytes", "verdict", "problems")
_KIND = "kind"


def _row(v: CallVerdict, validation: str, kinds: bool = False) -> tuple[str, ...]:
    """One call's cells of the table (the verdict column in :func:`.words.shown_word`)."""
    c = v.call
    dropped = c.dropped_count
    frags = f"{c.fragment_count - dropped}" + (f" ({dropped} dropped)" if dropped else "")
    ident = shown(c.id) + (f" → {v.repaired_id} (repaired)" if v.repaired_id else "")
    kind = (f"{kind_word(c)} {item_type_word(c)}",) if kinds else ()  # hosted web_search_call
    return (
        str(c.slot),
        f"text ({c.form})" if isinstance(c, TextCall) else shown(c.index),
        _clip(ident, 40),
        _clip(shown(c.name), 24),
        *kind,
        frags,
        str(utf8_size(c.arguments)),
        shown_word(call_word(v, validation=validation)),
        "; ".join(f"{p.code}: {p.message}" for p in v.problems),
    )


def _table(view: AttemptView, validation: str, paint: Paint | None) -> Iterator[str]:
    """The per-call table: a first pass for the column widths, a second that makes each row
    again as it is written (no row is kept); ``paint`` colours a row by its verdict."""
    kinds = shows_kinds(view)  # a kind column after the name, only when some lane needs it
    header = _HEADER if not kinds else (*_HEADER[:4], _KIND, *_HEADER[4:])
    last = len(header) - 1  # the problems, written as they are; the verdict just before
    widths = [len(cell) for cell in header[:last]]
    for v in view.verdicts:
        row = _row(v, validation, kinds)
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=False)]
    if not view.verdicts:
        provider = view.state.dialect.provider
        if provider is not None and not getattr(provider, "tool_calls", True):
            yield f"no tool calls: {provider.name} is text only (the API has no tools)"
        else:
            yield "no tool calls"
        return
    rows = chain([header], (_row(v, validation, kinds) for v in view.verdicts))
    for n, r in enumerate(rows):
        line = "  ".join([r[i].ljust(widths[i]) for i in range(last)] + [r[last]]).rstrip()
        if n and paint is not None:
            word = r[last - 1]
            quiet = word == "orphan" or (kinds and word == "not checked")  # hosted: not judged
            line = paint(_GREEN if word == "valid" else (_DIM if quiet else _RED), line)
        yield line


def _ms(seconds: float | None) -> str:
    return "?" if seconds is None else f"{seconds * 1000:.0f} ms"


def rounds_text(analysis: Analysis) -> list[str]:
    """The tool loop, round by round: calls, dispatch and result times, results, final text."""
    loop = loop_json(analysis) or {}
    lines = [
        f"tool loop: {loop.get('rounds')} round(s), {loop.get('mode') or '?'} dispatch, "
        f"ended by {loop.get('end_reason') or '?'}, waits {_ms(loop.get('saved'))} shorter "
        "than sequential"
    ]
    for rnd in analysis.rounds:
        end = rnd.stream_end
        lines.append(
            f"round {rnd.number} ({len(rnd.attempts)} attempt(s)): finish "
            f"{rnd.final.state.finish_reason!r}, stream ended at {_ms(end)}, "
            f"{len(rnd.results)} result(s), wait {_ms(rnd.saved)} shorter than sequential"
        )
        sent = {e.call_id: e for e in rnd.final.dispatches}
        for r in sorted(rnd.results, key=lambda r: -1 if r.slot is None else r.slot):
            d = sent.get(r.call_id)
            when = (
                f"dispatched {_ms(d.t)} (chunk {r.dispatched.chunks})"
                if d is not None and r.dispatched
                else "not run"
            )
            landed = f"chunk {r.completed.chunks}" if r.completed else "?"
            ahead = " before the end" if r.completed and not r.completed.ended else ""
            lines.append(
                f"  [{r.slot}] {r.name} {r.call_id}: {when} → {r.status} at "
                f"{_ms(r.completed.t if r.completed else None)} ({landed}{ahead}), "
                f"ran {_ms(r.duration)}, {_ms(r.saved(end or 0.0))} ahead of sequential"
            )
            shown_output = r.text if r.title is None else f"{r.title}: {r.text}"
            lines.append(f"      {_clip(shown_output, 100)}")
            if r.metadata:
                lines.append(f"      metadata: {_clip(repr(r.metadata), 100)}")
        if rnd.final.state.full_text:
            lines.append(f"  text: {_clip(repr(rnd.final.state.full_text), 100)}")
    lines.append(f"final text: {_clip(repr(loop.get('final_text') or ''), 200)}")
    return lines
