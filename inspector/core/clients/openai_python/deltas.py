"""The openai SDK's chat-delta merge (``openai/lib/streaming/_deltas.py``, openai 3.57.0)
and the shapes of the models it reads, for :mod:`.replica`.

Invariants:
- :func:`accumulate_delta` is the library's function line for line, on the chunks' JSON:
  it mutates and returns ``acc``; its errors are the library's (class and message).
- :func:`delta_dict` is ``ChoiceDelta.to_dict()`` of a delta the SDK built without
  validation: the keys received, the model's fields first in its order (that order shows in
  the library's error messages).
- :func:`usage_text` is ``str()`` of the ``CompletionUsage`` built from a usage object.
"""

from __future__ import annotations

import re
from typing import Any, Final

_USAGE: Final = (
    "completion_tokens",
    "prompt_tokens",
    "total_tokens",
    "completion_tokens_details",
    "prompt_tokens_details",
)
_DETAILS: Final = {
    "completion_tokens_details": (
        "CompletionTokensDetails",
        (
            "accepted_prediction_tokens",
            "audio_tokens",
            "reasoning_tokens",
            "rejected_prediction_tokens",
            "text_tokens",
        ),
    ),
    "prompt_tokens_details": (
        "PromptTokensDetails",
        ("audio_tokens", "cache_write_tokens", "cached_tokens", "image_tokens", "text_tokens"),
    ),
}
_FIELDS: Final = {
    "delta": ("audio", "content", "function_call", "refusal", "role", "tool_calls"),
    "tool_call": ("index", "id", "function", "type"),
    "function": ("arguments", "name"),
}


class Pieces:
    """A string the library grows with ``+=``, held as its pieces: its ``+=`` copies the whole
    string on every delta (quadratic in a call's size); joined only where it is read.

    Only values nobody else reads while the stream arrives are held so: a chat tool call's
    (and the legacy ``function_call``'s) arguments, a message's text fields, a Responses added
    item's arguments. A piece is only ever added where the library would concatenate two
    strings."""

    __slots__ = ("parts",)

    def __init__(self, *parts: str) -> None:
        self.parts = list(parts)

    def text(self) -> str:
        return "".join(self.parts)


_MESSAGE, _ENTRY, _FUNCTION, _OTHER = range(4)
"""Where a dict sits in the snapshot (what :class:`Pieces` may hold there)."""


def accumulate_delta(
    acc: dict[Any, Any], delta: dict[Any, Any], _at: int = _MESSAGE
) -> dict[Any, Any]:
    """``openai/lib/streaming/_deltas.py``'s ``accumulate_delta``, line for line (``acc`` a
    message snapshot), but for the strings it keeps as :class:`Pieces`."""
    for key, delta_value in delta.items():
        if key not in acc or acc[key] is None:
            if _has_indexed_entries(delta_value):
                acc[key] = []
            else:
                acc[key] = delta_value
                continue
        acc_value = acc[key]
        if key in ("index", "type"):
            acc[key] = delta_value
            continue
        if type(acc_value) is Pieces:  # a string: only another string changes it
            if isinstance(delta_value, str):
                acc_value.parts.append(delta_value)
            continue
        if isinstance(acc_value, str) and isinstance(delta_value, str):
            if _pieces(_at, key):
                acc[key] = Pieces(acc_value, delta_value)
                continue
            acc_value += delta_value
        elif isinstance(acc_value, int | float) and isinstance(delta_value, int | float):
            acc_value += delta_value
        elif isinstance(acc_value, dict) and isinstance(delta_value, dict):
            acc_value = accumulate_delta(acc_value, delta_value, _inner(_at, key))
        elif isinstance(acc_value, list) and isinstance(delta_value, list):
            if all(isinstance(x, str | int | float) for x in acc_value) and (
                acc_value or not _has_indexed_entries(delta_value)
            ):
                acc_value.extend(delta_value)
                continue
            _merge_entries(
                acc_value, delta_value, _ENTRY if (_at, key) == (_MESSAGE, "tool_calls") else _OTHER
            )
        acc[key] = acc_value
    return acc


def _pieces(at: int, key: Any) -> bool:
    """Whether a string at ``key`` of a dict at ``at`` is kept as :class:`Pieces`."""
    return (at == _FUNCTION and key == "arguments") or (at == _MESSAGE and key != "tool_calls")


def _inner(at: int, key: Any) -> int:
    """Where the dict at ``key`` of a dict at ``at`` sits."""
    if (at, key) in ((_ENTRY, "function"), (_MESSAGE, "function_call")):
        return _FUNCTION
    return _OTHER


