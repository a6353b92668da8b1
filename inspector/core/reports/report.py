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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.core.analysis.numbering import place_names
from inspector.core.analysis.rounds import LOOP_END, ROUND
from inspector.core.analysis.session import Analysis, AttemptView, CallVerdict
from inspector.core.base.model import OMITTED, plain, presence
from inspector.core.calls.textobject import TextCall
from inspector.core.reports.clientreport import clients_lines, gate_lines, gated_status
from inspector.core.reports.clients import ClientsVerdict, clients_verdict
from inspector.core.reports.headline import headline
from inspector.core.reports.words import attempt_word, call_word, retry_facts, shown_word
from inspector.core.verdicts.quirkscan import PROVIDER_CHECKS

FORMAT_VERSION = 3
"""3: ``headline`` (:func:`.headline.headline`) and ``clients`` (always present: per client
replica its ``calls``, ``error``, ``agrees``, ``diverges_at``, ``word``, ``library``,
``version``, ``verified``, ``attempt``, ``applies``) are added, and the top-level ``valid`` is
false (exit 1) also when a body is not valid UTF-8 (a client raises there or reads U+FFFD).
2: ``valid`` (per call and top level) is null when validation is off: nothing was checked,
and a script reading ``valid`` must not take that for a pass (1 said true)."""


def call_json(v: CallVerdict, validation: str = "structural") -> dict[str, Any]:
    """One call in the ``--json`` shape (``word`` said under ``validation``)."""
    c = v.call
    return {
        "word": call_word(v, validation=validation),
        "index": plain(c.index),
        "index_presence": presence(c.index),
        "written_as": c.form if isinstance(c, TextCall) else None,
        "id": plain(c.id),
        "id_presence": presence(c.id),
        "name": plain(c.name),
        "name_presence": presence(c.name),
        "arguments": c.arguments,
        "fragments": len(c.fragments) - c.dropped_count,
        "bytes": len(c.arguments.encode("utf-8")),
        "valid": None if validation == "off" else v.valid,
        "problems": [p.to_json() for p in v.problems],
        "repaired_id": v.repaired_id,
        "effective_id": plain(v.effective_id),
        "dropped_fragments": [
            {"chunk": f.seq, "id": plain(f.id), "id_presence": presence(f.id), "arguments": f.text}
            for f in c.dropped
        ],
        "truncated": c.truncated,
        "closed_by": c.close_reason,
        "chunks": sorted({f.seq for f in c.fragments}),
    }


def attempt_json(view: AttemptView, validation: str = "structural") -> dict[str, Any]:
    """The stream-level facts of one attempt."""
    st = view.state
    return {
        "dialect": st.dialect_name,
        "events": len(st.events),
        "bytes": st.bytes,
        "finish_reason": st.finish_reason,
        "usage": st.usage,
        "text": st.full_text,
        "reasoning": "".join(st.reasoning),
        "errors": [str(e.value) for e in st.errors],
        "tool_calls": [call_json(v, validation) for v in view.verdicts if not v.orphan],
        "quirks": [q.to_json() for q in view.quirks],
        "quirks_not_checked": not_checked_quirks(view),
        "round": view.round,
    }


def not_checked_quirks(view: AttemptView) -> list[str]:
    """The provider-dependent quirk checks that do not apply to this attempt's dialect (its
    provider does not list them), sorted; [] while the dialect is unknown."""
    provider = view.state.dialect.provider
    if provider is None:
        return []
    return sorted(PROVIDER_CHECKS - provider.checks)


def loop_json(analysis: Analysis) -> dict[str, Any] | None:
    """How a tool loop ended (its ``loop_end`` event), or None for other sessions."""
    ends = [e for e in analysis.events if e.kind == LOOP_END]
    if not ends and not analysis.events:
        return None
    end = dict(ends[-1].data) if ends else {}
    modes = [e.data.get("mode") for e in analysis.events if e.kind == ROUND]
    return {"mode": modes[0] if modes else None, "end_reason": end.get("reason"),
            "rounds": len(analysis.rounds), "error": end.get("error"),
            "final_text": analysis.final.state.full_text,
            "saved": round(sum(r.saved for r in analysis.rounds), 6)}  # fmt: skip


def to_json(
    analysis: Analysis,
    source: str | None = None,
    clients: ClientsVerdict | None = None,
    named: Sequence[str] = (),
) -> dict[str, Any]:
    """The whole ``analyze --json`` document (``clients``: a verdict already made, else every
    registered replica's; ``named``: the ``--client`` names, whose breaking adds to ``exit``)."""
    final = analysis.final
    records = analysis.records
    mode = analysis.settings.validation
    attempts = []
    for rec, view in zip(records, analysis.attempts, strict=True):
        word = attempt_word(view, rec, analysis.capture)
        attempts.append({**rec.to_json(), "word": word, **attempt_json(view, mode)})
    if not attempts:  # no attempt began (an Analysis fed nothing): the empty final attempt
        attempts.append({"word": "accepted", **attempt_json(final, mode)})
    last = attempts[-1]  # the final attempt's facts, computed once
    st = final.state
    clients = clients or clients_verdict(analysis)
    status = gated_status(analysis, clients, named)
    return {
        "format_version": FORMAT_VERSION,
        "source": source,
        "headline": headline(analysis, clients, status),
        "dialect": analysis.dialect,
        "settings": analysis.settings.to_json(),
        "tools_known": analysis.registry is not None and len(analysis.registry) > 0,
        "valid": _session_valid(analysis, status.broken),
        "exit": status.to_json(),
        "tool_calls": last["tool_calls"],
        "orphan_entries": [call_json(v, mode) for v in final.verdicts if v.orphan],
        "unrouted_fragments": len(st.acc.unrouted) if st.acc else 0,
        "attempts": attempts,
        "quirks": last["quirks"],
        "quirks_not_checked": last["quirks_not_checked"],
        "warnings": analysis.warnings,
        **{k: last[k] for k in ("finish_reason", "usage", "text", "reasoning", "errors")},
        "rounds": [r.to_json() for r in analysis.rounds],
        "loop": loop_json(analysis),
        "clients": clients.to_json(),
    }


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
    chunks: list[int] = field(default_factory=list)
    """Wire event sequence numbers to jump to."""
    slot: int | None = None
    """The call's lane, when it concerns one call."""


