"""Tool results and the next round's request: what a tool loop sends back to the model.

A round ends with an assistant turn (:class:`AssistantTurn`: text, reasoning and the assembled
calls) and one :class:`ToolResult` per call. :func:`build_continuation` appends both to the
previous request body in the provider's own shape (each provider's ``append_turn`` says which:
OpenAI chat ``tool`` messages, Responses ``function_call_output`` items, Anthropic
``tool_result`` blocks, Gemini ``functionResponse`` parts).

Invariants:
- Pure: the previous body is deep-copied, never modified; the same inputs give the same body.
- Ids are the calls' EFFECTIVE ids (the repaired id for a named call that arrived without
  one), echoed identically in the assistant call and in its result. Gemini calls carry an
  ``id`` only when the provider sent one (Gemini pairs responses by name and order).
- Results follow the order of the calls in the turn, not the order they completed in; every
  call must have exactly one result (ValueError otherwise: a provider would reject the turn).
- Reasoning is echoed only where no opaque signature is needed: OpenAI chat
  (``reasoning_content``) and Gemini (a ``thought`` part). Anthropic thinking blocks and
  Responses reasoning items need provider signatures the stream does not carry in full.
- The data types here satisfy the base layer's ``Turn``/``TurnCall``/``TurnResult`` protocols,
  which is all a provider reads of them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from inspector.core.base.provider import Provider

#: ToolResult.error_kind values.
UNKNOWN_TOOL: Final = "unknown_tool"
DISABLED: Final = "disabled"
INVALID_ARGUMENTS: Final = "invalid_arguments"
RAISED: Final = "raised"
CANCELLED: Final = "cancelled"


@dataclass(frozen=True)
class StreamPosition:
    """Where an attempt's stream was at a moment: the GUI places tool events with it."""

    t: float
    """Seconds since the attempt's request (the clock of its chunks)."""
    chunks: int
    """Chunks of the attempt received so far."""
    events: int
    """Wire events decoded so far (the next event's ``seq``)."""
    ended: bool = False
    """The attempt's body had already ended."""

    def to_json(self) -> dict[str, Any]:
        """The capture shape."""
        return {"t": self.t, "chunks": self.chunks, "events": self.events, "ended": self.ended}

    @classmethod
    def from_json(cls, obj: Any) -> StreamPosition | None:
        """Read :meth:`to_json`'s shape; None when ``obj`` is not one."""
        if not isinstance(obj, Mapping):
            return None
        t, chunks, events = obj.get("t"), obj.get("chunks"), obj.get("events")
        if not isinstance(t, int | float) or type(chunks) is not int or type(events) is not int:
            return None
        return cls(float(t), chunks, events, obj.get("ended") is True)


@dataclass(frozen=True)
class AssistantCall:
    """One call of the assistant turn, as it is echoed back."""

    id: str
    """The effective id (as received, or repaired)."""
    name: str
    arguments: str
    """The assembled argument text, as received."""
    input: dict[str, Any] | None
    """The arguments parsed as a JSON object (blank counts as ``{}``); None when they are not."""
    wire_id: str | None = None
    """The id the provider sent (None when it sent none, i.e. the id was repaired)."""
    slot: int = 0
    """The call's lane."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Dialect extras to echo (Gemini ``thoughtSignature``)."""

    @property
    def repaired(self) -> bool:
        """The id was generated (repaired) because the call arrived without one."""
        return self.wire_id is None


@dataclass(frozen=True)
class AssistantTurn:
    """What the assistant said in a round: text, reasoning and its calls in lane order."""

    text: str = ""
    reasoning: str = ""
    calls: tuple[AssistantCall, ...] = ()


def parse_arguments(text: str) -> dict[str, Any] | None:
    """Arguments as a JSON object (blank is ``{}``); None when they are not one."""
    if not text.strip():
        return {}
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _shaped(value: Any) -> bool:
    """The ``{output, title?, metadata?}`` shape a streaming-dispatch tool may return."""
    return (isinstance(value, dict) and isinstance(value.get("output"), str)
            and set(value) <= {"output", "title", "metadata"}
            and isinstance(value.get("title", ""), str)
            and isinstance(value.get("metadata", {}), dict))  # fmt: skip