def _merge_entries(acc_value: list[Any], delta_value: list[Any], at: int = _OTHER) -> None:
    for entry in delta_value:
        if not isinstance(entry, dict):
            raise TypeError(f"Unexpected list delta entry is not a dictionary: {entry}")
        if "index" not in entry:
            raise RuntimeError(f"Expected list delta entry to have an `index` key; {entry}")
        index = entry["index"]
        if not isinstance(index, int):
            raise TypeError(
                f"Unexpected, list delta entry `index` value is not an integer; {index}"
            )
        try:
            acc_entry = acc_value[index]
        except IndexError:
            acc_value.insert(index, entry)
        else:
            if not isinstance(acc_entry, dict):
                raise TypeError("not handled yet")
            acc_value[index] = accumulate_delta(acc_entry, entry, at)


def _has_indexed_entries(value: object) -> bool:
    return isinstance(value, list) and any(isinstance(e, dict) and "index" in e for e in value)


def _ordered(value: Any, kind: str) -> Any:
    """``to_dict()`` of a model built from ``value``: a fresh copy, its fields in the model's
    order, then the rest (the order shows in the library's error messages)."""
    if not isinstance(value, dict):
        return fresh(value)
    fields = _FIELDS[kind]
    out = {k: value[k] for k in fields if k in value}
    out.update((k, v) for k, v in value.items() if k not in out)
    for k, v in out.items():
        if kind == "delta" and k == "tool_calls" and isinstance(v, list):
            out[k] = [_ordered(tc, "tool_call") for tc in v]
        elif kind == "tool_call" and k == "function":
            out[k] = _ordered(v, "function")
        else:
            out[k] = fresh(v)
    return out


def delta_dict(value: Any) -> dict[Any, Any]:
    if not isinstance(value, dict):
        raise AttributeError(f"'{type(value).__name__}' object has no attribute 'to_dict'")
    return dict(_ordered(value, "delta"))


def fresh(value: Any) -> Any:
    """A deep copy of JSON ``value`` (``to_dict()`` dumps afresh: merging never touches the
    chunk it came from)."""
    if isinstance(value, dict):
        return {k: fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [fresh(v) for v in value]
    return value


def usage_text(usage: Any) -> str:
    """``str()`` of the ``CompletionUsage`` model built from ``usage``."""
    if not isinstance(usage, dict):
        return str(usage)
    parts = []
    for key in (*_USAGE, *(k for k in usage if k not in _USAGE)):
        value = usage.get(key)
        if key in _DETAILS and isinstance(value, dict):
            cls, fields = _DETAILS[key]
            inner = [
                f"{k}={value.get(k)!r}" for k in (*fields, *(k for k in value if k not in fields))
            ]
            parts.append(f"{key}={cls}({', '.join(inner)})")
        else:
            parts.append(f"{key}={value!r}")
    return f"CompletionUsage({', '.join(parts)})"


_INT_TEXT: Final = re.compile(r"\s*[+-]?\d+(?:_\d+)*(?:\.0*)?\s*")
_I64: Final = 2**63


def model_chunk(chunk: dict[str, Any]) -> dict[str, Any]:
    """The chunk as the SDK's model holds it: a delta's ``tool_calls`` list that passes
    pydantic's lax validation (every entry an object; index an int, an integral float, a bool
    or an integer string; id, name and arguments strings or null; type ``function`` or null)
    is validated, so its indexes become ints; any other value is kept as received."""
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        return chunk
    out = None
    for pos, choice in enumerate(choices):
        delta: Any = choice.get("delta") if isinstance(choice, dict) else None
        calls = delta.get("tool_calls") if isinstance(delta, dict) else None
        if not isinstance(calls, list) or not calls:
            continue
        if all(type(c) is dict and type(c.get("index")) is int for c in calls):
            continue  # (kept as received whether valid or not: every index an int already)
        indexes = [_lax_int(c.get("index")) if _valid_call(c) else None for c in calls]
        if None in indexes or all(type(c["index"]) is int for c in calls):
            continue
        fixed = [{**c, "index": i} for c, i in zip(calls, indexes, strict=True)]
        out = out or {**chunk, "choices": list(choices)}
        out["choices"][pos] = {**choice, "delta": {**delta, "tool_calls": fixed}}
    return out or chunk


def _valid_call(call: Any) -> bool:
    if not isinstance(call, dict) or "index" not in call:
        return False
    fn = call.get("function")
    return (
        _opt_str(call.get("id"))
        and call.get("type") in (None, "function")
        and (fn is None or (isinstance(fn, dict) and _opt_str(fn.get("name"))))
        and (fn is None or _opt_str(fn.get("arguments")))
    )


def _opt_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _lax_int(value: Any) -> int | None:
    """pydantic's lax ``int``: None where it fails."""
    if isinstance(value, bool | int):
        return int(value)
    if isinstance(value, float):
        ok = value.is_integer() and -_I64 <= value < _I64
        return int(value) if ok else None
    if isinstance(value, str) and _INT_TEXT.fullmatch(value):
        return int(value.strip().split(".")[0].replace("_", ""))
    return None
