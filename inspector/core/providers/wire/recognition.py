"""What every provider's recognition reads alike: a head's events with their JSON objects
(each decoded once per head, however many providers ask), and a request URL's path.

Invariant: reading a head never raises and never changes its events; what is decoded is kept
in the head's ``memo`` (a head lives while a stream is being sniffed: at most a few events).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import orjson

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.base.provider import Head
from inspector.core.providers.wire.events import lenient_loads

_loads = lenient_loads  # orjson, and lone surrogate escapes as clients read them
_JSONDecodeError = orjson.JSONDecodeError
_EVENT = EventKind.EVENT


def objects(head: Head) -> Iterator[tuple[SSEEvent, dict[str, Any] | None]]:
    """``(event, its JSON object)`` for each EVENT event of ``head``, in order; None for data
    that is no JSON object (the event's name may still tell)."""
    memo = head.memo
    for i, ev in enumerate(head.events):
        if ev.kind != _EVENT:
            continue
        obj = memo.get(i, memo)  # the memo itself: not decoded yet
        if obj is memo:
            try:
                obj = _loads(ev.data)
            except _JSONDecodeError:
                obj = None
            if type(obj) is not dict:
                obj = None
            memo[i] = obj
        yield ev, obj


def url_path(url: str) -> str:
    """The path of a request URL, without a trailing slash (query and host left out)."""
    return urlsplit(url).path.rstrip("/")


def typed(value: object, prefixes: tuple[str, ...]) -> bool:
    """``value`` is a string starting with one of ``prefixes`` (an event name, a ``type``)."""
    return type(value) is str and value.startswith(prefixes)
