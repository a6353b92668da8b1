"""What every provider path of the ``vercel-ai`` replica shares: ``secureJsonParse``, the
``JSONParseError`` words, how ``streamText`` hands a call's input over, and a body cut short.

Invariants: pure functions of their arguments; V8's ``JSON.parse``/``JSON.stringify`` are
:mod:`.v8_json`'s.
"""

from __future__ import annotations

import re
from typing import Any, Final

from inspector.core.clients.base import ClientRaised, Exchange
from inspector.core.clients.vercel_ai.tracker import js_trim
from inspector.core.clients.vercel_ai.v8_json import JsSyntaxError, parse, stringify

_PROTO: Final = re.compile(
    r'"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])'
    r'(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:'
)
_CONSTRUCTOR: Final = re.compile(
    r'"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)'
    r'(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:'
)
_FORBIDDEN: Final = "Object contains forbidden prototype property"
PROTOTYPE_KEYS: Final = (_PROTO, _CONSTRUCTOR)
"""What ``secure_parse`` looks for in a text before it walks the value (a ``__proto__`` or
``constructor`` key, each character possibly escaped): a text neither matches parses as
``JSON.parse`` alone parses it."""


def secure_parse(text: str) -> Any:
    """``secureJsonParse``: ``JSON.parse``, then no own ``__proto__`` and no
    ``constructor.prototype`` anywhere (:class:`~.v8_json.JsSyntaxError` otherwise)."""
    value = parse(text)
    if not isinstance(value, dict | list) or not (_PROTO.search(text) or _CONSTRUCTOR.search(text)):
        return value
    todo = [value]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ctor = node.get("constructor")
            if "__proto__" in node or (isinstance(ctor, dict) and "prototype" in ctor):
                raise JsSyntaxError(_FORBIDDEN)
            todo += node.values()
        elif isinstance(node, list):
            todo += node
    return value


def json_parse_error(text: str, exc: JsSyntaxError) -> ClientRaised:
    """``JSONParseError`` as the SDK words it."""
    return ClientRaised(
        "JSONParseError", f"JSON parsing failed: Text: {text}.\nError message: SyntaxError: {exc}"
    )


def handed_arguments(text: str, declared: bool = True) -> str:
    """What ``fullStream``'s ``tool-call`` part holds as the call's arguments: blank text is
    ``{}`` for a declared tool; text that parses is written again by ``JSON.stringify``; any
    other is handed over as it is (invalid). A tool the request did not declare is invalid
    whatever its text (``NoSuchToolError``): its input parsed when it parses (a string value
    handed over as that string), else the text itself, blank included."""
    if declared and not js_trim(text):
        return "{}"
    try:
        value = secure_parse(text)
    except JsSyntaxError:
        return text
    return value if not declared and isinstance(value, str) else stringify(value)


def _cut(why: str) -> bool:
    """The inspector's words for a body cut short (not its HTTP or content-type complaints)."""
    why = why.lower()
    return why.startswith("connection broken") or "reset" in why or "timeout" in why


CUT: Final = "Failed to process successful response"


def cut_raise(exchange: Exchange) -> ClientRaised | None:
    """``APICallError: Failed to process successful response`` for a body cut short, else
    None."""
    if exchange.transport_error and _cut(exchange.transport_error):
        return ClientRaised("APICallError", CUT)
    return None
