"""A finished session, judged as one run of a cell (:class:`~.cells.CellRun`).

Reads only what the stages below say: the session word (:mod:`~inspector.core.reports.headline`),
the attempt records (retried, accepted_degraded), each attempt's quirks, the client
replicas' verdict and the final response's wire calls against the scenario's ``expect``.

Invariants:
- An error (the runner's, or a request the core calls failed) wins: the run is ``error``
  with its class, and nothing else is judged on it (no ``expected``, ``valid`` or clients).
- Calls written in the assistant text count for neither the expectation nor ``calls``: no
  client hands them over as tool calls (``text_calls`` counts them). A run that misses its
  expectation is ``no call`` without a call on the wire, ``wrong calls`` with one; when no
  call's arguments are a JSON object and the run is ``invalid``, that is the word (the
  argument text is broken, not the choice of call), the miss still listed.
- Usage is read from every usage object the stream sent (Anthropic splits input and output
  over two), by the field names the providers use; None when the stream reported none.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import DeltaKind
from inspector.core.calls.stream import StreamState
from inspector.core.calls.textcalls import from_text
from inspector.core.matrix.cells import CellRun, ClientOutcome, ErrorInfo, RateLimit, run_word
from inspector.core.matrix.expect import UNREADABLE, judge_expect
from inspector.core.quirks.codes import ORDER
from inspector.core.reports.clients import clients_verdict
from inspector.core.reports.headline import session_word
from inspector.core.requests.scenarios_expect import Expect
from inspector.core.verdicts import attempts as core_attempts

_TOKENS: Final = {
    "input": ("prompt_tokens", "input_tokens", "promptTokenCount"),
    "output": ("completion_tokens", "output_tokens", "candidatesTokenCount"),
    "total": ("total_tokens", "totalTokenCount"),
}


def judge_run(
    analysis: Analysis,
    expect: Expect,
    *,
    run: int,
    capture: str | None,
    duration: float,
    error: ErrorInfo | None = None,
    rate_limits: Sequence[RateLimit] = (),
    asked: Collection[str] = (),
) -> CellRun:
    """The run's facts and word (see the module docstring). ``asked``: quirk codes the request
    itself invited (usage asked for in the stream): listed in ``quirks``, not in the word."""
    validation = analysis.settings.validation
    final = analysis.final if analysis.attempts else None
    word = session_word(analysis) if final is not None else "failed"
    if error is None and word in ("failed", "interrupted"):
        message = (final.error if final is not None else None) or f"the request {word}"
        error = ErrorInfo("ProviderError", message)
    base: dict[str, Any] = {"run": run, "capture": capture, "duration": round(duration, 4),
                            "rate_limits": tuple(rate_limits)}  # fmt: skip
    if error is not None or final is None:
        return CellRun(word="error", error=error, quirks=_quirks(analysis), **base)
    made = [v.call for v in final.verdicts if not v.orphan]
    calls = [(_text(c.name), c.arguments) for c in made if not from_text(c)]
    misses = judge_expect(expect, calls)
    wrong = [m for m in misses if m != UNREADABLE or word != "invalid"]
    records = analysis.records
    retried = next((r for r in records if r.outcome == core_attempts.RETRIED), None)
    degraded = any(r.outcome == core_attempts.DEGRADED for r in records)
    valid = None if validation == "off" else word != "invalid"
    verdict = clients_verdict(analysis)
    clients = {
        name: ClientOutcome(w, None if not verdict.results[name].applies else w == "agrees")
        for name, w in verdict.words.items()
    }
    quirks = _quirks(analysis)
    return CellRun(
        word=run_word(expected=not wrong, called=bool(calls),
                      valid=False if word == "invalid" else valid,
                      retried=retried is not None, breaks_clients=bool(verdict.broken),
                      quirks=bool(set(quirks) - set(asked)), validation=validation),
        expected=not misses, expect_failures=tuple(misses), calls=len(calls),
        text_calls=len(made) - len(calls), valid=valid,
        retried=retried is not None, retry_reason=retried.reason if retried else None,
        accepted_degraded=degraded, quirks=quirks,
        first_tool_fragment=first_tool_fragment(final.state), tokens=tokens(analysis),
        clients=clients, **base,
    )  # fmt: skip


def first_tool_fragment(state: StreamState) -> float | None:
    """Seconds from the request to the stream's first tool-call fragment (None: no call)."""
    for delta in state.deltas:
        if delta.kind == DeltaKind.TOOL_CALL and 0 <= delta.seq < len(state.events):
            return round(state.events[delta.seq].t, 4)
    return None


def tokens(analysis: Analysis) -> dict[str, int] | None:
    """Usage over the final attempt's usage objects: ``input``, ``output``, ``total``."""
    out: dict[str, int] = {}
    for delta in analysis.final.state.deltas:
        usage = getattr(delta, "value", None) if delta.kind == DeltaKind.USAGE else None
        if isinstance(usage, Mapping):
            for word, keys in _TOKENS.items():
                for key in keys:
                    value = usage.get(key)
                    if type(value) is int:
                        out[word] = value
    if "total" not in out and {"input", "output"} <= set(out):
        out["total"] = out["input"] + out["output"]
    return out or None


def _quirks(analysis: Analysis) -> tuple[str, ...]:
    seen = {q.code for view in analysis.attempts if view.state.ended for q in view.quirks}
    return tuple(code for code in ORDER if code in seen)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
