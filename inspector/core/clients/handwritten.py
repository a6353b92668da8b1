"""Hand-written tool loops over the openai SDK's chunks: ``by-index`` and ``by-id``.

Both read ``client.chat.completions.create(stream=True)``'s chunks (the SDK's SSE layer,
:mod:`.openai_sse`), look only at ``chunk.choices[0].delta.tool_calls`` and skip chunks with
no choices. Their reference code, run as their "real library" by the goldens, is
``tests/clients/real/handwritten.py``; the two must say the same.

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
from inspector.core.clients.openai_sse import VERSION, SdkChunkRun

CHAT: Final = frozenset({"openai-chat"})


def attr(obj: Any, name: str) -> Any:
    """``obj.name`` on a model the SDK built without validation: a JSON object's field (None
    when absent); on any other value Python's own attribute (``"x".index`` is a method,
    ``None.index`` an AttributeError)."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name)


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


def _grow(entry: dict[str, Any], added: Any) -> None:
    """``entry["arguments"] += added``, the text held as its pieces (``+=`` copies the whole
    string each time: quadratic in a call's size); anything but a string fails as ``str +=``
    does."""
    parts: list[str] = entry["arguments"]
    if type(added) is str:
        parts.append(added)
        return
    text = "".join(parts)
    text += added
    parts[:] = [text]


class _LoopRun(SdkChunkRun):
    """Shared bookkeeping: the entries as the loop holds them, mirrored as Partials."""

    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.entries: list[dict[str, Any]] = []
        self._pos: dict[int, int] = {}  # id(entry) -> its position

    def chunk(self, data: Any) -> None:
        for tc in tool_call_entries(data):
            self.entry(tc)

    def entry(self, tc: Any) -> None:
        raise NotImplementedError

    def open_entry(self, call_id: Any, name: Any) -> dict[str, Any]:
        entry = {"id": call_id, "name": name, "arguments": []}
        self._pos[id(entry)] = len(self.entries)
        self.entries.append(entry)
        self.calls.append(Partial(shown(call_id), shown(name)))
        return entry

    def sync(self, entry: dict[str, Any], added: str | None) -> None:
        pos = self._pos[id(entry)]
        partial = self.calls[pos]
        partial.id, partial.name = shown(entry["id"]), shown(entry["name"])
        if added:
            partial.parts.append(added)
        self.touched.add(pos)

    def handed(self) -> list[HandedCall]:
        return [
            HandedCall(as_text(e["id"]), as_text(e["name"]), "".join(e["arguments"]))
            for e in self.entries
        ]


class _ByIndexRun(_LoopRun):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.by_index: dict[Any, dict[str, Any]] = {}

    def entry(self, tc: Any) -> None:
        index = attr(tc, "index")
        entry = self.by_index.get(index)
        if entry is None:
            entry = self.open_entry("", "")
            self.by_index[index] = entry
        call_id = attr(tc, "id")
        if call_id:
            entry["id"] += call_id
        fn = attr(tc, "function")
        added = None
        if fn:
            name = attr(fn, "name")
            if name:
                entry["name"] += name
            added = attr(fn, "arguments")
            if added:
                _grow(entry, added)
        self.sync(entry, added)


class _ByIdRun(_LoopRun):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.by_id: dict[Any, dict[str, Any]] = {}
        self.by_index: dict[Any, dict[str, Any]] = {}

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
                entry = self.open_entry(call_id, name)
                self.by_id[call_id] = entry
                self.by_index[index] = entry
        else:
            entry = self.by_index.get(index)
            if entry is None:
                entry = self.open_entry(None, name or "")
                self.by_index[index] = entry
        if name and not entry["name"]:
            entry["name"] = name
        if arguments:
            _grow(entry, arguments)
        self.sync(entry, arguments)


class ByIndex(Replica):
    """A dict keyed by index that concatenates every string field."""

    name: ClassVar[str] = "by-index"
    library: ClassVar[str] = "openai"
    version: ClassVar[str] = VERSION
    follows: ClassVar[str] = "tests/clients/real/handwritten.py (by_index), over openai's chunks"
    dialects: ClassVar[frozenset[str]] = CHAT
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
    summary: ClassVar[str] = (
        'The empty-id accumulator bug: fragments looked up by id, so "" ids drop fragments'
    )

    def open(self, exchange: Exchange) -> _ByIdRun:
        return _ByIdRun(exchange)
