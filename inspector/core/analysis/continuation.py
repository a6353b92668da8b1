"""Tool results and the next round's request: what a tool loop sends back to the model.

A round ends with an assistant turn (:class:`AssistantTurn`: text, reasoning and the assembled
calls) and one :class:`ToolResult` per call. :func:`build_continuation` appends both to the
previous request body in the dialect's own shape:

=================  =========================================================================
openai-chat        ``messages`` += assistant ``tool_calls`` message, then one ``role: tool``
                   message per call (``tool_call_id``)
openai-responses   ``input`` += ``function_call`` items, then ``function_call_output`` items
                   (matched by ``call_id``)
anthropic          ``messages`` += assistant ``text`` + ``tool_use`` blocks (parsed input), then
                   one user message of ``tool_result`` blocks (``tool_use_id``, ``is_error``)
gemini             ``contents`` += model ``functionCall`` parts, then a user content of
                   ``functionResponse`` parts
=================  =========================================================================

Invariants:
- Pure: the previous body is deep-copied, never modified; the same inputs give the same body.
- Ids are the calls' EFFECTIVE ids (the repaired id for a named call that arrived without one,
  seed 1), echoed identically in the assistant call and in its result. Gemini calls carry an
  ``id`` only when the provider sent one (Gemini pairs responses by name and order).
- Results follow the order of the calls in the turn, not the order they completed in; every
  call must have exactly one result (ValueError otherwise: a provider would reject the turn).
- Reasoning is echoed only where no opaque signature is needed: openai-chat
  (``reasoning_content``) and Gemini (a ``thought`` part). Anthropic thinking blocks and
  Responses reasoning items need provider signatures the stream does not carry in full.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

#: ToolResult.error_kind values.
UNKNOWN_TOOL: Final = "unknown_tool"
DISABLED: Final = "disabled"
INVALID_ARGUMENTS: Final = "invalid_arguments"
RAISED: Final = "raised"
CANCELLED: Final = "cancelled"

_TOOL_FINISH: Final = {
    "openai-chat": frozenset({"tool_calls", "function_call"}),
    "anthropic": frozenset({"tool_use"}),
    # no dedicated reason: calls plus a normal completion mean "tool calls"
    "gemini": frozenset({"STOP"}),
    "openai-responses": frozenset({"completed"}),
}


def is_tool_finish(dialect: str | None, reason: Any, calls: int) -> bool:
    """Did the round end asking for tool results? (openai-chat ``tool_calls``, Anthropic
    ``tool_use``; Gemini ``STOP`` and Responses ``completed`` when the turn has calls)."""
    if calls == 0:
        return False
    return reason in _TOOL_FINISH.get(dialect or "openai-chat", _TOOL_FINISH["openai-chat"])


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
        """The id was generated (seed 1) because the call arrived without one."""
        return self.wire_id is None


@dataclass(frozen=True)
class AssistantTurn:
    """What the assistant said in a round: text, reasoning and its calls in lane order."""

    text: str = ""
    reasoning: str = ""
    calls: tuple[AssistantCall, ...] = ()


def parse_arguments(text: str) -> dict[str, Any] | None:
    """Arguments as a JSON object (blank is ``{}``, seed 1); None when they are not one."""
    if not text.strip():
        return {}
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _shaped(value: Any) -> bool:
    """Seed 2's ``{output, title?, metadata?}`` shape."""
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
    """Seed 2's title, when ``output`` has the ``{output, title?, metadata?}`` shape."""
    metadata: dict[str, Any] | None = None
    """Seed 2's metadata, likewise."""
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
        """A result for ``value``; title and metadata are lifted out of seed 2's shape."""
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
        """What the model is sent: seed 2's ``output``, a string as is, else compact JSON."""
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
    dialect: str, body: Mapping[str, Any], turn: AssistantTurn, results: Sequence[ToolResult]
) -> dict[str, Any]:
    """The next round's request body: ``body`` plus the assistant turn and its results."""
    out = copy.deepcopy(dict(body))
    ordered = _ordered(turn, results)
    if dialect == "openai-chat":
        out["messages"] = [*_list(out.get("messages")), *_chat(turn, ordered)]
    elif dialect == "openai-responses":
        items = out.get("input")
        start = [{"role": "user", "content": items}] if isinstance(items, str) else _list(items)
        out["input"] = [*start, *_responses(turn, ordered)]
    elif dialect == "anthropic":
        out["messages"] = [*_list(out.get("messages")), *_anthropic(turn, ordered)]
    elif dialect == "gemini":
        out["contents"] = [*_list(out.get("contents")), *_gemini(turn, ordered)]
    else:
        raise ValueError(f"no continuation for dialect {dialect!r}")
    return out


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _args_text(call: AssistantCall) -> str:
    return call.arguments if call.arguments.strip() else "{}"


def _chat(turn: AssistantTurn, results: list[ToolResult]) -> list[dict[str, Any]]:
    msg: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.reasoning:
        msg["reasoning_content"] = turn.reasoning
    msg["tool_calls"] = [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": _args_text(c)}}
        for c in turn.calls
    ]
    tools = [{"role": "tool", "tool_call_id": r.call_id, "content": r.text} for r in results]
    return [msg, *tools]


def _responses(turn: AssistantTurn, results: list[ToolResult]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if turn.text:
        items.append({"role": "assistant", "content": turn.text})
    items += [{"type": "function_call", "call_id": c.id, "name": c.name,
               "arguments": _args_text(c)} for c in turn.calls]  # fmt: skip
    items += [{"type": "function_call_output", "call_id": r.call_id, "output": r.text}
              for r in results]  # fmt: skip
    return items


def _anthropic(turn: AssistantTurn, results: list[ToolResult]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input or {}}
               for c in turn.calls]  # fmt: skip
    answers = [{"type": "tool_result", "tool_use_id": r.call_id, "content": r.text,
                "is_error": r.is_error} for r in results]  # fmt: skip
    return [{"role": "assistant", "content": blocks}, {"role": "user", "content": answers}]


def _gemini(turn: AssistantTurn, results: list[ToolResult]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if turn.reasoning:
        parts.append({"text": turn.reasoning, "thought": True})
    if turn.text:
        parts.append({"text": turn.text})
    for c in turn.calls:
        fc: dict[str, Any] = {"name": c.name, "args": c.input or {}}
        if c.wire_id is not None:
            fc["id"] = c.wire_id
        part: dict[str, Any] = {"functionCall": fc}
        if "thoughtSignature" in c.extra:
            part["thoughtSignature"] = c.extra["thoughtSignature"]
        parts.append(part)
    answers = []
    for c, r in zip(turn.calls, results, strict=True):
        fr: dict[str, Any] = {
            "name": c.name,
            "response": {"error": r.text} if r.is_error else {"output": r.text},
        }
        if c.wire_id is not None:
            fr["id"] = c.wire_id
        answers.append({"functionResponse": fr})
    return [{"role": "model", "parts": parts}, {"role": "user", "parts": answers}]
