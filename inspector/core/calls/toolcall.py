"""One assembled tool call (:class:`ToolCall`), kept compact: a stream may hold 200,000 of them.

Invariants:
- Only the accumulator (and the text-call reader, for calls written in the text) changes a
  call; everything else reads it. Every attribute reads as a sequence or a value; none is a
  list to append to from outside.
- What most calls never need costs one slot per call until it is first needed: dropped
  fragments, ``id_changes``, ``name_changes``, ``late_fragments``, ``args_from_final``,
  ``final_mismatch`` and ``truncated`` live in a record made at the first of them (a False
  ``truncated`` makes none); until then the sequences
  read as the shared empty tuple. The dropped fragments are kept as their positions in
  ``fragments``, and ``accepted`` is a view over them (:class:`Accepted`), not a list of
  booleans.
- A call of one fragment holds no list (most calls of a long session are one chunk each):
  ``_first`` is the opener, ``_frags`` None until a second fragment arrives, then the list of
  all of them (the opener first). ``fragments`` reads as that list either way (a fresh
  one-item list for one fragment: equal to the list it used to be, never to be appended to).
  :meth:`ToolCall.take` tests ``_frags is not None``, as cheap as the append it guards.
- ``slot`` is the opener's wire index object itself when they are equal (the usual case): no
  second int per call. ``index`` is read from the opener (never changes); ``open`` is having
  no ``close_reason`` yet (every close names its reason).
- The argument text is held once: one accepted piece is kept as the joined text itself (no
  list); from the second on, the pieces are kept in a list and joined once when asked,
  cached until the next piece. ``parts`` reads the pieces either way (a one-tuple for one).
- A call is never a key of the core's own caches by value: views keep what they derive from
  one beside it, keyed weakly by the call (``__weakref__``).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import Any, Final, overload

from inspector.core.base.kinds import item_type_of, kind_of
from inspector.core.base.model import ToolCallDelta
from inspector.core.calls.surrogates import paired

NONE: Final[tuple[()]] = ()


"""The shared empty sequence a rarely-filled attribute holds until its first entry."""


class ToolCall:
    """One assembled tool call: its identity as received and every fragment routed to it.

    Only the :class:`~inspector.core.calls.accumulator.Accumulator` changes a call (see the
    module docstring). Views keep what they derive from one (e.g.
    :func:`inspector.core.calls.progress.progress_of`) beside it, keyed weakly by the call.
    """

    __slots__ = (
        "__weakref__",
        "_first",
        "_frags",
        "_joined",
        "_parts",
        "_rare",
        "close_reason",
        "close_seq",
        "id",
        "length",
        "name",
        "slot",
    )

    def __init__(self, slot: int, first: ToolCallDelta) -> None:
        index = first.index
        self.slot: int = index if type(index) is int and index == slot else slot
        """Position of the call in the turn (lane order), from 0."""
        self.id: Any = first.id
        """The id as received: from the opening fragment, or the first later non-blank one."""
        self.name: Any = first.name
        """The name as received, established like ``id``."""
        self._first = first
        self._frags: list[ToolCallDelta] | None = None  # all of them, from the second on
        self._parts: list[str] | None = None  # the pieces, from the second piece on
        self._joined: str | None = ""  # the joined text (the only piece while _parts is None)
        self._rare: _Rare | None = None  # what few calls have, made at its first need
        self.length = 0
        """Characters of accepted argument text."""
        self.close_seq: int | None = None
        """Sequence number of the event that closed the call."""
        self.close_reason: str | None = None
        """What closed it: "close", "next_index", "finish", "done", "end_of_stream" (a text
        call: what ended it); None while it is open."""

    # -- reading -------------------------------------------------------------------------

    @property
    def open(self) -> bool:
        """False once the provider closed the call: it has a ``close_reason``."""
        return self.close_reason is None

    @open.setter
    def open(self, value: bool) -> None:
        if value:
            self.close_reason = None
        elif self.close_reason is None:
            self.close_reason = ""  # closed; the closer names the reason next

    @property
    def kind(self) -> str:
        """The item's :class:`~inspector.core.base.kinds.CallKind`, said by its opener."""
        return kind_of(self._first)

    @property
    def item_type(self) -> str:
        """The wire's own item type, as its opener said it (``function`` for Chat)."""
        return item_type_of(self._first)

    @property
    def index(self) -> Any:
        """The wire index as received on the opening fragment (OMITTED when missing)."""
        return self._first.index

    @property
    def truncated(self) -> bool:
        """The stream ended (or was cut off by a length finish) before the call completed."""
        return self._rare.truncated if self._rare else False

    @truncated.setter
    def truncated(self, value: bool) -> None:
        if value or self._rare:
            self._more().truncated = value

    @property
    def fragments(self) -> list[ToolCallDelta]:
        """Every fragment routed to this call, in arrival order (dropped ones included): the
        opener is the first (its arguments are the caller's to take, :meth:`add_text`). Read
        only: for a one-fragment call it is a fresh one-item list (see the module docstring)."""
        frags = self._frags
        return [self._first] if frags is None else frags

    @property
    def fragment_count(self) -> int:
        """``len(fragments)``, without making the one-item list."""
        frags = self._frags
        return 1 if frags is None else len(frags)

    @property
    def arguments(self) -> str:
        """The accepted argument text, joined once and cached until the next piece."""
        joined = self._joined
        if joined is None:
            joined = self._joined = paired("".join(self._parts or NONE))  # split surrogates
        return joined

    @property
    def parts(self) -> Sequence[str]:
        """The accepted argument pieces, in order; ``arguments`` is their concatenation."""
        if self._parts is not None:
            return self._parts
        return (self._joined,) if self._joined else NONE

    @property
    def accepted(self) -> Accepted:
        """Parallel to ``fragments``: False where the policy dropped the fragment."""
        return Accepted(self)

    @property
    def dropped_count(self) -> int:
        """How many fragments the policy dropped."""
        return len(self._rare.dropped) if self._rare else 0

    @property
    def dropped_positions(self) -> Sequence[int]:
        """Positions in ``fragments`` of the dropped ones, ascending."""
        return self._rare.dropped if self._rare else NONE

    @property
    def dropped(self) -> list[ToolCallDelta]:
        """Fragments routed here but not appended (``literal`` policy)."""
        frags = self.fragments
        return [frags[i] for i in self.dropped_positions]

    @property
    def id_changes(self) -> Sequence[tuple[int, Any]]:
        """(seq, id) of continuation fragments that carried a different non-blank id."""
        return self._rare.id_changes if self._rare else NONE

    @property
    def name_changes(self) -> Sequence[tuple[int, Any]]:
        """(seq, name) of continuation fragments that carried a different non-blank name."""
        return self._rare.name_changes if self._rare else NONE

    @property
    def late_fragments(self) -> Sequence[int]:
        """Sequence numbers of fragments that arrived after the call was closed."""
        return self._rare.late_fragments if self._rare else NONE

    @property
    def args_from_final(self) -> bool:
        """The arguments came only from a done/final event (no deltas were streamed)."""
        return self._rare.args_from_final if self._rare else False

    @args_from_final.setter
    def args_from_final(self, value: bool) -> None:
        self._more().args_from_final = value

    @property
    def final_mismatch(self) -> str | None:
        """A final event restated arguments that differ from what was streamed (kept here)."""
        return self._rare.final_mismatch if self._rare else None

    @final_mismatch.setter
    def final_mismatch(self, value: str | None) -> None:
        self._more().final_mismatch = value

    def __repr__(self) -> str:
        return (
            f"ToolCall(slot={self.slot} index={self.index!r} id={self.id!r} name={self.name!r} "
            f"args={self.arguments[:40]!r} fragments={self.fragment_count})"
        )

    # -- changing (the accumulator and the text-call reader only) ------------------------

    def take(self, d: ToolCallDelta, text: str) -> None:
        """Append fragment ``d``, accepted, whose argument text is ``text`` (may be empty): what
        :meth:`keep` then :meth:`add_text` do, in one call with no call inside it (it is the
        accumulator's hot path, once per fragment of a long call)."""
        frags = self._frags
        if frags is not None:
            frags.append(d)
        else:
            self._frags = [self._first, d]
        if not text:
            return
        parts = self._parts
        if parts is not None:
            parts.append(text)
            self._joined = None
        elif self.length:
            self._parts = [self._joined or "", text]
            self._joined = None
        else:
            self._joined = text
        self.length += len(text)

    def keep(self, d: ToolCallDelta) -> None:
        """Append fragment ``d`` to ``fragments`` (its text and flags are the caller's)."""
        frags = self._frags
        if frags is not None:
            frags.append(d)
        else:
            self._frags = [self._first, d]

    def keep_all(self, ds: Sequence[ToolCallDelta]) -> None:
        """:meth:`keep` for each of ``ds``, at once."""
        frags = self._frags
        if frags is not None:
            frags += ds
        else:
            self._frags = [self._first, *ds]

    def add_texts(self, texts: list[str]) -> None:
        """:meth:`add_text` for each of ``texts`` (non-empty pieces, a list this call may
        keep), at once."""
        if not texts:
            return
        parts = self._parts
        if parts is not None:
            parts += texts
        elif self.length:
            self._parts = [self._joined or "", *texts]
        elif len(texts) > 1:
            self._parts = texts
        else:
            self._joined = texts[0]
        if self._parts is not None:
            self._joined = None
        self.length += sum(map(len, texts))

    def add_text(self, text: str) -> None:
        """Append an accepted piece of argument text (nothing for an empty one)."""
        if not text:
            return
        parts = self._parts
        if parts is not None:
            parts.append(text)
            self._joined = None
        elif self.length:
            self._parts = [self._joined or "", text]
            self._joined = None
        else:
            self._joined = text
        self.length += len(text)

    def restate(self, text: str) -> None:
        """Replace the argument text with ``text``: an item's whole input, restated when done,
        of which the text streamed so far was one field (the accumulator's rule)."""
        self._parts = None
        self._joined = text
        self.length = len(text)

    def refuse(self, d: ToolCallDelta) -> None:
        """Append fragment ``d``, dropped by the policy (kept to be shown struck through)."""
        self._more().dropped.append(self.fragment_count)
        self.keep(d)

    def changed_id(self, seq: int, new_id: Any) -> None:
        """A continuation at ``seq`` carried another non-blank id."""
        self._more().id_changes.append((seq, new_id))

    def changed_name(self, seq: int, new_name: Any) -> None:
        """A continuation at ``seq`` carried another non-blank name."""
        self._more().name_changes.append((seq, new_name))

    def came_late(self, seq: int) -> None:
        """A fragment at ``seq`` arrived after the call was closed."""
        self._more().late_fragments.append(seq)

    def _more(self) -> _Rare:
        rare = self._rare
        if rare is None:
            rare = self._rare = _Rare()
        return rare


