"""The dict plumbing LangChain's streaming runs on: the openai SDK chunk's ``model_dump()``,
and langchain-core's ``merge_dicts``, ``merge_lists`` and ``merge_content``.

Follows langchain-core 1.8.3 (``utils/_merge.py``, ``messages/base.py``) line for line, so a
merge raises the same ``TypeError`` where LangChain's does; and the openai SDK 3.57.0's
lenient model construction (``_models.construct_type``) with pydantic's ``model_dump()``.

Invariants:
- :data:`CHUNK` ``.dump(value)`` is what ``ChatCompletionChunk.model_dump()`` returns for a
  chunk built from ``value``: every field present (None when absent), extra keys kept,
  nested models dumped the same way, values of the wrong type left as received.
- The merges never change their arguments' values in place (they copy what they change).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final


@dataclass(frozen=True)
class _Model:
    """An SDK model's fields, and which of them hold (lists of) nested models."""

    fields: tuple[str, ...]
    nested: tuple[tuple[str, _Model, bool], ...] = ()
    """(field, its model, whether it holds a list of them)."""

    def dump(self, value: Any) -> Any:
        """``model_dump()`` of this model built leniently from ``value`` (as the SDK builds
        it): every field present (None when absent), nested models dumped the same way,
        anything that is no JSON object left as received."""
        if not isinstance(value, dict):
            return value
        out: dict[str, Any] = dict.fromkeys(self.fields)
        out.update(value)
        for name, model, many in self.nested:
            inner = out[name]
            if not many:
                out[name] = model.dump(inner)
            elif isinstance(inner, list):
                out[name] = [model.dump(v) for v in inner]
        return out


_FUNCTION: Final = _Model(("arguments", "name"))
_TOOL_CALL: Final = _Model(("index", "id", "function", "type"), (("function", _FUNCTION, False),))
_DELTA: Final = _Model(
    ("audio", "content", "function_call", "refusal", "role", "tool_calls"),
    (("function_call", _FUNCTION, False), ("tool_calls", _TOOL_CALL, True)),
)
_TOP: Final = _Model(("token", "bytes", "logprob"))
_TOKEN: Final = _Model(
    ("token", "bytes", "logprob", "top_logprobs"), (("top_logprobs", _TOP, True),)
)
_LOGPROBS: Final = _Model(
    ("content", "refusal"), (("content", _TOKEN, True), ("refusal", _TOKEN, True))
)
_CHOICE: Final = _Model(
    ("delta", "index", "finish_reason", "logprobs"),
    (("delta", _DELTA, False), ("logprobs", _LOGPROBS, False)),
)
_USAGE: Final = _Model(
    ("completion_tokens", "prompt_tokens", "total_tokens", "completion_tokens_details",
     "prompt_tokens_details"),
    (
        ("completion_tokens_details", _Model(("accepted_prediction_tokens", "audio_tokens",
         "reasoning_tokens", "rejected_prediction_tokens", "text_tokens")), False),
        ("prompt_tokens_details", _Model(("audio_tokens", "cache_write_tokens", "cached_tokens",
         "image_tokens", "text_tokens")), False),
    ),
)  # fmt: skip
CHUNK: Final = _Model(
    ("id", "choices", "created", "model", "object", "moderation", "obfuscation", "service_tier",
     "system_fingerprint", "usage"),
    (("choices", _CHOICE, True), ("usage", _USAGE, False)),
)  # fmt: skip


def merge_dicts(left: dict[str, Any], *others: dict[str, Any]) -> dict[str, Any]:
    """langchain-core's ``merge_dicts``: strings concatenated (an equal ``id`` kept once),
    dicts and lists merged, an index last-wins, other ints summed; TypeError on a type
    mismatch or a value it cannot merge."""
    merged = left.copy()
    for right in others:
        for key, value in right.items():
            held: Any = merged.get(key)
            if key not in merged or (value is not None and held is None):
                merged[key] = value
            elif value is None:
                continue
            elif type(held) is not type(value):
                raise TypeError(
                    f'additional_kwargs["{key}"] already exists in this message,'
                    " but with a different type."
                )
            elif isinstance(held, str):
                if (key == "index" and held.startswith("lc_")) or (
                    key in {"id", "output_version", "model_provider"} and held == value
                ):
                    continue
                merged[key] = held + value
            elif isinstance(held, dict):
                merged[key] = merge_dicts(held, value)
            elif isinstance(held, list):
                merged[key] = merge_lists(held, value)
            elif held == value:
                continue
            elif isinstance(held, int) and not isinstance(held, bool):
                merged[key] = value if key in {"index", "created", "timestamp"} else held + value
            else:
                raise TypeError(
                    f"Additional kwargs key {key} already exists in left dict and "
                    f"value has unsupported type {type(held)}."
                )
    return merged


def merge_lists(left: list[Any] | None, *others: list[Any] | None) -> list[Any] | None:
    """langchain-core's ``merge_lists``: a dict with an integer (or ``lc_``) ``index`` merges
    into the first held dict with the same index and no conflicting ``id``; the rest append."""
    merged = left.copy() if left is not None else None
    for other in others:
        if other is None:
            continue
        if merged is None:
            merged = other.copy()
            continue
        for e in other:
            index = e.get("index") if isinstance(e, dict) else None
            if not (isinstance(index, int) or (isinstance(index, str) and index.startswith("lc_"))):
                merged.append(e)
                continue
            to_merge = [
                i
                for i, held in enumerate(merged)
                if isinstance(held, dict) and "index" in held and held["index"] == index
                and (held.get("id") in {None, ""} or e.get("id") in {None, ""}
                     or held.get("id") == e.get("id"))
            ]  # fmt: skip
            if not to_merge:
                merged.append(e)
                continue
            merged[to_merge[0]] = merge_dicts(
                merged[to_merge[0]], _without_type(merged[to_merge[0]], e)
            )
    return merged


def _without_type(held: dict[str, Any], e: dict[str, Any]) -> dict[str, Any]:
    """What ``merge_lists`` merges of ``e`` (its ``type`` key handled as LangChain does)."""
    if held.get("type") and e.get("type") == "non_standard" and "value" in e:
        value = {k: v for k, v in e["value"].items() if k != "type"}
        if held["type"] != "non_standard":
            return {"extras": value}
        return {"value": value, **({"index": e["index"]} if "index" in e else {})}
    return {k: v for k, v in e.items() if k != "type"} if "type" in e else e


def merge_content(first: Any, *contents: Any) -> Any:
    """langchain-core's ``merge_content`` of message contents (strings or lists)."""
    merged = "" if first is None else first
    if isinstance(merged, list):
        merged = merged.copy()
    for content in contents:
        if isinstance(merged, str):
            merged = merged + content if isinstance(content, str) else [merged, *content]
        elif isinstance(content, list):
            merged = merge_lists(merged, content)
        elif merged and isinstance(merged[-1], str):
            merged[-1] += content
        elif content == "":
            pass
        elif merged:
            merged.append(content)
    return merged
