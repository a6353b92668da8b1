"""Which big argument texts are known to be one whole JSON value (:func:`known`), so that the
two places that ask, validation and the ``silent_truncation`` check, decode a long call's
arguments once between them, not twice.

Invariants:
- :func:`remember` is told only what a decode proved: ``text``, the very string object that
  ``orjson`` decoded as a whole value, for ``call``. :func:`known` answers True only for that
  same object (by identity) and that same call, so its answer is always what decoding
  ``text`` would say.
- Only texts of at least :data:`BIG` characters are remembered (a short one decodes in
  microseconds); the memo holds its calls weakly, so it keeps no call alive, and at most one
  text a call.
"""

from __future__ import annotations

from typing import Final
from weakref import WeakKeyDictionary

from inspector.core.calls.toolcall import ToolCall

BIG: Final = 1 << 16
"""Characters from which a text is worth remembering."""

_WHOLE: WeakKeyDictionary[ToolCall, str] = WeakKeyDictionary()


def remember(call: ToolCall, text: str) -> None:
    """``text`` (``call``'s arguments) decoded as one whole JSON value."""
    if len(text) >= BIG:
        _WHOLE[call] = text


def known(call: ToolCall, text: str) -> bool:
    """Is ``text`` known to decode as one whole JSON value (:func:`remember` said so)?"""
    return _WHOLE.get(call) is text