class _Rare:
    """What few calls have: dropped fragments, changes of identity, late fragments, done
    events that supplied or contradicted the arguments, a cut-off end. Made at the first need
    of a call."""

    __slots__ = (
        "args_from_final",
        "dropped",
        "final_mismatch",
        "id_changes",
        "late_fragments",
        "name_changes",
        "truncated",
    )

    def __init__(self) -> None:
        self.dropped: array[int] = array("q")  # positions in fragments, ascending
        self.id_changes: list[tuple[int, Any]] = []
        self.name_changes: list[tuple[int, Any]] = []
        self.late_fragments: list[int] = []
        self.args_from_final = False
        self.final_mismatch: str | None = None
        self.truncated = False


class Accepted(Sequence[bool]):
    """A live view of a call's ``accepted`` flags: True per fragment except the dropped ones.

    Reads like the list it replaces (len, index, slice, iterate, count, ``==`` a list)."""

    __slots__ = ("_call",)

    def __init__(self, call: ToolCall) -> None:
        self._call = call

    def __len__(self) -> int:
        return self._call.fragment_count

    @overload
    def __getitem__(self, index: int) -> bool: ...

    @overload
    def __getitem__(self, index: slice) -> list[bool]: ...

    def __getitem__(self, index: int | slice) -> bool | list[bool]:
        if isinstance(index, slice):
            return self._slice(*index.indices(len(self)))
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("accepted index out of range")
        dropped = self._call.dropped_positions
        k = bisect_left(dropped, index)
        return not (k < len(dropped) and dropped[k] == index)

    def _slice(self, start: int, stop: int, step: int) -> list[bool]:
        dropped = self._call.dropped_positions
        if step != 1:
            gone = set(dropped)
            return [i not in gone for i in range(start, stop, step)]
        out = [True] * max(0, stop - start)
        for k in range(bisect_left(dropped, start), bisect_left(dropped, stop)):
            out[dropped[k] - start] = False
        return out

    def __iter__(self) -> Iterator[bool]:
        dropped = set(self._call.dropped_positions)
        return (i not in dropped for i in range(len(self)))

    def count(self, value: Any) -> int:
        """How many flags equal ``value`` (as ``list.count``), without walking them."""
        dropped = len(self._call.dropped_positions)
        if value == 1:
            return len(self) - dropped
        return dropped if value == 0 else 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Accepted | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))
