"""The inspector's calls as clients are compared with them, and a client's calls beside them,
held without one object per call (a session may hold 200,000 calls).

Invariants:
- :class:`InspectorCalls` reads an ended attempt's calls (never changed once it ended) and
  makes each :class:`~.base.HandedCall` when it is read: it holds the attempt's verdict list
  itself when every verdict's call is expected (a list never changed once made), else a list
  of those verdicts, one reference each, and the last call it made (a replica and the driver
  read one position several times in a row). Its items are equal, field for field, to those
  a tuple built once would hold: the id and name as an agent reads them
  (:func:`~.base.as_text`), the call's own ``arguments`` string (never a copy).
- :class:`ClientCalls` is a client's calls where most are the inspector's: per position,
  the inspector's position it equals, or one of its own; one array slot a call.
- Both are sequences of :class:`~.base.HandedCall` (len, int and slice index, iteration,
  ``==`` any sequence of equal calls); nothing changes them once made.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

from inspector.core.base.kinds import CallKind
from inspector.core.base.model import plain
from inspector.core.calls.toolcall import ToolCall
from inspector.core.clients.base import HandedCall, as_text
from inspector.core.verdicts.judge import CallVerdict

_NONE: tuple[int | None, HandedCall | None] = (None, None)  # no position read yet


def _same_calls(one: Sequence[CallVerdict], other: Sequence[CallVerdict]) -> bool:
    """Verdicts of the very same call objects, in order."""
    return one is other or (
        len(one) == len(other) and all(a.call is b.call for a, b in zip(one, other, strict=True))
    )


def handed(call: ToolCall) -> HandedCall:
    """``call`` as the inspector expects a client to hand it over (its kind and wire item
    type with it, where it is not a function call)."""
    return HandedCall(*_fields(call), *_kind(call))


def _kind(call: ToolCall) -> tuple[str, str | None]:
    """``call``'s kind, and its item type unless it is a function call."""
    kind = call.kind
    return (kind, None) if kind == CallKind.FUNCTION else (kind, call.item_type)


def same_shape(want: HandedCall, have: HandedCall) -> bool:
    """``have`` is an item of ``want``'s kind and type, its arguments a string: only then can
    it be held as the inspector's own."""
    return have.kind == want.kind and have.item_type == want.item_type and not have.object


def _fields(call: ToolCall) -> tuple[str | None, str | None, str]:
    """``call``'s id, name (:func:`~.base.as_text` of each as received) and arguments."""
    id_, name = call.id, call.name
    if type(id_) is not str:
        id_ = as_text(plain(id_))
    if type(name) is not str:
        name = as_text(plain(name))
    return id_, name, call.arguments


def entries(calls: Sequence[HandedCall]) -> Iterator[dict[str, Any]]:
    """Each call's ``--json`` entry (:meth:`~.base.HandedCall.to_json`), in order; the
    inspector's calls give theirs without making a :class:`~.base.HandedCall` each."""
    if isinstance(calls, InspectorCalls):
        for verdict in calls._verdicts:
            id_, name, arguments = _fields(verdict.call)
            kind, item_type = _kind(verdict.call)
            entry: dict[str, Any] = {"id": id_, "name": name, "arguments": arguments}
            if kind != CallKind.FUNCTION:
                entry |= {"kind": kind, "item_type": item_type}
            yield entry
    else:
        for each in calls:
            yield each.to_json()


