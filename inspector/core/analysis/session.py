"""A whole session judged under user settings: attempts, calls, verdicts, quirks, warnings.

Invariants:
- One :class:`StreamState` per attempt (physical request), fed the attempt's chunks in order —
  from a capture file or live, through the same :meth:`Analysis.feed`.
- Settings change the judgement, never the data: flipping ``empty_id`` re-accumulates from the
  stored deltas, flipping ``validation`` only re-validates. Nothing is re-read or re-decoded.
- Judging is lazy and cached: verdicts (:mod:`inspector.core.verdicts.judge`) and quirks are
  computed when asked and recomputed only after new data or new settings.
- Tools come from, in order: the user's tools, the capture's request body, the tools a
  Responses stream echoes in ``response.created``.
- Tool loops (:mod:`inspector.core.analysis.rounds`): synthetic events enter through
  :meth:`Analysis.add_event` in arrival order, between chunks, live and from a capture alike.
  Seed 1's attempt records are planned per round (a retry never spans two rounds); a session
  without ``round`` events is one round, judged exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from inspector.core.analysis import rounds as rounds_mod
from inspector.core.analysis.continuation import (
    AssistantCall,
    AssistantTurn,
    ToolResult,
    parse_arguments,
)
from inspector.core.base.model import Delta, DeltaKind
from inspector.core.calls.accumulator import Accumulator, ToolCall
from inspector.core.calls.stream import StreamState
from inspector.core.capture.reader import Attempt, Capture
from inspector.core.verdicts import attempts as attempts_mod
from inspector.core.verdicts.judge import (
    DIALECT_CHOICES,
    VALIDATION_MODES,
    CallVerdict,
    Settings,
    judge_call,
    registry_for,
)
from inspector.core.verdicts.quirks import Quirk, QuirkScan, detect
from inspector.core.verdicts.tools import ToolRegistry

__all__ = [
    "DIALECT_CHOICES",
    "VALIDATION_MODES",
    "Analysis",
    "AttemptView",
    "CallVerdict",
    "Settings",
]


class AttemptView:
    """One attempt: its stream, and (lazily) its verdicts and quirks."""

    def __init__(self, number: int, state: StreamState, source: Attempt | None) -> None:
        self.number = number
        """1-based attempt number."""
        self.state = state
        """The decoded, accumulated stream."""
        self.source = source
        """The capture's record of this attempt (request, response, end), when known."""
        self.verdicts: list[CallVerdict] = []
        """Per call, in lane order (orphans included, marked)."""
        self.round = 1
        """The tool-loop round this attempt belongs to (1 outside tool loops)."""
        self.events: list[rounds_mod.ToolEvent] = []
        """Synthetic tool-loop events of this attempt, in arrival order."""
        self._quirks: list[Quirk] | None = None
        self._quirk_scan = QuirkScan()  # incremental: each event and delta scanned once
        self._quirks_key: tuple[int, int, Accumulator | None, bool] | None = None

    @property
    def results(self) -> list[ToolResult]:
        """Tool results (and tool errors) of this attempt's calls, in the order they landed."""
        return [r for r in (e.result for e in self.events) if r is not None]

    @property
    def dispatches(self) -> list[rounds_mod.ToolEvent]:
        """The ``tool_dispatch`` events of this attempt, in order."""
        return [e for e in self.events if e.kind == rounds_mod.TOOL_DISPATCH]

    @property
    def quirks(self) -> list[Quirk]:
        """Provider quirks this attempt's stream shows (detected when first asked after new
        data: validation does not need them, views and reports do)."""
        st = self.state
        # quirks ignore validation; the accumulator object itself (not its id, which a freed
        # one could pass on) tells a re-judge under another empty-id policy
        key = (len(st.events), len(st.deltas), st.acc, st.ended)
        if self._quirks is None or self._quirks_key != key:
            self._quirks, self._quirks_key = detect(st, self._quirk_scan), key
        return self._quirks

    def scan_quirks(self) -> None:
        """Bring the wire-level quirk scan up to date with what arrived (cheap, O(new data)):
        a feeder with a time budget calls this so the next ask for ``quirks`` has little left
        to do, instead of a view paying for everything since its last look."""
        st = self.state
        self._quirk_scan.wire.advance(st, st.dialect_name or "openai-chat")

    @property
    def error(self) -> str | None:
        """The transport error that ended the attempt, if the capture recorded one."""
        end = self.source.end if self.source is not None else None
        return end.get("error") if end else None


