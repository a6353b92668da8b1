"""Read what a client asked for, in each provider's request shape.

:func:`read_request` turns a request body into an :class:`Ask`: the tools offered (name and
JSON Schema), a forced tool choice, whether the conversation ends with tool results (and what
they said), and a key identifying the conversation so far.

Invariants:
- Pure and total: any JSON body (even a malformed one) yields an Ask; what cannot be read is
  left out, never raised.
- Tools keep the request's order. Only client-side function tools count: OpenAI chat
  ``tools[].function`` (and legacy ``functions[]``), Responses ``tools[]`` of type
  ``function``, Anthropic ``tools[]`` with an ``input_schema``, Gemini
  ``tools[].functionDeclarations[]`` (``parameters`` or ``parametersJsonSchema``).
- The conversation ends with tool results when its last message/item/content is one: OpenAI
  ``role: tool`` (or ``function``), Responses ``function_call_output`` (and the outputs of
  custom and apply_patch calls), Anthropic user
  ``tool_result`` blocks, Gemini ``functionResponse`` parts.
- ``key`` hashes the dialect, the model and the conversation (messages / input / contents,
  canonical JSON): identical requests share a key, so a retry can be told from a first attempt.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.core.requests.scenarios_expect import Expect

from .asked import recognise

DIALECTS = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock-converse")
"""The wire dialects the scenario table describes quirk by quirk (each scenario's own behaviour
and codes); the demo provider also speaks ``cohere-v2``, ``gemini-interactions`` and
``openai-completions``
(:data:`MORE_DIALECTS`), where a scenario plays the conforming stream, its faults, and the
quirk renderings that dialect has (``VARIANTS`` of its renderer)."""
MORE_DIALECTS = ("cohere-v2", "gemini-interactions", "openai-completions")


@dataclass(frozen=True)
class Tool:
    """A function the client offered."""

    name: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class Result:
    """One tool result the client sent back."""

    name: str
    """The tool's name when it can be found, else the call id."""
    content: str


@dataclass
class Ask:
    """One request, read."""

    dialect: str
    model: str
    stream: bool
    tools: list[Tool] = field(default_factory=list)
    raw_tools: list[dict[str, Any]] = field(default_factory=list)
    choice: str | None = None
    """A tool the request forces (tool_choice naming one)."""
    no_tools: bool = False
    """tool_choice says not to call tools."""
    results: list[Result] = field(default_factory=list)
    """Tool results ending the conversation (empty: not a follow-up)."""
    rounds: int = 0
    """How many tool results the whole conversation holds (varies the next calls)."""
    include_usage: bool = False
    key: str = ""
    size: int = 0
    """Characters of conversation (for a plausible prompt token count)."""
    custom_tools: list[dict[str, Any]] = field(default_factory=list)
    """Responses ``custom`` tools offered (free-form input; ``demo-custom-sql`` calls one)."""
    server_tool_id: str = ""
    """Anthropic: the id of the last ``server_tool_use`` block the conversation holds (the
    code execution a programmatic call comes from)."""
    asked: Expect | None = None
    """The ``expect`` block of the built-in request scenario this conversation is
    (:func:`.asked.recognise`); None for any other request."""


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _text(value: Any, limit: int = 160) -> str:
    """A one-line rendering of a tool result's content."""
    if isinstance(value, list):
        parts = [p.get("text") if isinstance(p, dict) else p for p in value]
        value = " ".join(str(p) for p in parts if p is not None)
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_request(dialect: str, body: dict[str, Any], model: str | None = None) -> Ask:
    """Read ``body`` (already JSON-decoded) as ``dialect``; ``model`` overrides (Gemini path)."""
    name = model if model is not None else body.get("model")
    ask = Ask(dialect, name if isinstance(name, str) else "", body.get("stream") is True)
    if dialect in ("openai-chat", "cohere-v2"):  # Cohere v2 takes Chat's messages and tools
        convo: Any = body.get("messages")
        _openai_chat(ask, body)
    elif dialect == "gemini-interactions":
        convo = body.get("input")
        _interactions(ask, body)
    elif dialect == "openai-completions":  # a prompt, no tools
        convo = body.get("prompt")
        opts = body.get("stream_options")
        ask.include_usage = isinstance(opts, dict) and opts.get("include_usage") is True
    elif dialect == "openai-responses":
        convo = body.get("input")
        _responses(ask, body)
    elif dialect == "anthropic":
        convo = body.get("messages")
        _anthropic(ask, body)
    elif dialect == "bedrock-converse":
        convo = body.get("messages")
        _bedrock(ask, body)
    else:
        convo = body.get("contents")
        ask.stream = True  # the path says streamGenerateContent
        _gemini(ask, body)
    blob = orjson.dumps([dialect, ask.model, convo], option=orjson.OPT_SORT_KEYS, default=str)
    ask.key = hashlib.sha256(blob).hexdigest()
    ask.size = len(blob)
    ask.asked = recognise(blob.decode("utf-8", "replace"))
    return ask