class _Calls(Sequence[HandedCall]):
    """What both sequences share: slices, equality, no hash."""

    __slots__ = ()

    @overload
    def __getitem__(self, index: int) -> HandedCall: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[HandedCall, ...]: ...

    def __getitem__(self, index: int | slice) -> HandedCall | tuple[HandedCall, ...]:
        if isinstance(index, slice):
            return tuple(self.at(i) for i in range(*index.indices(len(self))))
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("call index out of range")
        return self.at(index)

    def at(self, pos: int) -> HandedCall:
        """The call at ``pos`` (``0 <= pos < len``)."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class InspectorCalls(_Calls):
    """The inspector's calls of one ended attempt, each made when read (module docstring):
    ``verdicts`` are those of the expected calls, in lane order."""

    __slots__ = ("_last", "_verdicts")

    def __init__(self, verdicts: Sequence[CallVerdict]) -> None:
        self._verdicts = verdicts
        self._last = _NONE  # (pos, the call made there): one slot, swapped whole

    def __len__(self) -> int:
        return len(self._verdicts)

    @overload
    def __getitem__(self, index: int) -> HandedCall: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[HandedCall, ...]: ...

    def __getitem__(self, index: int | slice) -> HandedCall | tuple[HandedCall, ...]:
        # the replicas' and the driver's read, several a call: kept short
        last = self._last
        if last[0] == index:
            return last[1]  # type: ignore[return-value]
        if type(index) is not int or index < 0:
            return super().__getitem__(index)
        made = handed(self._verdicts[index].call)
        self._last = (index, made)
        return made

    def at(self, pos: int) -> HandedCall:
        return self[pos]

    def equal(self, got: Sequence[HandedCall]) -> bool:
        """Is ``got`` these calls, field for field, in order (none made to compare)?"""
        verdicts = self._verdicts
        return len(got) == len(verdicts) and all(
            _fields(v.call) == (have.id, have.name, have.arguments)
            and _kind(v.call) == (have.kind, have.item_type)
            and not have.object
            for v, have in zip(verdicts, got, strict=True)
        )

    def __iter__(self) -> Iterator[HandedCall]:
        return (handed(v.call) for v in self._verdicts)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, InspectorCalls) and _same_calls(self._verdicts, other._verdicts):
            return True
        return super().__eq__(other)


class ClientCalls(_Calls):
    """A client's calls that mostly equal the inspector's (module docstring): ``_at[pos]`` is
    the inspector's position (>= 0) or ``-1 - k`` for ``_own[k]``."""

    __slots__ = ("_at", "_expected", "_own")

    def __init__(self, expected: Sequence[HandedCall]) -> None:
        self._expected = expected
        self._at: array[int] = array("q")
        self._own: list[HandedCall] = []

    def inspectors(self, pos: int) -> None:
        """Append the inspector's call at ``pos``."""
        self._at.append(pos)

    def own(self, call: HandedCall) -> None:
        """Append a call of the client's own."""
        self._at.append(-1 - len(self._own))
        self._own.append(call)

    def source(self, pos: int) -> int | None:
        """The inspector's position the call at ``pos`` is, None for one of the client's."""
        at = self._at[pos]
        return at if at >= 0 else None

    def __len__(self) -> int:
        return len(self._at)

    def at(self, pos: int) -> HandedCall:
        at = self._at[pos]
        return self._expected[at] if at >= 0 else self._own[-1 - at]

    def __iter__(self) -> Iterator[HandedCall]:
        return (self.at(pos) for pos in range(len(self._at)))


def shared(expected: Sequence[HandedCall], got: Sequence[HandedCall]) -> Sequence[HandedCall]:
    """``got`` reading the inspector's calls wherever it equals them: a call equal to the
    inspector's at its position, or else to the inspector's call with its id (a merge shifts
    positions), is held as that position (:class:`.ClientCalls`); a call that only shares its
    arguments shares their string. ``expected`` itself when every call is the inspector's,
    in order: an agreeing client holds no call of its own."""
    count = len(expected)
    if isinstance(expected, InspectorCalls):
        if expected.equal(got):
            return expected
    elif len(got) == count and all(_equal(expected[pos], have) for pos, have in enumerate(got)):
        return expected
    out = ClientCalls(expected)
    by_id: dict[str | None, int] | None = None
    for pos, have in enumerate(got):
        if pos < count and _equal(expected[pos], have):
            out.inspectors(pos)
            continue
        if by_id is None:  # the first call with each id
            by_id = {expected[at].id: at for at in range(count - 1, -1, -1)}
        for at in (pos, by_id.get(have.id)):
            if at is None or at >= count:
                continue
            candidate = expected[at]
            if _equal(candidate, have):
                out.inspectors(at)
                break
            if candidate.arguments == have.arguments:
                out.own(dataclasses.replace(have, arguments=candidate.arguments))
                break
        else:
            out.own(have)
    return out


def _equal(want: HandedCall, have: HandedCall) -> bool:
    return want is have or (
        want.arguments == have.arguments
        and want.id == have.id
        and want.name == have.name
        and same_shape(want, have)
    )
