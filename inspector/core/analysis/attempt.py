"""One attempt judged (:class:`AttemptView`), and the attempts of one model round (:class:`Round`).

Invariants:
- An attempt's ``verdicts`` and ``quirks`` are always those of its stream as it stands, under
  the settings in force: each is worked out when first read after a change and cached (the
  cache is the only thing a read changes). Validation does not need quirks; views and
  reports do.
- An attempt belongs to the round of the latest ``round`` event at or before it (see
  :mod:`inspector.core.analysis.rounds`); consecutive attempts of the same round make one
  :class:`Round`, whose last attempt is the one whose calls were answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.core.analysis.continuation import ToolResult
from inspector.core.analysis.judgement import Judgement
from inspector.core.analysis.rounds import AGENT_LEFT, TOOL_DISPATCH, ToolEvent
from inspector.core.analysis.verdictlist import VerdictList
from inspector.core.base.model import plain
from inspector.core.calls.accumulator import Accumulator
from inspector.core.calls.stream import StreamState
from inspector.core.capture.records import Attempt
from inspector.core.quirks.detect import Quirk, QuirkScan, detect
from inspector.core.verdicts.judge import CallVerdict


@dataclass(frozen=True)
class AgentLeft:
    """Where the agent of a proxied stream hung up: after ``chunks`` chunks of the attempt,
    ``relayed`` body bytes sent to it (what follows was read for the recording only)."""

    chunks: int
    relayed: int


class AttemptView:
    """One attempt: its stream, and (worked out when asked) its verdicts and quirks."""

    def __init__(
        self, number: int, state: StreamState, source: Attempt | None, judgement: Judgement
    ) -> None:
        self.number = number
        """1-based attempt number."""
        self.state = state
        """The decoded, accumulated stream."""
        self.source = source
        """The capture's record of this attempt (request, response, end), when known."""
        self.round = 1
        """The tool-loop round this attempt belongs to (1 outside tool loops)."""
        self.events: list[ToolEvent] = []
        """Synthetic tool-loop events of this attempt, in arrival order."""
        self._judgement = judgement
        self._verdicts = VerdictList()
        self._judged_at = -1  # the judgement's generation the verdicts were worked out under
        self._quirks: list[Quirk] = []
        self._quirk_scan = QuirkScan()  # incremental: each event and delta scanned once
        self._quirks_key: tuple[int, int, Accumulator | None, bool] | None = None

    def twin(self, state: StreamState, judgement: Judgement) -> AttemptView:
        """This attempt over ``state`` (its stream forked for other settings), judged by
        ``judgement``: the round, the tool events and the wire half of the quirk scan (which
        reads only events and deltas) are shared."""
        twin = AttemptView(self.number, state, self.source, judgement)
        twin.round, twin.events = self.round, self.events
        twin._quirk_scan.wire = self._quirk_scan.wire
        return twin

    # -- judging -------------------------------------------------------------------------

    @property
    def tool_names(self) -> frozenset[str] | None:
        """The names of the tools this attempt's calls are judged against (the request's),
        None when none are known (a raw body's registry is empty: no request to read)."""
        tools = self._judgement.tools()
        names = tools.names() if tools is not None else ()
        return frozenset(names) if names else None

    @property
    def verdicts(self) -> list[CallVerdict]:
        """Per call, in lane order (orphans included, marked), under the settings in force."""
        return self.judge()

    def judge(self) -> list[CallVerdict]:
        """The verdicts, worked out again if the stream, the settings or the tools changed
        since they last were: only the calls that may have changed are judged again
        (:mod:`inspector.core.analysis.verdictlist`; each verdict is cached by the judgement)."""
        j = self._judgement
        if self._judged_at != j.generation:
            self._verdicts.refresh(j, self.state)
            self._judged_at = j.generation
        return self._verdicts.verdicts

    @property
    def quirks(self) -> list[Quirk]:
        """Provider quirks this attempt's stream shows."""
        return self.detect_quirks()

    def detect_quirks(self) -> list[Quirk]:
        """The quirks, detected again if the stream (or its accumulator) changed since."""
        st = self.state
        # quirks ignore validation; the accumulator object itself (not its id, which a freed
        # one could pass on) tells a re-judge under another empty-id policy
        key = (len(st.events), len(st.deltas), st.acc, st.ended)
        if self._quirks_key != key:
            self._quirks, self._quirks_key = detect(st, self._quirk_scan), key
        return self._quirks

    def scan_quirks(self) -> None:
        """Bring the wire-level quirk scan up to date with what arrived (cheap, O(new data)):
        a feeder with a time budget calls this so the next ask for ``quirks`` has little left
        to do, instead of a view paying for everything since its last look."""
        st = self.state
        self._quirk_scan.wire.advance(st)
        self._quirk_scan.fold(st)  # the calls that closed: their findings merged once

    # -- facts ---------------------------------------------------------------------------

    @property
    def results(self) -> list[ToolResult]:
        """Tool results (and tool errors) of this attempt's calls, in the order they landed."""
        return [r for r in (e.result for e in self.events) if r is not None]

    @property
    def dispatches(self) -> list[ToolEvent]:
        """The ``tool_dispatch`` events of this attempt, in order."""
        return [e for e in self.events if e.kind == TOOL_DISPATCH]

    @property
    def error(self) -> str | None:
        """The transport error that ended the attempt, if the capture recorded one."""
        end = self.source.end if self.source is not None else None
        return end.get("error") if end else None

    @property
    def agent_left(self) -> AgentLeft | None:
        """Where the agent of a proxied stream hung up (its ``agent_left`` event), or None."""
        for event in self.events:
            if event.kind == AGENT_LEFT:
                pos = event.position
                relayed = event.data.get("relayed")
                return AgentLeft(
                    pos.chunks if pos is not None else 0,
                    relayed if type(relayed) is int else 0,
                )
        return None

    @property
    def cancelled(self) -> bool:
        """The attempt was stopped before its body ended (its end record says ``cancelled``:
        a user's Stop, an agent that hung up before the end and was not drained)."""
        source = self.source
        end = source.end if source is not None else None
        return end is not None and end.get("reason") == "cancelled"

    @property
    def failed(self) -> bool:
        """The request itself failed: HTTP status >= 400, or an error ended the attempt (a
        transport error, a wrong content type, a timeout); a cancelled attempt did not fail."""
        source = self.source
        if source is None:
            return False
        end = source.end
        if end is not None and end.get("reason") == "cancelled":
            return False
        status = source.status
        return (status is not None and status >= 400) or bool(self.error)

    @property
    def stream_end(self) -> float | None:
        """Seconds from the request to the end of the body (end record, else last event)."""
        end = self.source.end if self.source is not None else None
        if end is not None and isinstance(end.get("t"), int | float):
            return float(end["t"])
        events = self.state.events
        return events[-1].t if events else None


