"""Tool calls written as text: what a model served without a tool parser writes in its content
(Ollama, vLLM or llama.cpp with the parser off), in the formats the servers' parsers read.

The formats (as vLLM's ``tool_parsers`` and llama.cpp's chat templates write them):

==============  ===============================================================================
hermes          ``<tool_call>\\n{"name": …, "arguments": {…}}\\n</tool_call>`` per call
                (Hermes 2 Pro, Qwen 2.5 / Qwen 3)
mistral         ``[TOOL_CALLS]name[ARGS]{…}`` per call (Mistral tokenizer v11 and later)
mistral-array   ``[TOOL_CALLS][{"name": …, "arguments": {…}}, …]`` (before v11)
llama           ``<|python_tag|>{"name": …, "parameters": {…}}``, calls joined by ``; ``
                (Llama 3.1 / 3.2 JSON tool calling)
json            the whole content is the call object (several: an array of them)
==============  ===============================================================================

Invariants:
- :data:`WRITTEN` rows are ``(name, description, quirks by dialect, calls)``, the fields of
  :class:`~.scenarios.Scenario`, whose table lists them after the reported quirks and before
  the faults; its rules hold here (the codes are exactly what ``detect`` reports).
- :func:`as_text` is pure: in a dialect the scenario lists, the planned turn's calls become
  text written after its text (each dialect then streams a conforming text answer); elsewhere
  the turn is left as it is.
"""

from __future__ import annotations

from collections.abc import Mapping

from inspector.core.quirks.codes import TEXT_MODE_TOOL_CALL

from .wire import Call, Turn, dumps

CHAT = "openai-chat"
RESP = "openai-responses"
ANTH = "anthropic"
GEM = "gemini"
_ALL = (CHAT, RESP, ANTH, GEM)
_CODE = (TEXT_MODE_TOOL_CALL,)

FORMS: Mapping[str, str] = {
    "demo-text-hermes": "hermes",
    "demo-text-mistral": "mistral",
    "demo-text-mistral-array": "mistral-array",
    "demo-text-llama": "llama",
    "demo-text-json": "json",
}
"""Scenario name -> the format its calls are written in."""

WRITTEN: list[tuple[str, str, Mapping[str, tuple[str, ...]], int]] = [
    (
        "demo-text-hermes",
        "Qwen / Hermes served without a tool parser (vLLM, Ollama, llama.cpp): two calls "
        "written as <tool_call>{…}</tool_call> in the text (all four dialects).",
        dict.fromkeys(_ALL, _CODE),
        2,
    ),
    (
        "demo-text-mistral",
        "Mistral v11+ without a tool parser: [TOOL_CALLS]name[ARGS]{…} per call in the text.",
        {CHAT: _CODE},
        2,
    ),
    (
        "demo-text-mistral-array",
        'Mistral before v11 without a tool parser: [TOOL_CALLS][{"name": …, "arguments": …}] '
        "in the text.",
        {CHAT: _CODE},
        2,
    ),
    (
        "demo-text-llama",
        "Llama 3.1 JSON tool calling without a parser: the python_tag token, then "
        '{"name": …, "parameters": …}, in the text.',
        {CHAT: _CODE},
        1,
    ),
    (
        "demo-text-json",
        'A model answering with the call itself: the whole content is {"name": …, "arguments": …}.',
        {CHAT: _CODE},
        1,
    ),
]
"""The scenarios of calls written as text, in listing order."""


def as_text(scenario: str, turn: Turn, listed: Mapping[str, object]) -> None:
    """Write ``turn``'s calls as text in ``scenario``'s format when ``turn``'s dialect is one
    of ``listed`` (the scenario's dialects); leave it alone otherwise."""
    form = FORMS.get(scenario)
    if form is None or turn.dialect not in listed or not turn.calls:
        return
    said = written(form, turn.calls)
    turn.text = f"{turn.text}\n{said}" if turn.text else said
    turn.calls = []


def written(form: str, calls: list[Call]) -> str:
    """``calls`` as a model writes them in ``form`` (see the module docstring)."""
    if form == "hermes":
        return "\n".join(f"<tool_call>\n{_object(c)}\n</tool_call>" for c in calls)
    if form == "mistral":
        return "".join(f"[TOOL_CALLS]{c.name}[ARGS]{c.spaced()}" for c in calls)
    if form == "mistral-array":
        return "[TOOL_CALLS][" + ", ".join(_object(c) for c in calls) + "]"
    if form == "llama":
        return "<|python_tag|>" + "; ".join(_object(c, "parameters") for c in calls)
    objects = [_object(c) for c in calls]
    return objects[0] if len(objects) == 1 else "[" + ", ".join(objects) + "]"


def _object(call: Call, key: str = "arguments") -> str:
    return f'{{"name": {dumps(call.name)}, "{key}": {call.spaced()}}}'
