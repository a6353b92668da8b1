"""One openai SDK chunk as LangChain's message chunk: what ``ChatOpenAI._astream`` yields for
it, and what ``astream`` adds.

Follows langchain-openai 1.7.4 (``chat_models/base.py``: ``_convert_chunk_to_generation_chunk``,
``_convert_delta_to_message_chunk``, ``_create_usage_metadata``) and langchain-core 1.8.3
(``language_models/chat_models.py``: ``astream``, ``_gen_info_and_msg_metadata``; the message
classes' pydantic fields).

Invariants:
- :func:`message_of` performs the same operations on the same values as LangChain, so what
  LangChain raises (an AttributeError on a chunk that is no object, a TypeError on a list
  where an object belongs …) is raised here as Python's own error, worded the same.
- Only ``choices[0]`` is read. A ``user`` role makes a ``HumanMessageChunk``, and so does every
  chunk after it (a chunk with no role takes the previous chunk's class); other roles stay
  ``AIMessageChunk``.
- pydantic's checks run where LangChain builds the message: ``content`` (a string, or a list of
  strings and objects), ``tool_call_chunks`` (string or null name, args and id; a lax integer
  or null index, coerced) and, on a chunk without choices, ``usage_metadata`` (integers).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from inspector.core.clients.langchain.dicts import CHUNK
from inspector.core.clients.pydantic.words import lax_int, line, str_problem, validation_error

AI: Final = "AIMessageChunk"
HUMAN: Final = "HumanMessageChunk"
"""The class a ``user`` role makes; it sticks: every later chunk is one too."""

_NOT_STR: Final = ("Input should be a valid string", "string_type")
_NOT_DICT: Final = ("Input should be a valid dictionary", "dict_type")
_FINISH_INFO: Final = (
    ("model", "model_name"),
    ("system_fingerprint", "system_fingerprint"),
    ("service_tier", "service_tier"),
)
"""Chunk fields LangChain copies into the generation info of a chunk with a finish reason."""
_TOKENS: Final = ("prompt_tokens", "completion_tokens", "total_tokens")
_DETAILS: Final = (
    ("input_token_details", ("audio", "cache_creation", "cache_read")),
    ("output_token_details", ("audio", "reasoning")),
)


@dataclass
class Message:
    """One message chunk as LangChain makes it of an SDK chunk."""

    kind: str
    """Its class: an assistant chunk, or a user one (no tool calls)."""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    content: Any = ""
    meta: dict[str, Any] = field(default_factory=dict)
    """``response_metadata`` (the generation info included, as ``astream`` puts it)."""
    kwargs: dict[str, Any] = field(default_factory=dict)
    """``additional_kwargs`` (a legacy ``function_call``)."""


def message_of(data: Any, default: str) -> Message | None:
    """One SDK chunk as LangChain's message chunk, or None when it is skipped. Raises what
    LangChain raises (Python's own errors included: the same operations on the same
    values)."""
    if not isinstance(data, dict):
        raise AttributeError(f"'{type(data).__name__}' object has no attribute 'model_dump'")
    chunk = CHUNK.dump(data)
    if chunk.get("type") == "content.delta":
        return None
    token_usage = chunk.get("usage")
    choices = chunk.get("choices", []) or chunk.get("chunk", {}).get("choices", [])
    usage = _usage(token_usage, chunk.get("service_tier")) if token_usage else None
    if len(choices) == 0:  # built with its usage: validated here
        _validate(default, "", [], usage)
        return Message(default)
    choice = choices[0]
    delta = choice["delta"]
    if delta is None:
        return None
    delta.get("id")
    role = delta.get("role")
    kwargs = {}
    if delta.get("function_call"):
        function_call = dict(delta["function_call"])
        if "name" in function_call and function_call["name"] is None:
            function_call["name"] = ""
        kwargs["function_call"] = function_call
    tool_calls: list[dict[str, Any]] = []
    if raw := delta.get("tool_calls"):
        try:
            tool_calls = [
                {"name": rtc["function"].get("name"), "args": rtc["function"].get("arguments"),
                 "id": rtc.get("id"), "index": rtc["index"]}
                for rtc in raw
            ]  # fmt: skip
        except KeyError:
            tool_calls = []
    content = delta.get("content") or ""
    meta = {**_generation_info(chunk, choice), "model_provider": "openai"}
    if role == "user" or default != AI:
        _validate(HUMAN, content, [])
        return Message(HUMAN, [], content, meta)
    _validate(AI, content, tool_calls)
    return Message(AI, tool_calls, content, meta, kwargs)


def _generation_info(chunk: dict[str, Any], choice: dict[str, Any]) -> dict[str, Any]:
    info = {}
    if finish_reason := choice.get("finish_reason"):
        info["finish_reason"] = finish_reason
        for key, name in _FINISH_INFO:
            if value := chunk.get(key):
                info[name] = value
    if logprobs := choice.get("logprobs"):
        info["logprobs"] = logprobs
    return info


def _usage(usage: Any, tier: Any) -> dict[str, Any]:
    """``_create_usage_metadata``: LangChain's usage metadata (raising where it raises)."""
    prompt, completion, total = (usage.get(k) for k in _TOKENS)
    input_tokens = prompt if prompt is not None else 0
    output_tokens = completion if completion is not None else 0
    total_tokens = total if total is not None else input_tokens + output_tokens
    tier = tier if tier in {"priority", "flex"} else None
    prefix = f"{tier}_" if tier else ""
    asked = usage.get("prompt_tokens_details") or {}
    said = usage.get("completion_tokens_details") or {}
    into: dict[str, Any] = {
        "audio": asked.get("audio_tokens"),
        f"{prefix}cache_read": asked.get("cached_tokens"),
        f"{prefix}cache_creation": asked.get("cache_write_tokens"),
    }
    out = {"audio": said.get("audio_tokens"), f"{prefix}reasoning": said.get("reasoning_tokens")}
    if tier is not None:
        into[tier] = input_tokens - (into.get(f"{prefix}cache_read", 0) or 0)
        out[tier] = output_tokens - (out.get(f"{prefix}reasoning", 0) or 0)
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": total_tokens,
        "input_token_details": {k: v for k, v in into.items() if v is not None},
        "output_token_details": {k: v for k, v in out.items() if v is not None},
    }