class Analysis:
    """All attempts of one session, judged under :class:`Settings`."""

    def __init__(self, settings: Settings | None = None, tools: ToolRegistry | None = None) -> None:
        self.settings = settings or Settings()
        """The settings in force."""
        self.user_tools = tools
        """Tools the user supplied (take precedence over any found in the capture)."""
        self.attempts: list[AttemptView] = []
        """Every attempt, in order."""
        self.capture: Capture | None = None
        """The capture this analysis was built from, if any."""
        self.events: list[rounds_mod.ToolEvent] = []
        """Every synthetic tool-loop event of the session, in arrival order."""
        self._dirty = True
        self._verdict_cache: dict[int, tuple[ToolCall, tuple[Any, ...], CallVerdict]] = {}
        self._registry: ToolRegistry | None = None
        self._records: list[attempts_mod.AttemptRecord] = []

    @classmethod
    def from_capture(
        cls, capture: Capture, settings: Settings | None = None, tools: ToolRegistry | None = None
    ) -> Analysis:
        """Feed every attempt of ``capture`` and end it."""
        analysis = cls(settings, tools)
        analysis.capture = capture
        for source in capture.attempts:
            view = analysis.begin_attempt(source)
            if not source.events:  # chunks only: fed in runs (the same state, less work)
                view.state.feed_many(source.chunks)
            for t, data, event in rounds_mod.merged(source) if source.events else ():
                if event is not None:
                    analysis.add_event(event)
                else:
                    view.state.feed(data or b"", t)
            view.state.end()
        if not capture.attempts:
            analysis.begin_attempt(None).state.end()
        return analysis

    # -- feeding (live and replay) -------------------------------------------------------

    def begin_attempt(self, source: Attempt | None = None) -> AttemptView:
        """Open the next attempt's stream."""
        state = StreamState(self.settings.dialect, self.settings.empty_id)
        view = AttemptView(len(self.attempts) + 1, state, source)
        if self.attempts:
            view.round = self.attempts[-1].round
        self.attempts.append(view)
        self._dirty = True
        return view

    def feed(self, data: bytes, t: float = 0.0) -> int:
        """Feed the current attempt one chunk; returns the number of new wire events."""
        if not self.attempts:
            self.begin_attempt()
        self._dirty = True
        return self.attempts[-1].state.feed(data, t)

    def feed_many(self, chunks: Sequence[tuple[float, bytes]]) -> int:
        """Feed the current attempt several ``(t, data)`` chunks at once (replay and file
        loading): the same state as :meth:`feed` on each, for a fraction of the cost."""
        if not self.attempts:
            self.begin_attempt()
        self._dirty = True
        return self.attempts[-1].state.feed_many(chunks)

    def end(self, t: float | None = None) -> None:
        """The current attempt's body ended."""
        if self.attempts:
            self.attempts[-1].state.end(t)
            self._dirty = True

    def add_event(self, event: rounds_mod.ToolEvent) -> None:
        """A synthetic tool-loop event of the current attempt, in arrival order.

        A ``round`` event sets the attempt's round; an event whose position says the body had
        ended ends the current attempt first (a replay then matches the live session).
        """
        if not self.attempts:
            self.begin_attempt()
        view = self.attempts[-1]
        pos = event.position
        if pos is not None and pos.ended and not view.state.ended:
            view.state.end()
        if event.kind == rounds_mod.ROUND and type(event.data.get("round")) is int:
            view.round = event.data["round"]
        view.events.append(event)
        self.events.append(event)
        self._dirty = True

    # -- settings ------------------------------------------------------------------------

    def apply(self, settings: Settings) -> None:
        """Re-judge under new settings (a dialect change needs a re-read, done by the caller)."""
        if settings.empty_id != self.settings.empty_id:
            self._verdict_cache.clear()  # new call objects: the old verdicts must not linger
            for view in self.attempts:
                view.state.rejudge(settings.empty_id)
        self.settings = settings
        self._dirty = True

    def set_tools(self, tools: ToolRegistry | None) -> None:
        """Judge against ``tools`` from now on (None: the capture's or stream's own tools)."""
        self.user_tools = tools
        self._dirty = True

    def fork(self, settings: Settings) -> Analysis:
        """This ended session judged under ``settings`` as a separate Analysis, without reading
        the stream again (see :meth:`StreamState.fork`); ``self`` is left as it is. The dialect
        decides how the bytes were read, so it must be the same."""
        if settings.dialect != self.settings.dialect:
            raise ValueError("a fork keeps the dialect; read the capture again for another")
        other = Analysis(settings, self.user_tools)
        other.capture = self.capture
        other.events = self.events
        for view in self.attempts:
            twin = AttemptView(view.number, view.state.fork(settings.empty_id), view.source)
            twin.round, twin.events = view.round, view.events
            twin._quirk_scan.wire = view._quirk_scan.wire  # the wire half: policy-independent
            other.attempts.append(twin)
        return other

    def with_settings(self, **changes: str) -> Settings:
        """The current settings with ``changes`` applied (a convenience for front ends)."""
        return replace(self.settings, **changes)

    # -- judging -------------------------------------------------------------------------

    @property
    def registry(self) -> ToolRegistry | None:
        """The tools calls are judged against (None when no tools are known)."""
        self.judge()
        return self._registry

    @property
    def records(self) -> list[attempts_mod.AttemptRecord]:
        """Seed 1 attempt records, one per attempt."""
        self.judge()
        return self._records

    @property
    def final(self) -> AttemptView:
        """The last attempt (the one whose calls reach history)."""
        if not self.attempts:
            self.begin_attempt()
        self.judge()
        return self.attempts[-1]

    def judge(self) -> None:
        """Recompute verdicts, quirks and attempt records if anything changed."""
        if not self._dirty:
            return
        self._registry = self._resolve_tools()
        mode = self.settings.validation
        for view in self.attempts:
            view.verdicts = [self._verdict(view.state, c, mode) for c in view.state.calls]
        self._records = []
        for rnd in rounds_mod.group(self.attempts):  # seed 1's retry lives inside one round
            records = attempts_mod.plan(
                [[v for v in view.verdicts if not v.orphan] for view in rnd.attempts],
                self._registry,
                errors=[view.error for view in rnd.attempts],
            )
            for rec, view in zip(records, rnd.attempts, strict=True):
                rec.attempt = view.number
            self._records += records
        for rec, view in zip(self._records, self.attempts, strict=True):
            rec.usage = view.state.usage
            rec.duration = view.state.events[-1].t if view.state.events else None
        self._dirty = False

    def judge_call(self, view: AttemptView, call: ToolCall) -> CallVerdict:
        """One call judged now, under the current settings, without re-judging the session
        (a tool loop asks this the moment a call closes, mid-stream)."""
        if self._dirty:  # judge() resolves them again; tools do not change mid-session
            self._registry = self._resolve_tools()
        return self._verdict(view.state, call, self.settings.validation)

    @property
    def rounds(self) -> list[rounds_mod.Round]:
        """The session's rounds (one for a session without tool-loop events)."""
        self.judge()
        return rounds_mod.group(self.attempts)

    def assistant_turn(self, view: AttemptView) -> AssistantTurn:
        """What ``view`` contributes to history: its text, reasoning and named calls with
        their effective ids (nameless calls are left out, as seed 1 drops them)."""
        self.judge()
        calls = []
        acc = view.state.acc
        for v in view.verdicts:
            if v.orphan or acc is None or acc.blank(v.call.name):
                continue
            wire = None if v.repaired_id is not None else v.call.id
            extra = {}
            for frag in v.call.fragments:
                if frag.extra and "thoughtSignature" in frag.extra:
                    extra["thoughtSignature"] = frag.extra["thoughtSignature"]
            calls.append(AssistantCall(str(v.effective_id), str(v.name), v.arguments,
                                       parse_arguments(v.arguments),
                                       wire if isinstance(wire, str) else None,
                                       v.call.slot, extra))  # fmt: skip
        st = view.state
        return AssistantTurn(st.full_text, "".join(st.reasoning), tuple(calls))

    def _verdict(self, state: StreamState, call: ToolCall, mode: str) -> CallVerdict:
        """A call's verdict, recomputed only when the call or the settings changed since (a
        view judges on every flush; re-validating every buffer each time grows with the
        stream). A call still open is not judged yet: its arguments are still arriving."""
        key = (
            call.length,
            call.open,
            call.truncated,
            len(call.fragments),
            call.name,
            call.id,
            mode,
            id(self._registry),
            state.empty_id,
        )
        cached = self._verdict_cache.get(id(call))
        if cached is not None and cached[0] is call and cached[1] == key:
            return cached[2]
        verdict = judge_call(state, call, mode, self._registry)
        self._verdict_cache[id(call)] = (call, key, verdict)
        return verdict

    def _resolve_tools(self) -> ToolRegistry | None:
        """The tools in force; a registry built from definitions comes from
        :func:`inspector.core.verdicts.judge.registry_for`, cached by their source."""
        if self.user_tools is not None:
            return self.user_tools
        source = self._tool_source()
        if source is None:
            return None
        return registry_for(source)

    def _tool_source(self) -> Any:
        if self.capture is not None and self.capture.tools:
            return self.capture.tools
        for view in self.attempts:
            for d in view.state.deltas[:8]:
                if isinstance(d, Delta) and d.kind == DeltaKind.META and isinstance(d.value, dict):
                    tools = (d.value.get("response") or {}).get("tools")
                    if tools:
                        return tools
        return None

    # -- summaries -----------------------------------------------------------------------

    @property
    def dialect(self) -> str | None:
        """The dialect in force (sniffed when ``auto``)."""
        return self.attempts[-1].state.dialect_name if self.attempts else None

    @property
    def warnings(self) -> list[str]:
        """Capture and tool-definition warnings, plus dialect fallbacks."""
        out: list[str] = list(self.capture.warnings) if self.capture else []
        reg = self.registry
        if reg is not None:
            out.extend(reg.warnings)
        for view in self.attempts:
            if getattr(view.state.dialect, "fallback", False):
                out.append(f"attempt {view.number}: dialect not recognised; read as openai-chat")
        return out

    @property
    def all_valid(self) -> bool:
        """Every assembled call of each round's final attempt is valid (a session without a
        tool loop is one round: its final attempt). The one rule for every exit code."""
        if not self.attempts:
            return all(v.valid for v in self.final.verdicts if not v.orphan)
        return all(v.valid for r in self.rounds for v in r.final.verdicts if not v.orphan)
