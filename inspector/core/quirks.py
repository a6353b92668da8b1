"""Provider quirks visible in one response, each with a stable code and the chunks showing it.

Invariants:
- Detection is a pure function of a :class:`StreamState` (its deltas, events and accumulated
  calls): the same stream always yields the same quirks, in a stable order (by code table).
- Quirks describe the *provider's* stream, so they are detected on the wire deltas, not on
  what one policy made of them; the exceptions are ``orphan_id_only_entry``,
  ``id_changed_mid_call``, ``name_changed_mid_call`` and ``fragment_after_close``, which
  describe how the policy in force routed the fragments.
- ``chunks`` lists wire event sequence numbers (``SSEEvent.seq``), ascending, de-duplicated.
- One pass over the deltas, O(total bytes); cheap enough to run on every UI flush.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import orjson

from .accumulator import ToolCall
from .model import OMITTED, Delta, DeltaKind, EventKind, ToolCallDelta
from .stream import StreamState

#: code -> one-line description; the table order is the report order. docs/quirks.md explains each.
QUIRKS: dict[str, str] = {
    "empty_string_continuation_id": 'continuation fragments carry "id": "" (an accumulator that '
    "looks it up literally drops them)",
    "empty_string_continuation_name": 'continuation fragments carry "name": ""',
    "null_string_id": 'an id is the string "null"',
    "null_id": "an id is JSON null",
    "missing_index": "tool-call entries carry no index",
    "index_reused_with_new_id": "a new call (new id and name) reuses an index already in use",
    "sparse_index": "tool-call indexes do not start at 0 or skip numbers",
    "duplicate_index_in_chunk": "one chunk carries two entries with the same index",
    "id_repeated_every_chunk": "continuations repeat the call's full id",
    "id_changed_mid_call": "a continuation carries a different id without a name",
    "name_changed_mid_call": "a continuation carries a different name",
    "cumulative_arguments": "each fragment repeats the whole argument buffer so far",
    "arguments_not_string": "arguments arrived as a JSON object, not a string",
    "whole_call_single_chunk": "a whole call (id, name and complete arguments) in one chunk",
    "arguments_only_in_done": "no argument deltas: the arguments arrived only in the done event",
    "done_arguments_mismatch": "the done event restates arguments that differ from the deltas",
    "fragment_after_close": "a fragment arrived for a call that was already closed",
    "trailing_empty_arguments": 'a trailing "arguments": "" fragment after the arguments',
    "zero_arg_empty_string": 'a call whose arguments are only "" (zero-argument tool)',
    "orphan_id_only_entry": "an entry with an id but no name or arguments (left out)",
    "finish_reason_mismatch": "tool calls were emitted but the finish reason is not a "
    "tool-call one",
    "missing_finish_reason": "the stream ended without any finish/stop reason",
    "missing_done": "the stream ended without its end-of-stream marker",
    "data_after_done": "events arrived after the end-of-stream marker",
    "usage_only_chunk": "a final chunk with empty choices carrying only usage",
    "keepalive_comments": "SSE comment lines (keep-alives) between events",
    "keepalive_in_data": "a keep-alive comment re-wrapped as a data: line",
    "empty_role": 'delta.role is ""',
    "error_after_200": "the provider reported an error inside a 200 stream",
    "undecodable_data": "a data: line that is not valid JSON (a frame cut mid-JSON?)",
    "invalid_utf8": "bytes that are not valid UTF-8",
    "text_mode_tool_call": "a tool call written as text in the content (<tool_call>…)",
}

#: Finish reasons that mean "the model asked for tools", per dialect.
TOOL_FINISH = {"tool_calls", "function_call", "tool_use", "completed", "STOP"}
_TEXT_CALL = re.compile(r"<tool_call>|<function_call>|<\|tool_call|\[TOOL_CALLS\]")
_TAG_TAIL = 16  # characters of earlier text kept: longer than any _TEXT_CALL match
_END_MARKER = {"openai-chat": "[DONE]", "anthropic": "message_stop",
               "openai-responses": "response.completed"}


@dataclass
class Quirk:
    """One quirk seen in a stream."""

    code: str
    """Stable code (a key of :data:`QUIRKS`)."""
    message: str
    """One readable line, specific to this stream."""
    chunks: list[int] = field(default_factory=list)
    """Sequence numbers of the wire events that show it."""

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape."""
        return {"code": self.code, "message": self.message, "chunks": self.chunks}