@dataclass
class Round:
    """One model round: its attempts (a streaming retry makes two) and its tool traffic."""

    number: int
    """1-based round number."""
    attempts: list[AttemptView]
    """The round's attempts, in order; the last one's calls reach history."""

    @property
    def final(self) -> AttemptView:
        """The attempt whose calls were answered."""
        return self.attempts[-1]

    @property
    def events(self) -> list[ToolEvent]:
        """Every tool event of every attempt of the round, in arrival order."""
        return [e for view in self.attempts for e in view.events]

    @property
    def results(self) -> list[ToolResult]:
        """The final attempt's results, in the order they landed."""
        return self.final.results

    @property
    def stream_end(self) -> float | None:
        """Seconds from the final attempt's request to the end of its body."""
        return self.final.stream_end

    @property
    def saved(self) -> float:
        """Seconds the round's wait for results was shorter than a sequential loop's (which
        starts every tool at the stream's end and waits for the slowest)."""
        end, results = self.stream_end, [r for r in self.results if r.completed is not None]
        if end is None or not results:
            return 0.0
        sequential = max(r.duration or 0.0 for r in results)
        streaming = max(0.0, max(r.completed.t for r in results if r.completed) - end)
        return max(0.0, sequential - streaming)

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """The ``analyze --json`` shape (``rounds`` entries); ``lazy``: its ``tool_calls`` an
        iterator of their entries (a writer that streams the report makes each as it writes
        it, not 200,000 at once)."""
        st = self.final.state
        end = self.stream_end
        calls = (
            {"slot": v.call.slot, "id": plain(v.effective_id), "name": plain(v.name)}
            for v in self.final.verdicts
            if not v.orphan
        )
        return {
            "round": self.number,
            "attempts": [v.number for v in self.attempts],
            "finish_reason": st.finish_reason,
            "text": st.full_text,
            "tool_calls": calls if lazy else list(calls),
            "tool_results": [{**r.to_json(), "saved": round(r.saved(end), 6) if end else 0.0}
                             for r in self.results],
            "stream_end": end,
            "saved": round(self.saved, 6),
        }  # fmt: skip


def group(views: Sequence[AttemptView]) -> list[Round]:
    """Consecutive attempts with the same round number, as rounds."""
    out: list[Round] = []
    for view in views:
        if out and out[-1].number == view.round:
            out[-1].attempts.append(view)
        else:
            out.append(Round(view.round, [view]))
    return out
