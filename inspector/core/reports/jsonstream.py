"""A JSON document written as it is made: the bytes ``orjson.dumps(doc, option=OPT_INDENT_2)
+ b"\\n"`` would give, without the whole document (or its bytes) ever existing at once.

A document is plain JSON values (dict with str keys, list, tuple, str, int, float, bool, None)
plus two lazy kinds:
- an *iterable* that is none of those (a generator, a ``range``, an ``array``, any compact
  ``Sequence``): written as a JSON array, item by item, each container item released before
  the next is made (scalars are pulled and written in batches of :data:`BATCH`: an array of
  numbers is cheap, and an array should not mix small scalars with big dicts);
- a *deferred value*: a zero-argument callable, called when its turn to be written comes.

Invariants:
- A lazy part sits under dict keys (at any depth) or as an item of another lazy part: a plain
  ``list``/``tuple`` (and whatever it holds) is handed to orjson whole and must hold no lazy
  part (orjson refuses it: a ``TypeError``, never wrong bytes).
- Byte-identical to orjson: every plain value is dumped by orjson itself and re-indented to
  its depth (safe: JSON strings never hold a raw newline); empty arrays and objects are
  ``[]`` and ``{}``; keys keep their order and must be ``str``, as orjson demands without
  options.
- A dict is first offered to orjson whole and walked key by key only when orjson refuses it
  for a lazy part (found before anything is written): a big plain value belongs after the
  dict's first lazy key, or deferred, or it is dumped twice.
- :func:`materialize` gives the same document with every lazy part made plain, for callers
  that want the dict (``write_json(doc)`` == ``orjson.dumps(materialize(doc))`` + newline).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any, Protocol

import orjson

BATCH = 4096
"""Scalars of a lazy array dumped by one orjson call (a keep-alive quirk lists a million)."""

_PLAIN = (str, int, float, list, tuple, dict, type(None), bytes, bytearray, memoryview)
"""Handed to orjson as they are (it refuses the binary ones, as a whole dump would)."""
_OPTION = orjson.OPT_INDENT_2

_SCALARS = frozenset({str, int, float, bool, type(None)})
"""An item of exactly one of these types (not a subclass) starts a batch."""

Deferred = Callable[[], Any]
"""A value computed when its turn to be written comes (e.g. a long text needed once)."""


class Sink(Protocol):
    """Where the bytes go (a binary file, ``sys.stdout.buffer``, ``io.BytesIO``)."""

    def write(self, data: bytes, /) -> object: ...


def is_lazy(value: Any) -> bool:
    """Is ``value`` an iterable to stream or a deferred value? (Anything else that is not
    plain JSON, a dataclass say, is orjson's to dump or refuse.)"""
    if isinstance(value, _PLAIN):
        return False
    return callable(value) or isinstance(value, Iterable)


def holds_lazy(obj: dict[Any, Any]) -> bool:
    """Does ``obj`` hold a lazy part, directly or in a dict under it?"""
    for v in obj.values():
        if isinstance(v, dict):
            if holds_lazy(v):
                return True
        elif not isinstance(v, _PLAIN) and is_lazy(v):
            return True
    return False


def write_json(doc: Any, out: Sink) -> None:
    """Write ``doc`` and a newline to ``out`` as orjson's indented dump of it would read."""
    _value(doc, out, 0)
    out.write(b"\n")


def materialize(value: Any) -> Any:
    """``value`` with every lazy part made plain (lists for iterables, deferred values
    called); plain values are returned as they are, not copied."""
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()} if holds_lazy(value) else value
    if not is_lazy(value):
        return value
    if callable(value):
        return materialize(value())
    return [item if type(item) in _SCALARS else materialize(item) for item in value]


def _dumps(value: Any, depth: int) -> bytes:
    try:
        data = orjson.dumps(value, option=_OPTION)
    except TypeError as exc:  # a lone surrogate (a client's reading of a split pair)
        if "surrogates" not in str(exc):
            raise  # anything else orjson refuses stays refused, never guessed
        data = _escaped(value)
    return data.replace(b"\n", b"\n" + b"  " * depth) if depth else data


def _escaped(value: Any) -> bytes:
    """``value`` as indented JSON with every non-ASCII character escaped (``\\ud83d``): the
    one way to write a string holding a lone surrogate as valid UTF-8 that reads back equal.
    Raises orjson's TypeError for anything else orjson refuses."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=True).encode("ascii")
    except (TypeError, ValueError) as exc:
        raise TypeError(str(exc)) from None


def _value(value: Any, out: Sink, depth: int) -> None:
    if isinstance(value, _PLAIN):
        try:  # orjson whole first: what nearly every value is (each call's dict, say)
            data = _dumps(value, depth)
        except TypeError:  # a lazy part under it (found before anything is written), or bad
            if not (isinstance(value, dict) and holds_lazy(value)):
                raise
            _object(value, out, depth)
        else:
            out.write(data)
    elif callable(value):
        _value(value(), out, depth)
    elif isinstance(value, Iterable):
        _array(value, out, depth)
    else:  # not JSON and not lazy: orjson's to dump (a dataclass) or refuse
        out.write(_dumps(value, depth))


def _object(obj: dict[Any, Any], out: Sink, depth: int) -> None:
    """A non-empty dict holding lazy values, key by key."""
    pad = b"\n" + b"  " * (depth + 1)
    sep = b"{"
    for key, item in obj.items():
        if not isinstance(key, str):
            raise TypeError("Dict key must be str")
        out.write(sep + pad + _dumps(key, 0) + b": ")
        _value(item, out, depth + 1)
        sep = b","
    out.write(b"\n" + b"  " * depth + b"}")


def _array(items: Iterable[Any], out: Sink, depth: int) -> None:
    """A lazy array, ``[]`` when empty. An item that is a container (or lazy) is written on
    its own and released before the next is made; a scalar starts a batch of up to
    :data:`BATCH` items pulled at once and dumped by one orjson call (one by one instead when
    the batch holds a lazy item)."""
    pad = b"\n" + b"  " * (depth + 1)
    sep = b"["  # what goes before the next item
    rest = iter(items)
    for item in rest:
        if type(item) not in _SCALARS:
            out.write(sep + pad)
            sep = b","
            _value(item, out, depth + 1)
            del item  # released before the next one is made
            continue
        batch = [item, *islice(rest, BATCH - 1)]
        try:
            inner = _dumps(batch, depth)[1 : -(2 + 2 * depth)]  # the items, without [ and \n]
        except TypeError:
            for one in batch:
                out.write(sep + pad)
                sep = b","
                _value(one, out, depth + 1)
        else:
            out.write(sep + inner)
            sep = b","
        del batch
    out.write(b"[]" if sep == b"[" else b"\n" + b"  " * depth + b"]")
