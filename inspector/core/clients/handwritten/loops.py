"""Hand-written tool loops over the openai SDK's chunks: ``by-index`` and ``by-id``.

Both read ``client.chat.completions.create(stream=True)``'s chunks (the SDK's SSE layer,
:mod:`inspector.core.clients.openai_sdk.sse`), look only at
``chunk.choices[0].delta.tool_calls`` and skip chunks with no choices. Their reference code, run
as their "real library" by the goldens, is ``tests/clients/real/handwritten.py``; the two must
say the same.

- ``by-index``: the loop most hand-written agents use: a dict keyed by ``tc.index`` whose
  entries concatenate every truthy string field (id, name, arguments); calls are handed over in
  the order their index first appeared. Parallel calls sent on one index merge into one call.
- ``by-id``: the legacy accumulator of the empty-id bug: a fragment with an id (any string,
  ``""`` included, as a Rust ``Option<String>`` reads it) is looked up by that id; an id no call
  has opens a call when the fragment has a name and is dropped otherwise, so empty-string-id
  continuations are lost. A fragment without an id continues the call at its index (or opens
  one). It agrees with the inspector's own ``literal`` empty-id policy on the empty-id streams.

Invariants:
- The loops run on the chunks' JSON values with Python's own operators, so a value of the wrong
  type fails exactly as the reference loop fails on the SDK's (unvalidated) models: attribute
  access on a non-object is ``AttributeError``, ``str += int`` is ``TypeError``, an unhashable
  index is ``TypeError``; each becomes :class:`ClientRaised` with Python's message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Final

from inspector.core.clients.base import Exchange, HandedCall, Partial, Replica, as_text
from inspector.core.clients.openai_sdk.sse import VERSION, SdkChunkRun, attr
from inspector.core.providers import OPENAI_CHAT

CHAT: Final = frozenset({OPENAI_CHAT})


def tool_call_entries(chunk: Any) -> Iterator[Any]:
    """``chunk.choices[0].delta.tool_calls or []``, skipping chunks with no choices."""
    choices = attr(chunk, "choices")
    if not choices:
        return
    yield from attr(attr(choices[0], "delta"), "tool_calls") or []


def shown(value: Any) -> str | None:
    """An id or name for the prefix check while the stream arrives: as :func:`_text`, None
    where even ``str()`` fails (an integer past Python's digit limit)."""
    try:
        return as_text(value)
    except ValueError:
        return None


def _grow(entry: Partial, added: Any) -> None:
    """``entry["arguments"] += added``, the text held as its pieces (``+=`` copies the whole
    string each time: quadratic in a call's size; a first piece is held as itself, no list);
    anything but a string fails as ``str +=`` does."""
    if type(added) is str:
        entry.add(added)
        return
    text = entry.arguments
    text += added
    entry.parts = [text]


class _Entry(Partial):
    """One entry as the loop holds it, and the very :class:`Partial` the driver reads (one
    object per call): ``raw_id`` and ``raw_name`` are its values as Python holds them, ``id``
    and ``name`` as shown; ``parts`` are the argument pieces, joined once at the end."""

    __slots__ = ("pos", "raw_id", "raw_name")

    def __init__(self, pos: int, raw_id: Any, raw_name: Any) -> None:
        super().__init__(shown(raw_id), shown(raw_name), "")
        self.pos, self.raw_id, self.raw_name = pos, raw_id, raw_name


class _LoopRun(SdkChunkRun):
    """Shared bookkeeping: the entries as the loop holds them, which are the Partials."""

    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.names: dict[str, str] = {}
        """Each name once (a tool's name comes again with every call it makes)."""

    def chunk(self, data: Any) -> None:
        for tc in tool_call_entries(data):
            self.entry(tc)

    def entry(self, tc: Any) -> None:
        raise NotImplementedError

    def once(self, name: Any) -> Any:
        """``name``, the one object per name (names repeat with every call of a tool)."""
        return self.names.setdefault(name, name) if type(name) is str else name

    def open_entry(self, call_id: Any, name: Any, index: Any) -> _Entry:
        """A new entry at the end; its position is the fragment's index object when equal
        (the dict keeps that int anyway: no second int per call)."""
        pos = len(self.calls)
        entry = _Entry(index if type(index) is int and index == pos else pos, "", "")
        entry.raw_id, entry.raw_name = self.same_id(pos, call_id), self.once(name)
        self.calls.append(entry)
        return entry

    def sync(self, entry: _Entry) -> None:
        """The shown id and name after a fragment, and the argument text, as the inspector's
        equal strings where they are (one copy, see
        :attr:`inspector.core.clients.base.ReplicaRun.expected`)."""
        entry.raw_id = raw_id = self.same_id(entry.pos, entry.raw_id)
        entry.id, entry.name = shown(raw_id), shown(entry.raw_name)
        if type(entry.parts) is str:
            entry.parts = self.same_text(entry.pos, entry.parts)
        self.touched.add(entry.pos)

    def handed(self) -> list[HandedCall]:
        entries: list[Any] = self.calls
        return [HandedCall(as_text(e.raw_id), as_text(e.raw_name), e.arguments) for e in entries]


class _ByIndexRun(_LoopRun):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.by_index: dict[Any, _Entry] = {}

    def entry(self, tc: Any) -> None:
        index = attr(tc, "index")
        entry = self.by_index.get(index)
        if entry is None:
            entry = self.open_entry("", "", index)
            self.by_index[index] = entry
        call_id = attr(tc, "id")
        if call_id:
            entry.raw_id += call_id
        fn = attr(tc, "function")
        if fn:
            name = attr(fn, "name")
            if name:
                entry.raw_name = self.once(entry.raw_name + name)
            added = attr(fn, "arguments")
            if added:
                _grow(entry, added)
        self.sync(entry)


class _ByIdRun(_LoopRun):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.by_id: dict[Any, _Entry] = {}
        self.by_index: dict[Any, _Entry] = {}

    def entry(self, tc: Any) -> None:
        fn = attr(tc, "function")
        name = attr(fn, "name") if fn else None
        arguments = attr(fn, "arguments") if fn else None
        call_id = attr(tc, "id")
        index = attr(tc, "index")
        if call_id is not None:  # "" is an id like any other
            entry = self.by_id.get(call_id)
            if entry is None:
                if not name:
                    return  # no call has this id and there is no name to open one: lost
                entry = self.open_entry(call_id, name, index)
                self.by_id[entry.raw_id] = entry
                self.by_index[index] = entry
        else:
            entry = self.by_index.get(index)
            if entry is None:
                entry = self.open_entry(None, name or "", index)
                self.by_index[index] = entry
        if name and not entry.raw_name:
            entry.raw_name = self.once(name)
        if arguments:
            _grow(entry, arguments)
        self.sync(entry)


class ByIndex(Replica):
    """A dict keyed by index that concatenates every string field."""

    name: ClassVar[str] = "by-index"
    library: ClassVar[str] = "openai"
    version: ClassVar[str] = VERSION
    follows: ClassVar[str] = "tests/clients/real/handwritten.py (by_index), over openai's chunks"
    dialects: ClassVar[frozenset[str]] = CHAT
    plain: ClassVar[frozenset[str]] = CHAT
    summary: ClassVar[str] = (
        "A hand-written loop: entries keyed by index, id, name and arguments concatenated"
    )

    def open(self, exchange: Exchange) -> _ByIndexRun:
        return _ByIndexRun(exchange)


class ById(Replica):
    """The legacy accumulator that looks calls up by id (``""`` is an id)."""

    name: ClassVar[str] = "by-id"
    library: ClassVar[str] = "openai"
    version: ClassVar[str] = VERSION
    follows: ClassVar[str] = "tests/clients/real/handwritten.py (by_id), over openai's chunks"
    dialects: ClassVar[frozenset[str]] = CHAT
    plain: ClassVar[frozenset[str]] = CHAT
    summary: ClassVar[str] = (
        'The empty-id accumulator bug: fragments looked up by id, so "" ids drop fragments'
    )

    def open(self, exchange: Exchange) -> _ByIdRun:
        return _ByIdRun(exchange)
