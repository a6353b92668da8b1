"""The plain Gemini stream: the one shape google-genai and the AI SDK read alike.

:func:`gemini_calls` reads a body in one pass (one ``orjson.loads`` per event) and returns its
function calls when the body is plain, None at the first thing that is not. Each call comes
whole in one part, so a call's arguments are its ``args`` object written compactly (as the
inspector writes them); each library writes that value again in its own way (google-genai
``json.dumps``, the AI SDK ``JSON.stringify``, with a made-up id where the part has none):
each replica's :meth:`~inspector.core.clients.base.Replica.plain_calls`.

Plain, exactly (anything else is refused, however harmless it may be):
- status 200, a ``text/event-stream`` content type, a clean end of the body;
- the body is ``data: <JSON>`` events, each followed by a blank line, and nothing else (no
  comment, no ``event:`` line: google-genai reads any other line as raw JSON), every line
  ending in LF, or every line in CRLF (Gemini's own); every event valid UTF-8 JSON read
  strictly (orjson), a JSON object;
- each chunk holds only ``candidates``, ``usageMetadata`` (an object), ``modelVersion``,
  ``responseId`` and ``createTime`` (strings), never ``error``; ``candidates`` exactly one
  candidate;
- the candidate holds only ``content``, ``index`` (0), ``finishReason`` (a string: only on
  the last chunk, which has one) and ``safetyRatings`` (a list);
- ``content`` (optional) holds only ``role`` (``model``) and ``parts`` (a list); each part
  is either text (``text``, a string; optional ``thought``, a boolean, and
  ``thoughtSignature``, a string) or a whole function call (``functionCall`` holding
  ``name``, a non-empty string, ``args``, an object, and optionally ``id``, a non-empty string
  no other call has; an optional ``thoughtSignature``); no number in ``args`` of 2**63 or
  more in size written as a float (orjson reads an integer past 64 bits as a float, the
  SDK's ``json.loads`` as the integer). Streamed arguments (``partialArgs``,
  ``willContinue``), code execution parts, citations and grounding are refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

import orjson

from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.plain.named import event_body

_TOP: Final = frozenset({"candidates", "usageMetadata", "modelVersion", "responseId", "createTime"})
_CANDIDATE: Final = frozenset({"content", "index", "finishReason", "safetyRatings"})
_CONTENT: Final = frozenset({"role", "parts"})
_TEXT: Final = frozenset({"text", "thought", "thoughtSignature"})
_CALL_PART: Final = frozenset({"functionCall", "thoughtSignature"})
_CALL: Final = frozenset({"name", "args", "id"})

_loads = orjson.loads
_dumps = orjson.dumps
_Error = orjson.JSONDecodeError


def gemini_calls(
    exchange: Exchange, pieces: Iterable[bytes] | None = None, expected: Sequence[str] | None = None
) -> list[HandedCall] | None:
    """The function calls of a plain Gemini body (module docstring), None when not plain;
    its body is ``pieces`` joined, or ``exchange.body`` (``expected`` is not read: :func:`.read`
    compares every call)."""
    body = event_body(exchange, pieces)
    if body is None or not body.startswith(b"data: "):
        return None
    crlf = b"\r" in body
    if crlf:  # every line ends in CRLF: no lone CR, no lone LF
        if body.count(b"\r") != body.count(b"\n") or body.count(b"\r\n") != body.count(b"\n"):
            return None
        body = body.replace(b"\r\n", b"\n")
    if not body.endswith(b"\n\n"):
        return None
    calls: list[HandedCall] = []
    ids: set[str] = set()
    finished = False
    find, end, start = body.find, len(body) - 2, 0
    while start <= end:
        cut = find(b"\n\n", start)
        if finished or body[start : start + 6] != b"data: " or find(b"\n", start, cut) >= 0:
            return None
        try:
            chunk = _loads(body[start + 6 : cut])
        except _Error:
            return None
        start = cut + 2
        if type(chunk) is not dict or not chunk.keys() <= _TOP or not _head(chunk):
            return None
        candidates = chunk.get("candidates")
        if type(candidates) is not list or len(candidates) != 1:
            return None
        candidate = candidates[0]
        if type(candidate) is not dict or not candidate.keys() <= _CANDIDATE:
            return None
        if candidate.get("index", 0) != 0 or type(candidate.get("index", 0)) is not int:
            return None
        if type(candidate.get("safetyRatings", [])) is not list:
            return None
        if "finishReason" in candidate:
            if type(candidate["finishReason"]) is not str:
                return None
            finished = True
        if "content" in candidate and not _content(candidate["content"], calls, ids):
            return None
    return calls if finished else None


def _head(chunk: dict[str, Any]) -> bool:
    """The chunk's own fields are of the plain types."""
    get = chunk.get
    return (
        type(get("usageMetadata", {})) is dict
        and type(get("modelVersion", "")) is str
        and type(get("responseId", "")) is str
        and type(get("createTime", "")) is str
    )


def _content(content: Any, calls: list[HandedCall], ids: set[str]) -> bool:
    """Read one candidate's content into the calls so far (False: not plain)."""
    if type(content) is not dict or not content.keys() <= _CONTENT:
        return False
    if content.get("role", "model") != "model" or type(content.get("parts", [])) is not list:
        return False
    for part in content.get("parts", ()):
        if type(part) is not dict:
            return False
        if "functionCall" not in part:
            if not part.keys() <= _TEXT or type(part.get("text")) is not str:
                return False
            if type(part.get("thought", False)) is not bool:
                return False
            if type(part.get("thoughtSignature", "")) is not str:
                return False
            continue
        if not part.keys() <= _CALL_PART or type(part.get("thoughtSignature", "")) is not str:
            return False
        fc = part["functionCall"]
        if type(fc) is not dict or not fc.keys() <= _CALL:
            return False
        name, args, id_ = fc.get("name"), fc.get("args"), fc.get("id")
        if type(name) is not str or not name or type(args) is not dict or not _exact(args):
            return False
        if id_ is not None:
            if type(id_) is not str or not id_ or id_ in ids:
                return False
            ids.add(id_)
        calls.append(HandedCall(id_, name, _dumps(args).decode()))
    return True


_WIDE: Final = 2.0**63


def _exact(value: Any) -> bool:
    """No number in ``value`` that orjson may have read otherwise than ``json.loads`` (an
    integer past 64 bits becomes a float: ``-9223372036854775809`` is
    ``-9.223372036854776e+18``): every float is below 2**63 in size."""
    todo = [value]
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind is dict:
            todo += node.values()
        elif kind is list:
            todo += node
        elif kind is float and not -_WIDE < node < _WIDE:
            return False
    return True
