"""A whole session judged under user settings: attempts, calls, verdicts, quirks, warnings.

Invariants:
- One :class:`StreamState` per attempt (physical request), fed the attempt's chunks in order —
  from a capture file or live, through the same :meth:`Analysis.feed`.
- Settings change the judgement, never the data: flipping ``empty_id`` re-accumulates from the
  stored deltas, flipping ``validation`` only re-validates. Nothing is re-read or re-decoded.
- Judging is lazy and cached (:mod:`inspector.core.analysis.judgement`): verdicts, quirks and
  attempt records are worked out when first read after new data or new settings. Reading
  changes nothing but those caches: every getter is pure; :meth:`Analysis.judge` only chooses
  when the work is paid (e.g. inside a feeder's time budget).
- Tools come from, in order: the user's tools, the capture's request body, the tools a
  Responses stream echoes in ``response.created``.
- Tool loops (:mod:`inspector.core.analysis.rounds`): synthetic events enter through
  :meth:`Analysis.add_event` in arrival order, between chunks, live and from a capture alike.
  Attempt records (the validation modes' retry decision) are planned per round (a streaming
  retry never spans two rounds); a session without ``round`` events is one round, judged
  exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspector.core.analysis.attempt import AttemptView, Round, group
from inspector.core.analysis.continuation import AssistantCall, AssistantTurn, parse_arguments
from inspector.core.analysis.judgement import Judgement
from inspector.core.analysis.rounds import ROUND, ToolEvent, merged
from inspector.core.base.provider import Providers
from inspector.core.base.settings import Settings
from inspector.core.calls.stream import StreamState
from inspector.core.calls.textcalls import from_text
from inspector.core.calls.toolcall import ToolCall
from inspector.core.capture.records import Attempt, Capture
from inspector.core.verdicts import attempts as attempts_mod
from inspector.core.verdicts.judge import CallVerdict
from inspector.core.verdicts.tools import ToolRegistry

__all__ = ["Analysis", "AttemptView", "CallVerdict"]


class Analysis:
    """All attempts of one session, judged under :class:`Settings`."""

    def __init__(
        self,
        settings: Settings | None = None,
        tools: ToolRegistry | None = None,
        *,
        providers: Providers,
    ) -> None:
        self.providers = providers
        """Where each attempt's dialect comes from (by ``settings.dialect``): the layer above
        passes the provider registry in; this stage names no provider."""
        self._judgement = Judgement(settings or Settings(), tools, providers)
        self.attempts: list[AttemptView] = []
        """Every attempt, in order."""
        self.events: list[ToolEvent] = []
        """Every synthetic tool-loop event of the session, in arrival order."""
        self._records: list[attempts_mod.AttemptRecord] = []
        self._planned_at = -1  # the judgement's generation the records were planned under

    @classmethod
    def from_capture(
        cls,
        capture: Capture,
        settings: Settings | None = None,
        tools: ToolRegistry | None = None,
        *,
        providers: Providers,
    ) -> Analysis:
        """Feed every attempt of ``capture`` and end it."""
        analysis = cls(settings, tools, providers=providers)
        analysis.capture = capture
        for source in capture.attempts:
            analysis.begin_attempt(source)
            if not source.events:  # chunks only: fed in runs (the same state, less work)
                analysis.feed_many(source.chunks)
            for t, data, event in merged(source) if source.events else ():
                if event is not None:
                    analysis.add_event(event)
                else:
                    analysis.feed(data or b"", t)
            analysis.end()
        if not capture.attempts:
            analysis.begin_attempt(None)
            analysis.end()
        return analysis

    # -- what is judged, and how ---------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The settings in force (change them with :meth:`apply`)."""
        return self._judgement.settings

    @property
    def user_tools(self) -> ToolRegistry | None:
        """Tools the user supplied (take precedence over any found in the capture)."""
        return self._judgement.user_tools

    @user_tools.setter
    def user_tools(self, tools: ToolRegistry | None) -> None:
        self.set_tools(tools)

    @property
    def capture(self) -> Capture | None:
        """The capture this analysis is built from, if any."""
        return self._judgement.capture

    @capture.setter
    def capture(self, capture: Capture | None) -> None:
        self._judgement.capture = capture
        self._judgement.changed()

    # -- feeding (live and replay) -------------------------------------------------------

    def begin_attempt(self, source: Attempt | None = None) -> AttemptView:
        """Open the next attempt's stream."""
        j = self._judgement
        state = StreamState(self.providers.dialect(j.settings.dialect), j.settings.empty_id)
        view = AttemptView(len(self.attempts) + 1, state, source, j)
        if self.attempts:
            view.round = self.attempts[-1].round
        self.attempts.append(view)
        j.streams.append(state)
        j.changed()
        return view

    def feed(self, data: bytes, t: float = 0.0) -> int:
        """Feed the current attempt one chunk; returns the number of new wire events."""
        if not self.attempts:
            self.begin_attempt()
        self._judgement.changed()
        return self.attempts[-1].state.feed(data, t)

    def feed_many(self, chunks: Sequence[tuple[float, bytes]]) -> int:
        """Feed the current attempt several ``(t, data)`` chunks at once (replay and file
        loading): the same state as :meth:`feed` on each, for a fraction of the cost."""
        if not self.attempts:
            self.begin_attempt()
        self._judgement.changed()
        return self.attempts[-1].state.feed_many(chunks)

    def end(self, t: float | None = None) -> None:
        """The current attempt's body ended."""
        if self.attempts:
            self.attempts[-1].state.end(t)
            self._judgement.changed()

    def add_event(self, event: ToolEvent) -> None:
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
        if event.kind == ROUND and type(event.data.get("round")) is int:
            view.round = event.data["round"]
        view.events.append(event)
        self.events.append(event)
        self._judgement.changed()

    # -- settings ------------------------------------------------------------------------

    def apply(self, settings: Settings) -> None:
        """Re-judge under new settings (a dialect change needs a re-read, done by the caller)."""
        j = self._judgement
        if settings.empty_id != j.settings.empty_id:
            j.forget_verdicts()  # new call objects: the old verdicts must not linger
            for view in self.attempts:
                view.state.rejudge(settings.empty_id)
        j.settings = settings
        j.changed()

    def set_tools(self, tools: ToolRegistry | None) -> None:
        """Judge against ``tools`` from now on (None: the capture's or stream's own tools)."""
        self._judgement.user_tools = tools
        self._judgement.changed()

    def fork(self, settings: Settings) -> Analysis:
        """This ended session judged under ``settings`` as a separate Analysis, without reading
        the stream again (see :meth:`StreamState.fork`); ``self`` is left as it is. The dialect
        decides how the bytes were read, so it must be the same."""
        if settings.dialect != self.settings.dialect:
            raise ValueError("a fork keeps the dialect; read the capture again for another")
        other = Analysis(settings, self.user_tools, providers=self.providers)
        other.capture = self.capture
        other.events = self.events
        j = other._judgement
        for view in self.attempts:
            twin = view.twin(view.state.fork(settings.empty_id), j)
            other.attempts.append(twin)
            j.streams.append(twin.state)
        return other

    def with_settings(self, **changes: str) -> Settings:
        """The current settings with ``changes`` applied (a convenience for front ends)."""
        return self.settings.with_strings(self.providers, **changes)

    # -- judging -------------------------------------------------------------------------

    def judge(self) -> None:
        """Work out now whatever new data or settings left stale — every attempt's verdicts and
        the attempt records — instead of when first read."""
        for view in self.attempts:
            view.judge()
        self.plan_records()

    def judge_call(self, view: AttemptView, call: ToolCall) -> CallVerdict:
        """One call judged now, under the current settings, without judging the rest of the
        session (a tool loop asks this the moment a call closes, mid-stream)."""
        return self._judgement.verdict(view.state, call)

    @property
    def registry(self) -> ToolRegistry | None:
        """The tools calls are judged against (None when no tools are known)."""
        return self._judgement.tools()

    @property
    def records(self) -> list[attempts_mod.AttemptRecord]:
        """The attempt records (outcome, reason, recovery action), one per attempt."""
        return self.plan_records()

    def plan_records(self) -> list[attempts_mod.AttemptRecord]:
        """The attempt records, planned again round by round if anything changed since (a
        streaming retry lives inside one round)."""
        if self._planned_at == self._judgement.generation:
            return self._records
        records: list[attempts_mod.AttemptRecord] = []
        for rnd in group(self.attempts):
            planned = attempts_mod.plan(
                [[v for v in view.verdicts if not v.orphan] for view in rnd.attempts],
                self.registry,
                errors=[view.error for view in rnd.attempts],
                recorded=[view.source.reason if view.source else None for view in rnd.attempts],
            )
            for rec, view in zip(planned, rnd.attempts, strict=True):
                rec.attempt = view.number
            records += planned
        for rec, view in zip(records, self.attempts, strict=True):
            rec.usage = view.state.usage
            rec.duration = view.state.events[-1].t if view.state.events else None
        self._records, self._planned_at = records, self._judgement.generation
        return records

    @property
    def final(self) -> AttemptView:
        """The last attempt (the one whose calls reach history). Before any attempt began,
        an empty attempt 1 that belongs to no session (reading adds no attempt)."""
        if self.attempts:
            return self.attempts[-1]
        j = self._judgement
        state = StreamState(self.providers.dialect(j.settings.dialect), j.settings.empty_id)
        return AttemptView(1, state, None, j)

    @property
    def rounds(self) -> list[Round]:
        """The session's rounds (one for a session without tool-loop events)."""
        return group(self.attempts)

    def assistant_turn(self, view: AttemptView) -> AssistantTurn:
        """What ``view`` contributes to history: its text, reasoning and named calls with
        their effective ids (nameless calls are left out, as the validation modes drop them;
        calls written in the text stay text, as every client hands them over)."""
        calls = []
        acc = view.state.acc
        for v in view.verdicts:
            if v.orphan or acc is None or acc.blank(v.call.name) or from_text(v.call):
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
            if view.state.dialect.fallback:
                read_as = view.state.dialect_name
                out.append(f"attempt {view.number}: dialect not recognised; read as {read_as}")
        return out

    @property
    def all_valid(self) -> bool:
        """Every assembled call of each round's final attempt is valid (a session without a
        tool loop is one round: its final attempt; a session with no attempt has no calls).
        The one rule for every exit code."""
        return all(v.valid for r in self.rounds for v in r.final.verdicts if not v.orphan)