def _usage_errors(usage: dict[str, Any] | None) -> list[str]:
    """pydantic's check of ``usage_metadata`` (integers; extra detail keys ignored)."""
    if usage is None:
        return []
    fields = [
        (f"usage_metadata.{k}", usage[k]) for k in ("input_tokens", "output_tokens", "total_tokens")
    ]
    for details, keys in _DETAILS:
        fields += [
            (f"usage_metadata.{details}.{k}", usage[details][k])
            for k in keys
            if k in usage[details]
        ]
    errors = []
    for loc, value in fields:
        problem = lax_int(value)[1]
        if problem is not None:
            errors.append(line(loc, problem, value))
    return errors


def _validate(
    model: str, content: Any, tool_calls: list[dict[str, Any]], usage: dict[str, Any] | None = None
) -> None:
    """pydantic's validation of the message chunk's ``content`` (``str | list[str | dict]``),
    ``usage_metadata`` and ``tool_call_chunks`` (indexes coerced in place); raises
    ``ValidationError`` worded as pydantic words it."""
    errors = _content(content) + _usage_errors(usage)
    for i, tc in enumerate(tool_calls):
        for name in ("name", "args", "id"):
            problem = str_problem(tc[name])
            if problem is not None:
                errors.append(line(f"tool_call_chunks.{i}.{name}", problem, tc[name]))
        index, refused = lax_int(tc["index"])
        if refused is None:
            tc["index"] = index
        else:
            errors.append(line(f"tool_call_chunks.{i}.index", refused, tc["index"]))
    if errors:
        raise validation_error(model, errors)


def _content(content: Any) -> list[str]:
    if isinstance(content, str):
        return []
    items = "content.list[union[str,dict[any,any]]]"
    if not isinstance(content, list):
        return [
            line("content.str", _NOT_STR, content),
            line(items, ("Input should be a valid list", "list_type"), content),
        ]
    bad = [
        line(f"{items}.{i}.{kind}", problem, item)
        for i, item in enumerate(content)
        if not isinstance(item, str | dict)
        for kind, problem in (("str", _NOT_STR), ("dict[any,any]", _NOT_DICT))
    ]
    return [line("content.str", _NOT_STR, content), *bad] if bad else []


# -- the agent's fold and the hand-over -----------------------------------------------------