def _choice_name(choice: Any) -> str | None:
    if not isinstance(choice, dict):
        return None
    fn = choice.get("function")
    name = fn.get("name") if isinstance(fn, dict) else choice.get("name")
    return name if isinstance(name, str) else None


def _openai_chat(ask: Ask, body: dict[str, Any]) -> None:
    for t in _dicts(body.get("tools")):
        fn = t.get("function")
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            ask.tools.append(Tool(fn["name"], _schema(fn.get("parameters"))))
            ask.raw_tools.append(t)
    for fn in _dicts(body.get("functions")):
        if isinstance(fn.get("name"), str):
            ask.tools.append(Tool(fn["name"], _schema(fn.get("parameters"))))
            ask.raw_tools.append(fn)
    choice = body.get("tool_choice", body.get("function_call"))
    ask.choice = _choice_name(choice)
    ask.no_tools = choice == "none"
    opts = body.get("stream_options")
    ask.include_usage = isinstance(opts, dict) and opts.get("include_usage") is True
    messages = _dicts(body.get("messages"))
    names = {}
    for m in messages:
        for tc in _dicts(m.get("tool_calls")):
            fn = tc.get("function")
            if isinstance(fn, dict):
                names[tc.get("id")] = fn.get("name")
    ask.rounds = sum(1 for m in messages if m.get("role") in ("tool", "function"))
    tail: list[Result] = []
    for m in reversed(messages):
        if m.get("role") not in ("tool", "function"):
            break
        who = names.get(m.get("tool_call_id")) or m.get("name") or m.get("tool_call_id")
        tail.insert(0, Result(str(who or "tool"), _text(m.get("content"))))
    ask.results = tail


def _responses(ask: Ask, body: dict[str, Any]) -> None:
    for t in _dicts(body.get("tools")):
        if t.get("type") == "function" and isinstance(t.get("name"), str):
            ask.tools.append(Tool(t["name"], _schema(t.get("parameters"))))
            ask.raw_tools.append(t)
    choice = body.get("tool_choice")
    ask.choice = _choice_name(choice)
    ask.no_tools = choice == "none"
    ask.custom_tools = [t for t in _dicts(body.get("tools")) if t.get("type") == "custom"]
    items = _dicts(body.get("input"))
    names = {i.get("call_id"): i.get("name") or i.get("type") for i in items
             if i.get("type") in _CALLS}  # fmt: skip
    ask.rounds = sum(1 for i in items if i.get("type") in _OUTPUTS)
    tail: list[Result] = []
    for item in reversed(items):
        if item.get("type") not in _OUTPUTS:
            break
        who = names.get(item.get("call_id")) or item.get("call_id")
        tail.insert(0, Result(str(who or "tool"), _text(item.get("output"))))
    ask.results = tail


def _interactions(ask: Ask, body: dict[str, Any]) -> None:
    """Gemini Interactions: ``tools[]`` of type ``function`` (name at the top), ``input`` a
    string or turns whose ``content`` holds ``function_call`` / ``function_result`` steps."""
    for t in _dicts(body.get("tools")):
        if t.get("type") == "function" and isinstance(t.get("name"), str):
            ask.tools.append(Tool(t["name"], _schema(t.get("parameters"))))
            ask.raw_tools.append(t)
    turns = _dicts(body.get("input"))
    steps = [s for turn in turns for s in _dicts(turn.get("content"))]
    names = {s.get("id"): s.get("name") for s in steps if s.get("type") == "function_call"}
    ask.rounds = sum(1 for s in steps if s.get("type") == "function_result")
    last = _dicts(turns[-1].get("content")) if turns else []
    ask.results = [
        Result(str(names.get(s.get("call_id")) or s.get("call_id") or "tool"),
               _text(s.get("result")))
        for s in last if s.get("type") == "function_result"
    ]  # fmt: skip