class _Seen:
    """Collects chunk numbers per code while scanning."""

    def __init__(self) -> None:
        self.hits: dict[str, list[int]] = {}
        self.notes: dict[str, str] = {}

    def add(self, code: str, seq: int, note: str | None = None) -> None:
        self.hits.setdefault(code, []).append(seq)
        if note and code not in self.notes:
            self.notes[code] = note


def detect(state: StreamState) -> list[Quirk]:
    """Every quirk ``state`` shows, in :data:`QUIRKS` order."""
    seen = _Seen()
    dialect = state.dialect_name or "openai-chat"
    _scan_events(state, seen)
    _scan_deltas(state, seen, dialect)
    for call in state.calls:
        _scan_call(call, seen, dialect, state)
    _scan_turn(state, seen, dialect)
    out = []
    for code, desc in QUIRKS.items():
        if code in seen.hits:
            chunks = sorted(set(seen.hits[code]))
            note = seen.notes.get(code)
            out.append(Quirk(code, f"{desc}: {note}" if note else desc, chunks))
    return out


def _scan_events(state: StreamState, seen: _Seen) -> None:
    for ev in state.events:
        if ev.kind == EventKind.COMMENT:
            seen.add("keepalive_comments", ev.seq, f"{ev.comment.strip()!r}")
        elif ev.kind == EventKind.ERROR:
            seen.add("invalid_utf8", ev.seq, ev.data)


class _IndexTrack:
    """Per wire index: the opening id, and how continuations repeated it."""

    __slots__ = ("continuations", "first_id", "repeats")

    def __init__(self, first_id: Any) -> None:
        self.first_id = first_id
        self.continuations: list[int] = []
        self.repeats = 0


def _real(value: Any) -> bool:
    """An id/name that names something on the wire (not omitted, null, "" or "null")."""
    return isinstance(value, str) and value not in ("", "null")


def _scan_deltas(state: StreamState, seen: _Seen, dialect: str) -> None:
    per_chunk: dict[Any, int] = {}
    tracks: dict[Any, _IndexTrack] = {}
    ended: list[_IndexTrack] = []  # tracks replaced by a new call at the same index
    keepalive: set[int] = set()
    last_seq = -1
    for d in state.deltas:
        if isinstance(d, ToolCallDelta):
            if d.seq != last_seq:
                per_chunk.clear()
                last_seq = d.seq
            _scan_fragment(d, seen, dialect, per_chunk)
            if not d.final and isinstance(d.index, int | str):
                _scan_continuation(d, seen, tracks, ended, _lane(d))
        else:
            if d.kind == DeltaKind.KEEPALIVE:
                keepalive.add(d.seq)
            _scan_other(d, seen)
    done = state.done_seq
    if done is not None:  # events, not deltas: a chunk that maps to no delta still counts
        for ev in state.events[done + 1:]:
            if ev.kind != EventKind.COMMENT and ev.seq not in keepalive:
                seen.add("data_after_done", ev.seq)
    for track in [*ended, *tracks.values()]:
        if track.continuations and track.repeats == len(track.continuations):
            for seq in track.continuations:
                seen.add("id_repeated_every_chunk", seq, f"{track.first_id!r}")


def _scan_continuation(
    d: ToolCallDelta,
    seen: _Seen,
    tracks: dict[Any, _IndexTrack],
    ended: list[_IndexTrack],
    lane: tuple[Any, Any],
) -> None:
    """Fragments at an index seen before are continuations, whatever a policy makes of them."""
    track = tracks.get(lane)
    if track is None:
        tracks[lane] = _IndexTrack(d.id)
        return
    if _real(d.id) and _real(d.name) and _real(track.first_id) and d.id != track.first_id:
        seen.add("index_reused_with_new_id", d.seq, f"index {d.index!r}: {d.id!r}")
        ended.append(track)
        tracks[lane] = _IndexTrack(d.id)
        return
    adopted = _real(d.id) and not _real(track.first_id)
    if adopted:
        track.first_id = d.id  # an id-less opener: the first real id names the call
    track.continuations.append(d.seq)
    if d.id == "":
        seen.add("empty_string_continuation_id", d.seq)
    elif not adopted and d.id is not OMITTED and d.id is not None and d.id == track.first_id:
        track.repeats += 1
    if d.name == "":
        seen.add("empty_string_continuation_name", d.seq)