def _session_valid(analysis: Analysis, broken: bool) -> bool | None:
    """False when a request failed, an attempt was cut off or a body is not UTF-8; else null
    with validation off
    (nothing was checked), else whether every call of each round's final attempt is valid."""
    if broken:
        return False
    return None if analysis.settings.validation == "off" else analysis.all_valid


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
    """The human report: the headline, a per-call table, then attempts, quirks, warnings and
    the clients (``clients``: a verdict already made, else every registered replica's), and
    one line per ``--client`` name in ``named``."""

    def paint(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if colour else text

    s = analysis.settings
    final = analysis.final
    lines = [
        f"{source or '<stream>'}: {analysis.dialect or 'unknown dialect'} · validation "
        f"{s.validation} · empty-id {s.empty_id} · {len(analysis.attempts)} attempt(s)"
    ]
    clients = clients or clients_verdict(analysis)
    status = gated_status(analysis, clients, named)
    verdict = headline(analysis, clients, status)
    lines.append(paint(_GREEN if not status.code and not clients.broken else _RED, verdict))
    rows = [("#", "index", "id", "name", "frags", "bytes", "verdict", "problems")]
    for v in final.verdicts:
        c = v.call
        dropped = c.dropped_count
        frags = f"{len(c.fragments) - dropped}" + (f" ({dropped} dropped)" if dropped else "")
        verdict = shown_word(call_word(v, validation=s.validation))
        ident = shown(c.id) + (f" → {v.repaired_id} (repaired)" if v.repaired_id else "")
        problems = "; ".join(f"{p.code}: {p.message}" for p in v.problems)
        rows.append(
            (
                str(c.slot),
                f"text ({c.form})" if isinstance(c, TextCall) else shown(c.index),
                _clip(ident, 40),
                _clip(shown(c.name), 24),
                frags,
                str(len(c.arguments.encode())),
                verdict,
                problems,
            )
        )
    if len(rows) == 1:
        lines.append("no tool calls")
    else:
        widths = [max(len(r[i]) for r in rows) for i in range(7)]
        for n, r in enumerate(rows):
            cells = [r[i].ljust(widths[i]) for i in range(7)] + [r[7]]
            line = "  ".join(cells).rstrip()
            if n and colour:
                line = paint(
                    _GREEN if r[6] == "valid" else (_DIM if r[6] == "orphan" else _RED), line
                )
            lines.append(line)
    for v in final.verdicts:
        if not v.orphan:
            lines.append(f"  [{v.call.slot}] arguments: {_clip(repr(v.call.arguments), 100)}")
    words = [
        attempt_word(view, rec, analysis.capture)
        for view, rec in zip(analysis.attempts, analysis.records, strict=True)
    ]
    if (
        len(analysis.attempts) > 1
        or any(rec.reason for rec in analysis.records)
        or any(w != "accepted" for w in words)
    ):
        lines.append("attempts:")
        for rec, word in zip(analysis.records, words, strict=True):
            reason, recovery = retry_facts(word, rec)  # none for a retry that never happened
            extra = f" reason={reason}" if reason else ""
            extra += f" recovery={recovery}" if recovery else ""
            lines.append(f"  {rec.attempt}: {word}{extra}")
    for reason in status.attempts + status.undecodable:  # calls are in the table above
        lines.append(paint(_RED, reason))
    st = final.state
    lines.append(
        f"finish: {st.finish_reason!r}  usage: {st.usage!r}"
        if st.finish or st.usage
        else "finish: none"
    )
    if st.full_text:
        lines.append(f"text: {_clip(repr(st.full_text), 100)}")
    for e in st.errors:
        lines.append(paint(_RED, f"provider error: {e.value}"))
    if final.quirks:
        lines.append("quirks:")
        for q in final.quirks:
            chunks = ",".join(map(str, q.chunks[:12])) + ("…" if len(q.chunks) > 12 else "")
            lines.append(f"  {paint(_YELLOW, q.code)}  chunks {chunks}  {q.message}")
    unchecked = not_checked_quirks(final)
    if unchecked:
        lines.append(f"quirks not checked for this dialect: {', '.join(unchecked)}")
    for w in analysis.warnings:
        lines.append(paint(_YELLOW, f"warning: {w}"))
    if analysis.events:
        lines += rounds_text(analysis)
    lines += clients_lines(clients)
    for name, line in zip(named, gate_lines(clients, named), strict=True):
        lines.append(paint(_RED if name in clients.broken else _GREEN, line))
    return "\n".join(lines) + "\n"


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