_CALLS = ("function_call", "custom_tool_call", "apply_patch_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "apply_patch_call_output")
"""Responses items the agent's calls are, and the outputs it sends back for them."""


def _anthropic(ask: Ask, body: dict[str, Any]) -> None:
    for t in _dicts(body.get("tools")):
        if isinstance(t.get("name"), str) and "input_schema" in t:
            ask.tools.append(Tool(t["name"], _schema(t.get("input_schema"))))
            ask.raw_tools.append(t)
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        ask.choice = choice.get("name") if choice.get("type") == "tool" else None
        ask.no_tools = choice.get("type") == "none"
    messages = _dicts(body.get("messages"))
    names = {}
    for m in messages:
        for block in _dicts(m.get("content")):
            if block.get("type") == "tool_use":
                names[block.get("id")] = block.get("name")
            elif block.get("type") == "server_tool_use" and isinstance(block.get("id"), str):
                ask.server_tool_id = block["id"]
    results = [
        [b for b in _dicts(m.get("content")) if b.get("type") == "tool_result"] for m in messages
    ]
    ask.rounds = sum(len(r) for r in results)
    if messages and messages[-1].get("role") == "user" and results[-1]:
        ask.results = [
            Result(
                str(names.get(b.get("tool_use_id")) or b.get("tool_use_id") or "tool"),
                _text(b.get("content")),
            )
            for b in results[-1]
        ]


def _bedrock(ask: Ask, body: dict[str, Any]) -> None:
    """A Bedrock Converse body: ``toolConfig.tools[].toolSpec``, ``toolChoice.tool``, and
    ``toolUse`` / ``toolResult`` content blocks."""
    ask.stream = True  # the path says converse-stream
    config = body.get("toolConfig")
    config = config if isinstance(config, dict) else {}
    for entry in _dicts(config.get("tools")):
        spec = entry.get("toolSpec")
        if isinstance(spec, dict) and isinstance(spec.get("name"), str):
            given = spec.get("inputSchema")
            given = given.get("json") if isinstance(given, dict) else None
            ask.tools.append(Tool(spec["name"], _schema(given)))
            ask.raw_tools.append(entry)
    choice = config.get("toolChoice")
    if isinstance(choice, dict) and isinstance(choice.get("tool"), dict):
        name = choice["tool"].get("name")
        ask.choice = name if isinstance(name, str) else None
    messages = _dicts(body.get("messages"))
    names = {}
    for m in messages:
        for block in _dicts(m.get("content")):
            use = block.get("toolUse")
            if isinstance(use, dict):
                names[use.get("toolUseId")] = use.get("name")
    results = [
        [b["toolResult"] for b in _dicts(m.get("content")) if isinstance(b.get("toolResult"), dict)]
        for m in messages
    ]
    ask.rounds = sum(len(r) for r in results)
    if messages and messages[-1].get("role") == "user" and results[-1]:
        ask.results = [
            Result(str(names.get(r.get("toolUseId")) or r.get("toolUseId") or "tool"),
                   _text(r.get("content")))
            for r in results[-1]
        ]  # fmt: skip


def _gemini(ask: Ask, body: dict[str, Any]) -> None:
    """Gemini's JSON takes each field in camelCase or snake_case (proto JSON); the official
    SDK sends some of each (``functionDeclarations`` holding ``parameters_json_schema``)."""
    for t in _dicts(body.get("tools")):
        for fd in _dicts(_field(t, "functionDeclarations", "function_declarations")):
            if isinstance(fd.get("name"), str):
                schema = _field(fd, "parametersJsonSchema", "parameters_json_schema")
                if schema is None:
                    schema = fd.get("parameters")
                ask.tools.append(Tool(fd["name"], _schema(schema)))
                ask.raw_tools.append(fd)
    config = _field(body, "toolConfig", "tool_config")
    fcc = _field(config, "functionCallingConfig", "function_calling_config")
    if isinstance(fcc, dict):
        ask.no_tools = fcc.get("mode") == "NONE"
        allowed = _field(fcc, "allowedFunctionNames", "allowed_function_names")
        if isinstance(allowed, list) and len(allowed) == 1 and isinstance(allowed[0], str):
            ask.choice = allowed[0]
    contents = _dicts(body.get("contents"))
    responses = [
        [
            r
            for p in _dicts(c.get("parts"))
            if isinstance(r := _field(p, "functionResponse", "function_response"), dict)
        ]
        for c in contents
    ]
    ask.rounds = sum(len(r) for r in responses)
    if responses and responses[-1]:
        ask.results = [
            Result(str(r.get("name") or "tool"), _text(r.get("response"))) for r in responses[-1]
        ]


def _field(obj: Any, camel: str, snake: str) -> Any:
    """``obj[camel]``, else ``obj[snake]``, else None (also when ``obj`` is no object)."""
    if not isinstance(obj, dict):
        return None
    value = obj.get(camel)
    return obj.get(snake) if value is None else value


def _schema(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
