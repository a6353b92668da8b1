"""Index-keyed accumulation of tool-call fragments under a switchable empty-id policy.

Invariants:
- Input is the dialect's deltas, untouched; the accumulator never edits a delta. Re-judging
  under another policy means running a fresh Accumulator over the same deltas.
- Cost is O(total bytes): an accepted argument fragment is appended to the call's pieces; the
  joined buffer is built at most once per call and then cached until the next fragment.
  What a call keeps is compact (:mod:`inspector.core.calls.toolcall`).
- Every fragment routed to a call is kept in ``call.fragments`` (no list while it is the only
  one, :mod:`~inspector.core.calls.toolcall`) with ``call.accepted[i]``
  saying whether it was appended (False = dropped by the ``literal`` policy), so a view can
  show dropped fragments struck through in the lane they were meant for. Fragments with no
  lane at all go to ``Accumulator.unrouted``.
- Calls close when the provider says so: an explicit CLOSE delta, the next wire index in
  order, or a finish/done, as its :class:`~inspector.core.base.provider.Closing` rule says.
  A call still open at end of stream is truncated.
- What routing needs is held only while it can be needed: the id table only under the
  ``literal`` policy (the only one that looks calls up by id), the index table until the end
  of the stream (dropped then, rebuilt from ``calls`` in opening order should a fragment or
  a close still come: the table is the last call opened at each index, so the rebuilt one is
  the same).
- A fragment with another non-blank id than the call at its index opens a new call when it
  has a name, or when it is the :class:`~inspector.core.base.kinds.ItemDelta` that opens an
  item (not ``final``: an item is named by its type, and an ``apply_patch_call`` or
  ``web_search_call`` has no name). So a body joining several responses, whose output
  indexes restart at 0, keeps every item. A nameless plain fragment, or an item's ``final``
  restatement, with a new id is the same call changing its id (a quirk to show).
- A ``final`` fragment restates the whole arguments: it fills a call with none, and is
  compared (never appended) otherwise. For an item that is not a function call, a final
  ``args_object`` fragment (an item's whole object input, restated when done) takes the
  place of the streamed text, which was one field of it (a patch's diff, a shell's commands):
  the lane fills as the field streams and ends holding the whole input, once.
- Any value is accepted where the wire has one (:mod:`inspector.core.calls.wirefield`): only
  a JSON integer or string index names a lane (any other routes as a missing one, and a CLOSE
  at it closes nothing), and only a string finish reason can be a cut-off one.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any, Final

import orjson

from inspector.core.base.kinds import CallKind, ItemDelta, kind_of
from inspector.core.base.model import OMITTED, Delta, DeltaKind, ToolCallDelta
from inspector.core.base.provider import IN_ORDER, Closing
from inspector.core.base.settings import ABSENT, LITERAL, EmptyIdPolicy, empty_id_policy
from inspector.core.calls.toolcall import ToolCall
from inspector.core.calls.wirefield import is_key

_arguments = attrgetter("arguments")
FUNCTION: Final = CallKind.FUNCTION

__all__ = [
    "CUTOFF_REASONS",
    "Accumulator",
    "ToolCall",
    "repaired_id",
]

#: Finish reasons that mean the model was cut off (open calls may be incomplete): Chat's
#: ``length``, Anthropic's ``max_tokens``, Gemini's and Cohere's ``MAX_TOKENS``, the Responses
#: API's ``incomplete:…`` and a Gemini interaction's ``incomplete`` status.
CUTOFF_REASONS: Final = frozenset(
    {"length", "max_tokens", "MAX_TOKENS", "incomplete:max_output_tokens", "incomplete"}
)


def _blank(value: object, policy: EmptyIdPolicy) -> bool:
    """Is an id/name absent under ``policy``? ``literal`` only treats omitted/null as absent."""
    if value is OMITTED or value is None:
        return True
    return policy == ABSENT and (value == "" or value == "null")


class Accumulator:
    """Routes tool-call fragments to calls by wire index (see the module docstring)."""

    def __init__(self, empty_id: EmptyIdPolicy = ABSENT, closing: Closing = IN_ORDER) -> None:
        self.policy = empty_id_policy(empty_id)  # callers outside the type checker: any string
        """The empty-id policy in force: ``absent`` or ``literal``."""
        self.closing = closing
        """When calls close: the provider's rule (a stream names its provider's)."""
        self.calls: list[ToolCall] = []
        """Every call opened, in opening order."""
        self.unrouted: list[ToolCallDelta] = []
        """Dropped fragments that had no call to be shown in."""
        self._by_index: dict[Any, ToolCall] = {}
        self._by_id: dict[Any, ToolCall] = {}  # literal only (see the module docstring)
        self._open: list[ToolCall] = []
        self._dropped_index = False  # the stream ended: _by_index is to be rebuilt if needed

    # -- feeding -------------------------------------------------------------------------

    def add(self, d: ToolCallDelta) -> ToolCall | None:
        """Route one fragment; return the call it was routed to (None if unrouted)."""
        if d.id is OMITTED and d.name is OMITTED and not d.final:
            # The common continuation: no identity at all, so no policy question arises.
            index = d.index
            call = self._by_index.get(index) if type(index) is int else None
            a = d.arguments
            if call is not None and call.close_reason is None and type(a) is str:  # open
                call.take(d, a)  # the hot path: one call, nothing inside it calls again
                return call
        if self._dropped_index:
            self._reindex()
        policy = self.policy
        if policy == LITERAL and isinstance(d.id, str):
            known = self._by_id.get(d.id)
            if known is not None:
                return self._join(known, d)
            if _blank(d.name, ABSENT) and kind_of(d) == FUNCTION:
                return self._drop(d)  # no real name: nothing to open, the fragment is lost
            return self._new(d)
        index = d.index
        if not is_key(index):
            return self._add_unindexed(d)
        call = self._by_index.get(index)
        if call is None:
            return self._new(d)
        if (
            not _blank(d.id, policy)
            and d.id != call.id
            and not _blank(call.id, policy)
            and (not _blank(d.name, policy) or (isinstance(d, ItemDelta) and not d.final))
        ):
            return self._new(d)  # parallel call (or a later response's item) at a reused index
        return self._join(call, d)

    def add_run(self, run: Sequence[ToolCallDelta]) -> bool:
        """Route continuation fragments of one wire index at once (each without an id and a
        name, not final, with string arguments): the state :meth:`add` one by one gives when
        their call is open. False, routing nothing, when it is not (or there is none)."""
        index = run[0].index
        call = self._by_index.get(index) if type(index) is int else None
        if call is None or call.close_reason is not None:
            return False
        call.keep_all(run)
        call.add_texts(list(filter(None, map(_arguments, run))))
        return True

    def _add_unindexed(self, d: ToolCallDelta) -> ToolCall | None:
        policy = self.policy
        if not _blank(d.id, policy) and not _blank(d.name, policy):
            return self._new(d)
        target = self._open[-1] if self._open else None
        if target is None:  # the latest call, if any (not one read from text: not the wire's)
            target = next((c for c in reversed(self.calls) if type(c) is ToolCall), None)
            if target is None or (not _blank(d.name, policy) and not d.final):
                return self._new(d)
        return self._join(target, d)

    def _new(self, d: ToolCallDelta) -> ToolCall:
        if self.closing.on_next_index and self._open:
            for call in self._open:
                call.close_seq = d.seq
                call.close_reason = "next_index"
            self._open.clear()
        call = ToolCall(len(self.calls), d)
        self.calls.append(call)
        self._open.append(call)
        if is_key(d.index):
            self._by_index[d.index] = call
        if self.policy == LITERAL and isinstance(d.id, str):
            self._by_id.setdefault(d.id, call)
        self._arguments(call, d)  # the call holds its opener already
        return call

    def _join(self, call: ToolCall, d: ToolCallDelta) -> ToolCall:
        policy = self.policy
        if call.close_reason is not None:  # closed
            call.came_late(d.seq)
        if not _blank(d.id, policy):
            if _blank(call.id, policy):
                call.id = d.id
                if policy == LITERAL and isinstance(d.id, str):
                    self._by_id.setdefault(d.id, call)
            elif d.id != call.id:
                call.changed_id(d.seq, d.id)
        if not _blank(d.name, policy):
            if _blank(call.name, policy):
                call.name = d.name
            elif d.name != call.name:
                call.changed_name(d.seq, d.name)
        self._append(call, d)
        return call

    def _append(self, call: ToolCall, d: ToolCallDelta) -> None:
        call.keep(d)
        self._arguments(call, d)

    def _arguments(self, call: ToolCall, d: ToolCallDelta) -> None:
        """Take ``d``'s arguments (``d`` is the call's latest fragment)."""
        a = d.arguments
        if a is OMITTED or a is None:
            return
        if not isinstance(a, str):  # ToolCallDelta.text's rule, inline: this is per fragment
            a = repr(a)  # a number or bool where a string belongs: keep it visible
        if d.final:
            if d.args_object and call.kind != FUNCTION and call.length and a != call.arguments:
                call.restate(a)  # an item's whole object input: the streamed text was a field
            else:
                self._reconcile(call, a)
        elif a:
            call.add_text(a)

    def _reconcile(self, call: ToolCall, final: str) -> None:
        """A done/final event restates the whole arguments: fill or compare, never append."""
        if call.length == 0:
            if final:
                call.add_text(final)
                call.args_from_final = True
        elif final != call.arguments:
            call.final_mismatch = final

    def _drop(self, d: ToolCallDelta) -> ToolCall | None:
        """``literal``: an id no call has; keep the fragment visible in the lane it targeted."""
        index = d.index
        target = self._by_index.get(index) if is_key(index) else None
        if target is None and self._open:
            target = self._open[-1]
        if target is None:
            self.unrouted.append(d)
            return None
        target.refuse(d)
        return target

    # -- closing -------------------------------------------------------------------------

    def on_delta(self, d: Delta) -> None:
        """React to a non-tool delta that may close calls (CLOSE, FINISH, DONE)."""
        kind = d.kind
        if kind == DeltaKind.CLOSE:
            self.close(d.value, d.seq)
        elif kind == DeltaKind.FINISH:
            if type(d.value) is str and d.value in CUTOFF_REASONS:
                for call in self._open:
                    call.truncated = not _parses(call.arguments)
            if self.closing.on_finish:
                self.close_all(d.seq, "finish")
        elif kind == DeltaKind.DONE:
            if not self.closing.on_finish:  # explicit-close dialects: an open block was cut
                for call in self._open:
                    call.truncated = True
            self.close_all(d.seq, "done")

    def close(self, index: Any, seq: int) -> None:
        """Close the call at ``index`` (OMITTED: the latest open call; an index that names
        no lane, such as an array, closes nothing)."""
        if self._dropped_index:
            self._reindex()
        if index is OMITTED:
            call = self._open[-1] if self._open else None
        else:
            call = self._by_index.get(index) if is_key(index) else None
        if call is not None and call.close_reason is None:  # open
            call.close_seq = seq
            call.close_reason = "close"
            self._open.remove(call)

    def close_all(self, seq: int, reason: str) -> None:
        """Close every open call (a finish or the end-of-stream marker)."""
        for call in self._open:
            call.close_seq = seq
            call.close_reason = reason
        self._open.clear()

    def end_of_stream(self) -> None:
        """The body ended: any call still open was cut off."""
        for call in self._open:
            call.truncated = True
            call.close_reason = "end_of_stream"
        self._open.clear()
        self._by_index = {}  # not needed unless more comes (module docstring)
        self._dropped_index = True

    def _reindex(self) -> None:
        """The index table as it was at the end of the stream: the last call opened at each
        index (``calls`` is in opening order; a call's ``index`` is its opener's)."""
        self._dropped_index = False
        by_index = self._by_index
        for call in self.calls:
            if type(call) is ToolCall and is_key(call.index):
                by_index[call.index] = call

    # -- reading -------------------------------------------------------------------------

    def is_orphan(self, call: ToolCall) -> bool:
        """A nameless function call that never got arguments (an id-only entry): left out of
        the turn. An item of another kind is never one: its type names it (an
        ``image_generation_call`` has no name and no input)."""
        return _blank(call.name, self.policy) and call.length == 0 and call.kind == FUNCTION

    def assembled(self) -> list[ToolCall]:
        """The calls that make up the assistant turn (orphans left out)."""
        return [c for c in self.calls if not self.is_orphan(c)]

    def blank(self, value: object) -> bool:
        """Is an id/name absent under this accumulator's policy?"""
        return _blank(value, self.policy)


def _parses(text: str) -> bool:
    if not text.strip():
        return True
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def repaired_id(call: ToolCall) -> str:
    """A deterministic id for a named call that arrived without one (the id repair asked for by
    validating streamed tool calls before execution).

    Nine ASCII letters and digits, so it is also a valid Mistral tool-call id.
    """
    return f"call{call.slot:05d}"
