"""The ``analyze --json`` document, made as it is written (see
:mod:`inspector.core.reports.report` for what it says and :mod:`.jsonstream` for the writing).

Invariants:
- :func:`json_doc` returns the document with its big parts lazy: the calls (top-level
  ``tool_calls``, ``orphan_entries`` and each attempt's), the attempts, the quirks and their
  chunks, each client's calls, and the long texts are generators or deferred values, made
  when written and released before the next one. Written with
  :func:`~.jsonstream.write_json` it is byte for byte ``orjson.dumps(to_json(...),
  option=OPT_INDENT_2)`` (``to_json`` is this document made plain).
- One function per shape: :func:`call_json` makes every call (top level and per attempt),
  :func:`attempt_parts` every attempt's stream facts (the top level repeats the final
  attempt's), each made again where written rather than kept for the second use.
- Nothing here decides a verdict or an exit code: :func:`.clientreport.gated_status` does,
  before anything is written.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

from inspector.core.analysis.rounds import LOOP_END, ROUND
from inspector.core.analysis.session import Analysis, AttemptView, CallVerdict
from inspector.core.base.model import plain, presence
from inspector.core.base.settings import DEFAULT_MODE
from inspector.core.calls.textobject import TextCall
from inspector.core.quirks.detect import Quirk
from inspector.core.quirks.registry import PROVIDER_CHECKS
from inspector.core.reports.clientreport import gated_status
from inspector.core.reports.clients import ClientsVerdict, clients_verdict
from inspector.core.reports.headline import headline
from inspector.core.reports.kinds import counts, item_type_word, kind_word
from inspector.core.reports.words import attempt_word, call_word

FORMAT_VERSION = 4
"""4: every tool-call item, hosted ones included, is an entry of ``tool_calls`` with ``kind``
(``function`` | ``custom`` | ``builtin`` | ``hosted``) and ``item_type`` (the wire's own type:
``function_call``, ``web_search_call``, ``tool_use``, ``server_tool_use``, ``functionCall``…;
``function`` for Chat Completions; ``text:<format>`` for calls written in the text), and
``results`` (what the stream reported of its execution, RESULT deltas, or []); top level and
per attempt, ``agent_calls`` and ``hosted_items`` count them apart (hosted items never change
``valid`` or the exit code: their word is ``not checked``); ``clients_judged`` (false under
``analyze --no-clients``, when ``clients`` is null and the headline says the clients were not
judged); and per client ``judged``: ``replayed`` (the replica read every event) or ``plain
stream`` (judged from the inspector's own reading: :mod:`inspector.core.clients.plain`).
3: ``headline`` (:func:`.headline.headline`) and ``clients`` (always present: per client
replica its ``calls``, ``error``, ``agrees``, ``diverges_at``, ``word``, ``library``,
``version``, ``verified``, ``attempt``, ``applies``) are added, and the top-level ``valid`` is
false (exit 1) also when a body is not valid UTF-8 (a client raises there or reads U+FFFD).
2: ``valid`` (per call and top level) is null when validation is off: nothing was checked,
and a script reading ``valid`` must not take that for a pass (1 said true)."""


def utf8_size(text: str) -> int:
    """``len(text.encode())`` without the copy when the text is ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def call_json(
    v: CallVerdict, validation: str = DEFAULT_MODE, results: list[Any] | None = None
) -> dict[str, Any]:
    """One call in the ``--json`` shape (``word`` said under ``validation``; ``results``: what
    the stream reported of its execution)."""
    c = v.call
    arguments = c.arguments
    return {
        "word": call_word(v, validation=validation),
        "kind": kind_word(c),
        "item_type": item_type_word(c),
        "index": plain(c.index),
        "index_presence": presence(c.index),
        "written_as": c.form if isinstance(c, TextCall) else None,
        "id": plain(c.id),
        "id_presence": presence(c.id),
        "name": plain(c.name),
        "name_presence": presence(c.name),
        "arguments": arguments,
        "fragments": c.fragment_count - c.dropped_count,
        "bytes": utf8_size(arguments),
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
        "results": results or [],
    }


def calls_json(view: AttemptView, validation: str, orphan: bool = False) -> Iterator[Any]:
    """The calls of ``view`` (``orphan``: its orphan id-only entries instead), one at a time."""
    st = view.state
    return (
        call_json(v, validation, [d.value for d in st.results_of(v.call)] if st.results else None)
        for v in view.verdicts
        if v.orphan == orphan
    )


def quirk_json(q: Quirk) -> dict[str, Any]:
    """One quirk in :meth:`.Quirk.to_json`'s shape, its chunks streamed from the quirk's own
    sequence, never copied (a keep-alive quirk has one per comment)."""
    return {"code": q.code, "message": q.message, "chunks": iter(q.chunks)}


def attempt_parts(view: AttemptView, validation: str = DEFAULT_MODE) -> dict[str, Any]:
    """The stream-level facts of one attempt, lazy: its calls and quirks are generators and
    its text and reasoning are made when written."""
    st = view.state
    return {
        "dialect": st.dialect_name,
        "events": len(st.events),
        "bytes": st.bytes,
        "finish_reason": st.finish_reason,
        "usage": st.usage,
        "text": lambda: st.full_text,
        "reasoning": lambda: "".join(st.reasoning),
        "errors": [str(e.value) for e in st.errors],
        "tool_calls": calls_json(view, validation),
        "agent_calls": lambda: counts(view)[0],
        "hosted_items": lambda: counts(view)[1],
        "quirks": (quirk_json(q) for q in view.quirks),
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


def attempts_json(analysis: Analysis) -> Iterator[dict[str, Any]]:
    """Every attempt: its record, word and stream facts; the empty final attempt when none
    began (an Analysis fed nothing)."""
    mode = analysis.settings.validation
    if not analysis.attempts:
        yield {"word": "accepted", **attempt_parts(analysis.final, mode)}
        return
    for rec, view in zip(analysis.records, analysis.attempts, strict=True):
        word = attempt_word(view, rec, analysis.capture)
        yield {**rec.to_json(lazy=True), "word": word, **attempt_parts(view, mode)}


def clients_json(clients: ClientsVerdict) -> dict[str, Any]:
    """The ``clients`` section (:meth:`.ClientsVerdict.to_json`'s shape), one replica made
    at a time as it is written, its calls streamed."""
    return {r.name: functools.partial(clients.entry, r, True) for r in clients.replicas}


def json_doc(
    analysis: Analysis,
    source: str | None = None,
    clients: ClientsVerdict | None = None,
    named: Sequence[str] = (),
) -> dict[str, Any]:
    """The whole ``analyze --json`` document, lazy (``clients``: a verdict already made, else
    every registered replica's; ``named``: the ``--client`` names, whose breaking adds to
    ``exit``). The top level repeats the final attempt's calls and stream facts."""
    final = analysis.final
    mode = analysis.settings.validation
    clients = clients or clients_verdict(analysis)
    status = gated_status(analysis, clients, named)
    last = attempt_parts(final, mode)
    st = final.state
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
        "agent_calls": last["agent_calls"],
        "hosted_items": last["hosted_items"],
        "orphan_entries": calls_json(final, mode, orphan=True),
        "unrouted_fragments": len(st.acc.unrouted) if st.acc else 0,
        "attempts": attempts_json(analysis),
        "quirks": last["quirks"],
        "quirks_not_checked": last["quirks_not_checked"],
        "warnings": analysis.warnings,
        **{k: last[k] for k in ("finish_reason", "usage", "text", "reasoning", "errors")},
        "rounds": (r.to_json(lazy=True) for r in analysis.rounds),
        "loop": lambda: loop_json(analysis),
        "clients_judged": not clients.skipped,
        "clients": None if clients.skipped else clients_json(clients),
    }


def _session_valid(analysis: Analysis, broken: bool) -> bool | None:
    """False when a request failed, an attempt was cut off or a body is not UTF-8; else null
    with validation off (nothing was checked), else whether every call of each round's final
    attempt is valid."""
    if broken:
        return False
    return None if analysis.settings.validation == "off" else analysis.all_valid