@dataclass
class ToolResult:
    """One call's result (or tool error), fed back to the model and shown in its lane."""

    call_id: str
    """The effective id of the call it answers."""
    name: str
    output: Any
    """What the handler returned (any JSON value), or the error message for a tool error."""
    is_error: bool = False
    error_kind: str | None = None
    """unknown_tool | disabled | invalid_arguments | raised | cancelled (None: a result)."""
    title: str | None = None
    """The title, when ``output`` has the ``{output, title?, metadata?}`` shape."""
    metadata: dict[str, Any] | None = None
    """The metadata, likewise."""
    duration: float | None = None
    """Seconds the handler ran (None: it never ran)."""
    dispatched: StreamPosition | None = None
    """The stream position when the call was dispatched (None: never dispatched)."""
    completed: StreamPosition | None = None
    """The stream position when the result landed."""
    slot: int | None = None
    """The lane of the call it answers."""
    attempt: int = 0
    """The capture attempt the call came from."""

    @classmethod
    def of(cls, call_id: str, name: str, value: Any, **fields: Any) -> ToolResult:
        """A result for ``value``; title and metadata lifted out of the ``{output, …}`` shape."""
        title = metadata = None
        if _shaped(value):
            title, metadata = value.get("title"), value.get("metadata")
        return cls(call_id, name, value, title=title, metadata=metadata, **fields)

    @property
    def status(self) -> str:
        """``ok``, ``error`` or ``cancelled``."""
        if self.error_kind == CANCELLED:
            return "cancelled"
        return "error" if self.is_error else "ok"

    @property
    def text(self) -> str:
        """What the model is sent: the shape's ``output``, a string as is, else compact JSON."""
        value = self.output
        if _shaped(value):
            value = value["output"]
        if isinstance(value, str):
            return f"Error: {value}" if self.is_error else value
        return orjson.dumps(value, default=str).decode()

    def saved(self, stream_end: float) -> float:
        """Seconds this result was ahead of a sequential loop: its head start before the
        attempt's stream ended (0 when dispatched at or after the end)."""
        if self.dispatched is None:
            return 0.0
        return max(0.0, stream_end - self.dispatched.t)

    def to_json(self) -> dict[str, Any]:
        """The capture shape (the ``data`` of a ``tool_result`` event)."""
        return {
            "call_id": self.call_id, "name": self.name, "output": self.output,
            "is_error": self.is_error, "error_kind": self.error_kind, "status": self.status,
            "title": self.title, "metadata": self.metadata, "duration": self.duration,
            "dispatched": self.dispatched.to_json() if self.dispatched else None,
            "completed": self.completed.to_json() if self.completed else None,
            "slot": self.slot, "attempt": self.attempt,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any], attempt: int = 0) -> ToolResult:
        """Read :meth:`to_json`'s shape leniently (missing fields become defaults)."""
        duration = data.get("duration")
        slot = data.get("slot")
        title, metadata = data.get("title"), data.get("metadata")
        return cls(
            str(data.get("call_id") or ""), str(data.get("name") or ""), data.get("output"),
            is_error=data.get("is_error") is True,
            error_kind=data.get("error_kind") if isinstance(data.get("error_kind"), str) else None,
            title=title if isinstance(title, str) else None,
            metadata=metadata if isinstance(metadata, dict) else None,
            duration=float(duration) if isinstance(duration, int | float) else None,
            dispatched=StreamPosition.from_json(data.get("dispatched")),
            completed=StreamPosition.from_json(data.get("completed")),
            slot=slot if type(slot) is int else None,
            attempt=attempt or int(data.get("attempt") or 0),
        )  # fmt: skip


# -- the continuation request -------------------------------------------------------------


def _ordered(turn: AssistantTurn, results: Sequence[ToolResult]) -> list[ToolResult]:
    by_id = {r.call_id: r for r in results}
    missing = [c.id for c in turn.calls if c.id not in by_id]
    if missing:
        raise ValueError(f"no tool result for call(s) {', '.join(missing)}")
    return [by_id[c.id] for c in turn.calls]


def build_continuation(
    provider: Provider,
    body: Mapping[str, Any],
    turn: AssistantTurn,
    results: Sequence[ToolResult],
) -> dict[str, Any]:
    """The next round's request body: ``body`` plus the assistant turn and its results, in
    ``provider``'s shape."""
    out = copy.deepcopy(dict(body))
    provider.append_turn(out, turn, _ordered(turn, results))
    return out
