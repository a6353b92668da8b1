"""Decide what one response says: text or tool calls, which tools, which rendering.

Invariants:
- Pure: a scenario, a read request (:class:`~.conversation.Ask`), the attempt number of this
  conversation and a timestamp in; a :class:`~.wire.Turn` and its frames out. The server keeps
  the only state (attempt counts and first-seen times per conversation key).
- Ids are seeded by the conversation key and the rendering, never by the attempt: the same
  request gets byte-identical streams (only ``demo-truncated-then-valid`` changes on retry).
- Calls use the request's tools in order (a forced ``tool_choice`` first); with no tools the
  built-in :data:`DEFAULT_TOOL` ``get_weather(location)`` is used. A scenario asking for more
  calls than there are tools reuses tools with another argument variant.
- A request that is one of the built-in request scenarios (weather, parallel, trip …) gets the
  calls its ``expect`` block asks for, as a well-behaved model would, with the demo model's
  quirk applied by its renderer (:mod:`.asked`); any other request, the demo scenario's own.
- A conversation ending with tool results gets a final text answer that quotes them (except
  in ``demo-never-stops``); ``tool_choice: none`` gets a text answer too.
- The item scenarios (:mod:`.items`: hosted search, apply_patch, a custom tool, programmatic
  calls) reshape the planned turn in the dialects that have their items. A Responses request
  offering custom tools and no function tool (the ``sql`` request scenario) gets a call of
  its first custom tool from every model that is not a fault (a quirk of function calls has
  nothing to bite on).
- ``demo-truncated-then-valid`` (and ``demo-glm-retry``) renders cut off on a conversation's
  first attempt and conformingly on its retry, then again cut off on the next one: requests
  alternate, so every Run (a first attempt and its one streaming retry) shows the retry, not
  only the first Run after the server started.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import (
    anthropic_items,
    bedrock,
    cohere,
    completions,
    gemini_items,
    interactions,
    items,
    openai_chat_reported,
    responses_items,
)
from .arguments import generate
from .asked import expected_calls, with_arguments
from .conversation import Ask, Result, Tool
from .scenarios import Scenario
from .wire import Call, Frame, Ids, Turn
from .written import as_text

RENDERERS: dict[str, ModuleType] = {
    "openai-chat": openai_chat_reported,
    "openai-responses": responses_items,
    "anthropic": anthropic_items,
    "gemini": gemini_items,
    "cohere-v2": cohere,
    "gemini-interactions": interactions,
    "openai-completions": completions,
    "bedrock-converse": bedrock,
}
"""Dialect -> module with ``render(turn)`` and ``VARIANTS``."""

DEFAULT_TOOL = Tool(
    "get_weather",
    {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["location"],
    },
)
"""The tool called when the request offers none."""

FAULT_TEXT = "Checking the forecast ☀ now."
"""The text preface of the fault scenarios (``☀`` is 3 bytes in UTF-8: the byte faults break
it; the reset and the stall get more events before their cut this way)."""

NEVER_STOPS = "demo-never-stops"
TRUNCATED = "demo-truncated"
THEN_VALID = "demo-truncated-then-valid"
GLM_RETRY = "demo-glm-retry"
"""First attempt: glm continuations cut off; the retry: glm continuations, complete."""


def plan(scenario: Scenario, ask: Ask, attempt: int, created: int) -> Turn:
    """The turn this request gets.

    ``attempt`` counts earlier identical requests (from 0): even ones are a first attempt,
    odd ones its retry; ``created`` is the response
    timestamp (the server passes the time the conversation was first seen, so a repeated
    request gets the very same bytes unless the scenario says otherwise).
    """
    variant = ""
    if scenario.name == THEN_VALID:
        variant = TRUNCATED if attempt % 2 == 0 else ""
    elif scenario.name == GLM_RETRY:
        variant = "demo-glm-truncated" if attempt % 2 == 0 else "demo-glm-empty-string"
    elif scenario.name in RENDERERS[ask.dialect].VARIANTS:
        variant = scenario.name
    ids = Ids(f"{ask.key}:{variant}")
    turn = Turn(
        ask.dialect,
        ask.model,
        ids,
        created=created,
        include_usage=ask.include_usage,
        prompt_tokens=max(1, ask.size // 4),
        tools=ask.raw_tools if ask.dialect == "openai-responses" else [],
    )
    if ask.results and scenario.name != NEVER_STOPS and not items.continues(scenario.name, ask):
        turn.text = final_text(ask.results)
        return turn
    if ask.no_tools:
        turn.text = "No tool call: tool_choice asked for none. This is the demo provider."
        return turn
    turn.variant = variant
    bare = scenario.name == "demo-zero-arg"
    turn.calls = [
        _call(ask, tool, {} if bare else _arguments(ask, tool, n, first=i == 0), ids)
        for i, (tool, n) in enumerate(_tools(scenario, ask))
    ]
    if scenario.fault is not None:
        turn.text = FAULT_TEXT
    elif ask.dialect == "anthropic":
        turn.text = f"I'll use {turn.calls[0].name} for that."
    if scenario.name in items.SCENARIOS:  # hosted, built-in and custom items (.items)
        items.shape(scenario.name, turn, ask)
    elif scenario.fault is None and items.custom_only(ask):
        items.shape(items.CUSTOM_SQL, turn, ask)  # only custom tools offered: one is called
        turn.variant = items.CUSTOM_SQL
        return turn
    as_text(scenario.name, turn, scenario.quirks)
    return turn


def render(turn: Turn) -> list[Frame]:
    """The frames of ``turn`` in its dialect."""
    frames: list[Frame] = RENDERERS[turn.dialect].render(turn)
    return frames


def _tools(scenario: Scenario, ask: Ask) -> list[tuple[Tool, int]]:
    """(tool, argument variant) per call."""
    tools = list(ask.tools) or [DEFAULT_TOOL]
    if ask.choice is not None:
        forced = [t for t in tools if t.name == ask.choice]
        tools = forced or tools
    if scenario.name == "demo-zero-arg":
        bare = [t for t in tools if not t.schema.get("properties")]
        loose = [t for t in tools if not t.schema.get("required")]
        tools = bare or loose or tools
    rounds = ask.rounds if scenario.name == NEVER_STOPS else 0
    if ask.asked is not None and ask.choice is None and scenario.name != "demo-zero-arg":
        # a built-in request scenario: the calls a well-behaved model makes (.asked); the
        # never-stopping model varies them by round, as it always has
        return [(t, n + rounds) for t, n in expected_calls(ask.asked, tools, scenario.calls)]
    return [(tools[i % len(tools)], rounds + i // len(tools)) for i in range(scenario.calls)]


def _arguments(ask: Ask, tool: Tool, variant: int, *, first: bool) -> dict[str, Any]:
    """Generated arguments; the first call of a built-in scenario carries its ``expect``
    block's arguments (:func:`.asked.with_arguments`)."""
    args = generate(tool.schema, variant)
    if first and ask.asked is not None and ask.choice is None:
        args = with_arguments(args, tool, ask.asked)
    return args


def _call(ask: Ask, tool: Tool, args: dict[str, Any], ids: Ids) -> Call:
    call = Call(tool.name, args)
    if ask.dialect in ("openai-chat", "openai-responses"):
        call.id = "call_" + ids.token(24)
    if ask.dialect == "openai-responses":
        call.item_id = "fc_" + ids.hex(50)
    elif ask.dialect == "anthropic":
        call.id = "toolu_01" + ids.token(22)
    elif ask.dialect == "bedrock-converse":
        call.id = bedrock.call_id(ids)
    return call


def final_text(results: list[Result]) -> str:
    """The closing answer after tool results: it quotes what each tool returned."""
    said = "; ".join(f"{r.name} returned {r.content or '(nothing)'}" for r in results)
    return f"Here is what the tools said: {said}. That is all I needed — done."