def _lane(d: ToolCallDelta) -> tuple[Any, Any]:
    """(choice, wire index): with ``n`` > 1 every choice numbers its calls from 0."""
    return (d.extra.get("choice", 0) if d.extra else 0), d.index


def _scan_fragment(d: ToolCallDelta, seen: _Seen, dialect: str, per_chunk: dict[Any, int]) -> None:
    if d.id == "null":
        seen.add("null_string_id", d.seq)
    elif d.id is None:
        seen.add("null_id", d.seq)
    if d.args_object and dialect != "gemini":
        seen.add("arguments_not_string", d.seq)
    if dialect != "openai-chat":
        return
    if d.index is OMITTED:
        if not (d.extra and d.extra.get("legacy_function_call")):  # that shape has no index
            seen.add("missing_index", d.seq)
    elif not d.final:
        key = _lane(d)
        per_chunk[key] = per_chunk.get(key, 0) + 1
        if per_chunk[key] == 2:
            seen.add("duplicate_index_in_chunk", d.seq, f"index {d.index}")


def _scan_other(d: Delta, seen: _Seen) -> None:
    kind = d.kind
    if kind == DeltaKind.ERROR:
        raw = d.raw if isinstance(d.raw, dict) else {}
        if raw.get("wire") != "decode":
            seen.add("error_after_200", d.seq, str(d.value)[:120])
    elif kind == DeltaKind.USAGE:
        if isinstance(d.raw, dict) and d.raw.get("choices") == []:
            seen.add("usage_only_chunk", d.seq)
    elif kind == DeltaKind.META:
        if isinstance(d.value, dict) and d.value.get("role") == "":
            seen.add("empty_role", d.seq)
    elif kind == DeltaKind.KEEPALIVE:
        if isinstance(d.raw, str) and d.raw.lstrip().startswith(":"):
            seen.add("keepalive_in_data", d.seq, repr(d.raw[:40]))
    elif kind == DeltaKind.UNKNOWN and isinstance(d.value, dict) and "undecodable" in d.value:
        seen.add("undecodable_data", d.seq, str(d.value["undecodable"])[:80])


def _scan_call(call: ToolCall, seen: _Seen, dialect: str, state: StreamState) -> None:
    frags = call.fragments
    first = frags[0]
    if state.acc is not None and state.acc.is_orphan(call):
        seen.add("orphan_id_only_entry", first.seq, f"id {call.id!r}")
    for seq, new_id in call.id_changes:
        seen.add("id_changed_mid_call", seq, f"{call.id!r} then {new_id!r}")
    for seq, new_name in call.name_changes:
        seen.add("name_changed_mid_call", seq, f"{call.name!r} then {new_name!r}")
    for seq in call.late_fragments:
        seen.add("fragment_after_close", seq)
    # Done events restating the arguments, as the accumulator reads them (non-strings by repr).
    finals = [(f.seq, f.arguments if isinstance(f.arguments, str) else repr(f.arguments))
              for f in frags if f.final and f.arguments is not OMITTED and f.arguments is not None]
    if call.args_from_final:  # the done event that supplied the arguments
        seen.add("arguments_only_in_done", next((seq for seq, a in finals if a), frags[-1].seq))
    if call.final_mismatch is not None:  # every done event that disagrees with the deltas
        for seq, a in finals:
            if a != call.arguments:
                seen.add("done_arguments_mismatch", seq)
    streamed = [f for f in frags if not f.final]  # dropped ones too: the provider sent them
    _scan_arguments(call, streamed, seen, dialect)


