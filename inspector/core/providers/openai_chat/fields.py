"""Chat Completions fields read the careful way (:mod:`.dialect`'s slow path): a tool-call
entry, a legacy ``function_call`` or a text field of any shape, every field of the wrong type
flagged where it is read, with its path, then mapped as received.

Invariants: the deltas are those the fast path gives for the same entry when it is well formed
(identity strings shared, arguments as received, an object or array as its compact JSON text
with ``args_object``); a field of the wrong type adds one ``wire_field_type`` problem before
the delta it belongs to.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.core.base.model import OMITTED, Delta, DeltaKind, ToolCallDelta
from inspector.core.providers.wire.fields import shared, shared_id
from inspector.core.quirks.events.wrongtype import wrong_type

_dumps = orjson.dumps


def _string(seq: int, path: str, value: Any, obj: Any, append: Any) -> None:
    """Flag an identity field that is neither absent, null nor a string."""
    if value is not OMITTED and value is not None and type(value) is not str:
        append(wrong_type(seq, path, "string", value, obj))


def _arguments(seq: int, path: str, a: Any, obj: Any, append: Any) -> tuple[Any, bool]:
    """(arguments as the delta carries them, arrived as an object/array): an object or array
    becomes its compact JSON text (llama-server / Ollama); any other non-string is flagged
    and kept as received."""
    if type(a) is dict or type(a) is list:
        return _dumps(a).decode(), True
    if a is not OMITTED and a is not None and type(a) is not str:
        append(wrong_type(seq, f"{path}.arguments", "string", a, obj))
    return a, False


def odd_entry(seq: int, pos: int, n: Any, e: Any, where: str, obj: Any, append: Any) -> None:
    """The slow path for one ``tool_calls`` entry: anything but a dict with an integer (or
    absent) index, string (or absent) id and name, whose ``function`` is a dict with string (or
    absent) ``arguments``. Every field of the wrong type is flagged, then the entry is mapped
    as received."""
    path = f"{where}.tool_calls[{pos}]"
    if type(e) is not dict:
        append(wrong_type(seq, path, "object", e, obj))
        return
    extra: dict[str, Any] | None = None
    index = e.get("index", OMITTED)
    if index is not OMITTED and index is not None and type(index) is not int:
        append(wrong_type(seq, f"{path}.index", "integer", index, obj))
    _string(seq, f"{path}.id", e.get("id", OMITTED), obj, append)
    _string(seq, f"{path}.type", e.get("type", OMITTED), obj, append)
    fn = e.get("function", OMITTED)
    if type(fn) is dict:
        name = fn.get("name", OMITTED)
        _string(seq, f"{path}.function.name", name, obj, append)
        a, obj_args = _arguments(seq, f"{path}.function", fn.get("arguments", OMITTED), obj, append)
    else:
        name = a = OMITTED
        obj_args = False
        if fn is not OMITTED:
            extra = {"function": fn}
            append(wrong_type(seq, f"{path}.function", "object", fn, obj))
    if n != 0:
        extra = extra or {}
        extra["choice"] = n
    append(
        ToolCallDelta(
            seq,
            pos,
            index,
            shared_id(e.get("id", OMITTED)),
            shared(name),
            a,
            shared(e.get("type", OMITTED)),
            obj_args,
            False,
            extra,
        )
    )


def legacy_call(seq: int, pos: int, n: Any, fc: Any, where: str, obj: Any, append: Any) -> None:
    """The pre-tools ``delta.function_call`` {name, arguments}: no index, no id."""
    path = f"{where}.function_call"
    if type(fc) is not dict:
        append(wrong_type(seq, path, "object", fc, obj))
        return
    name = fc.get("name", OMITTED)
    _string(seq, f"{path}.name", name, obj, append)
    a, obj_args = _arguments(seq, path, fc.get("arguments", OMITTED), obj, append)
    extra: dict[str, Any] = {"legacy_function_call": True}
    if n != 0:
        extra["choice"] = n
    append(ToolCallDelta(seq, pos, OMITTED, OMITTED, shared(name), a, OMITTED, obj_args, False,
                         extra))  # fmt: skip


def text_field(
    seq: int, kind: str, path: str, value: Any, craw: Any, obj: Any, append: Any
) -> None:
    """A TEXT or REASONING delta for a non-empty string; anything but a string or null is
    flagged."""
    if type(value) is str:
        if value:
            append(Delta(seq, kind, value, craw))
    elif type(value) is list and kind == DeltaKind.TEXT and _parts(seq, value, craw, append):
        pass  # content as an array of parts (Mistral's reasoning models): text and reasoning
    elif value is not None:
        append(wrong_type(seq, path, "string", value, obj))


def _parts(seq: int, parts: list[Any], craw: Any, append: Any) -> bool:
    """``content`` sent as an array of parts (``{"type": "text", "text"}``, ``{"type":
    "thinking", "thinking": str | [text parts]}``, ``{"type": "reasoning", "text"}``): each
    one's text as TEXT or REASONING, in order. False (nothing appended) when an element is not
    such a part object: the array is then a field of the wrong type."""
    if not all(type(p) is dict and type(p.get("type")) is str for p in parts):
        return False
    for p in parts:
        t = p["type"]
        if t == "text" and type(p.get("text")) is str:
            if p["text"]:
                append(Delta(seq, DeltaKind.TEXT, p["text"], craw))
        elif t in ("thinking", "reasoning"):
            inner = p.get("thinking", p.get("text"))
            pieces = inner if type(inner) is list else [inner]
            for piece in pieces:
                text = piece.get("text") if type(piece) is dict else piece
                if type(text) is str and text:
                    append(Delta(seq, DeltaKind.REASONING, text, craw))
    return True