def _scan_arguments(call: ToolCall, frags: list[ToolCallDelta], seen: _Seen, dialect: str) -> None:
    texts = [(f.seq, f.arguments) for f in frags if isinstance(f.arguments, str)]
    if (texts and call.length == 0 and all(a == "" for _, a in texts)
            and call.name not in (OMITTED, None, "")):
        seen.add("zero_arg_empty_string", texts[0][0], f"{call.name!r}")
        return
    nonempty = [i for i, (_, a) in enumerate(texts) if a]
    if nonempty:
        for seq, a in texts[nonempty[-1] + 1:]:
            if a == "":
                seen.add("trailing_empty_arguments", seq)
    _scan_cumulative([(seq, a) for seq, a in texts if a], seen)
    # The opener alone carries id, name and complete arguments (judged on that wire entry, not
    # on what a policy routed after it, so ``absent`` and ``literal`` agree).
    if (dialect == "openai-chat" and frags and _real(frags[0].id) and _real(frags[0].name)
            and _complete_object(frags[0].arguments)):
        seen.add("whole_call_single_chunk", frags[0].seq, f"{call.name!r}")


def _scan_cumulative(texts: list[tuple[int, str]], seen: _Seen) -> None:
    """Cumulative streams repeat the whole buffer: every fragment, from the very first, starts
    with the one before it. Two fragments that merely share a few characters ('e fram' then
    'e frame r' in prose) are not that, so the chain must start at the call's first fragment."""
    chain: list[int] = []
    for (_, before), (seq, after) in pairwise(texts):
        if len(after) > len(before) and after.startswith(before):
            chain.append(seq)
        else:
            break
    if chain and (len(chain) == len(texts) - 1 or len(chain) >= 2):
        for seq in chain:
            seen.add("cumulative_arguments", seq)


def _complete_object(arguments: Any) -> bool:
    """Is ``arguments`` the text of a whole JSON object?"""
    if not isinstance(arguments, str) or not arguments.lstrip().startswith("{"):
        return False
    try:
        orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return False
    return True


def _scan_turn(state: StreamState, seen: _Seen, dialect: str) -> None:
    calls = [c for c in state.calls if state.acc is None or not state.acc.is_orphan(c)]
    if dialect == "openai-chat":
        indexes = sorted({c.index for c in state.calls if isinstance(c.index, int)})
        if indexes and indexes != list(range(len(indexes))):
            gap = next(i for n, i in enumerate(indexes) if i != n)  # the first out-of-place one
            first = next(c for c in state.calls if c.index == gap)
            seen.add("sparse_index", first.fragments[0].seq, f"indexes {indexes}")
    reason = state.finish_reason
    if calls and state.finish and reason not in TOOL_FINISH:
        seen.add("finish_reason_mismatch", state.finish[-1][0],
                 f"{reason!r} with {len(calls)} tool call(s)")
    last = state.events[-1].seq if state.events else 0
    if state.ended and not state.finish and state.events:
        seen.add("missing_finish_reason", last)
    if state.ended and dialect in _END_MARKER and state.done_seq is None and state.events:
        seen.add("missing_done", last, f"no {_END_MARKER[dialect]}")
    _scan_text(state, seen)


def _scan_text(state: StreamState, seen: _Seen) -> None:
    # Only the last few characters are kept, with the chunks they came from: a tag may straddle
    # two deltas, and then both chunks show it.
    tail: list[tuple[int, str]] = []
    for d in state.deltas:
        value = d.value if isinstance(d, Delta) and d.kind == DeltaKind.TEXT else None
        if not isinstance(value, str):
            continue
        pieces = [*tail, (d.seq, value)]
        window = "".join(text for _, text in pieces)
        fresh = len(window) - len(value)
        for m in _TEXT_CALL.finditer(window):
            if m.end() <= fresh:
                continue  # wholly in the tail: reported with an earlier delta
            pos = 0
            for seq, text in pieces:
                if pos < m.end() and pos + len(text) > m.start():
                    seen.add("text_mode_tool_call", seq)
                pos += len(text)
        tail = []
        need = _TAG_TAIL
        for seq, text in reversed(pieces):
            if need <= 0:
                break
            tail.insert(0, (seq, text[-need:]))
            need -= len(text)
