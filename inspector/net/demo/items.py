"""The demo's tool-call items that are not plain function calls: what each new-kind scenario
says, in every dialect that has the kind (the renderings are in :mod:`.responses_items` and
:mod:`.anthropic_items`).

- ``demo-web-search``: a HOSTED web search with its results (Responses ``web_search_call``
  with ``action.sources``; Anthropic ``server_tool_use`` ``web_search`` and its
  ``web_search_tool_result`` block), then an answer citing them; no call for the agent.
- ``demo-apply-patch``: a BUILT-IN ``apply_patch_call`` (Responses) creating a file, its diff
  streamed as ``apply_patch_call_operation_diff`` deltas; the agent applies it.
- ``demo-custom-sql``: a CUSTOM tool (Responses ``custom_tool_call``) whose free-form input,
  a SQL query, streams as ``custom_tool_call_input`` deltas and matches the Lark grammar the
  tool declares (:data:`SQL_TOOL`; a request declaring a custom tool of its own gets its name).
- ``demo-code-execution``: Gemini code execution: a HOSTED ``executableCode`` part (Python
  the provider runs), its ``codeExecutionResult`` (``OUTCOME_OK`` and the output), then an
  answer quoting it; no call for the agent. Gemini's other item the inspector reads, a
  ``functionCall`` with a ``thoughtSignature``, is every Gemini demo call already.
- ``demo-programmatic``: Anthropic programmatic tool calling: code execution (a hosted
  ``server_tool_use`` whose code streams) calls the request's first tool, a ``tool_use`` block
  with ``caller`` whose input arrives whole; after its result the next call arrives whole
  inside ``message_start`` (as the API sends calls made while the code still runs); after the
  second result, the final answer.

Invariants:
- Pure: the same turn gives the same frames; ids come from the turn's :class:`~.wire.Ids`.
- Shapes follow the pinned ``openai`` / ``anthropic`` packages' types and the recorded streams
  under ``../shared/fixtures/realworld`` (``openai-web-search-tool``, ``openai-apply-patch-tool``,
  ``openai-custom-tool``, ``anthropic-web-search-tool``, ``anthropic-programmatic-tool-calling``).
- Search results, answers and patches are made up and say so; URLs are under ``.example``.
"""

from __future__ import annotations

from typing import Any, Final

from .conversation import Ask
from .wire import Call, Turn

WEB_SEARCH: Final = "demo-web-search"
APPLY_PATCH: Final = "demo-apply-patch"
CUSTOM_SQL: Final = "demo-custom-sql"
PROGRAMMATIC: Final = "demo-programmatic"
CODE_EXECUTION: Final = "demo-code-execution"

QUERY = "weather in Paris today"
"""What the hosted search looks for."""

SOURCES: Final = (
    ("Paris forecast: mild, rain after 6 pm", "https://forecast.example/paris", "2 hours ago"),
    ("Paris, France — hourly weather", "https://weather.example/fr/paris/hourly", "5 hours ago"),
    ("Île-de-France radar and warnings", "https://radar.example/idf", "1 day ago"),
)  # fmt: skip
"""(title, url, page age) of each made-up search result."""

ANSWER = (
    "Paris is mild today: about 18 °C with light cloud, and rain is likely after 6 pm. "
    "(Demo provider: these search results are made up.)"
)
"""The answer after the search (it cites the first source)."""

SQL_GRAMMAR = r"""start: "SELECT " columns " FROM " NAME where? limit?
columns: "*" | NAME (", " NAME)*
where: " WHERE " NAME " " OP " " value
limit: " LIMIT " INT
OP: ">=" | "<=" | "=" | ">" | "<"
value: INT | "'" NAME "'"
NAME: /[a-z_][a-z0-9_]*/
INT: /[0-9]+/
"""
"""The Lark grammar the demo's SQL tool declares (a small SELECT)."""

SQL_TOOL: Final[dict[str, Any]] = {
    "type": "custom",
    "name": "write_sql",
    "description": "Write one SQL SELECT over the forecasts table.",
    "format": {"type": "grammar", "syntax": "lark", "definition": SQL_GRAMMAR},
}
"""The custom tool used when the request declares none (echoed in the response's tools)."""

SQL = "SELECT city, temperature FROM forecasts WHERE city = 'paris' LIMIT 3"
"""The free-form input the model writes (it matches :data:`SQL_GRAMMAR`)."""

PATCH_PATH = "notes/paris-trip.md"
PATCH_DIFF = "+# Paris trip\n+\n+- [ ] Book the museum pass\n+- [ ] Pack an umbrella\n"
"""The file the apply_patch call creates, and its diff (V4A, one added line a line)."""

CODE = (
    "import asyncio\n\n"
    "async def main():\n"
    "    first = await {tool}(**{args})\n"
    "    second = await {tool}(**{args})\n"
    "    print(first, second)\n\n"
    "asyncio.run(main())\n"
)
"""The code the hosted code execution runs (it calls the agent's tool twice)."""

GEMINI_CODE = (
    "forecasts = [18, 17, 19, 16, 18]\n"
    'print(f"mean {sum(forecasts) / len(forecasts):.1f} C, max {max(forecasts)} C")\n'
)
"""The Python Gemini's hosted code execution runs (over made-up forecasts)."""

GEMINI_OUTPUT = "mean 17.6 C, max 19 C\n"
"""What that code prints (its ``codeExecutionResult.output``)."""

GEMINI_ANSWER = (
    "Over the next five days Paris averages 17.6 °C, peaking at 19 °C. "
    "(Demo provider: the forecasts are made up.)"
)
"""The answer after the code ran (it quotes the output)."""

CODE_TOOL = "code_execution_20250825"
"""The caller type of a call made from code execution."""

PROGRAMMATIC_ROUNDS = 2
"""Calls the code makes (one per round) before the final answer."""


def sql_tool(request_tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The custom tool to call: the request's first ``custom`` tool, else :data:`SQL_TOOL`."""
    for t in request_tools:
        if t.get("type") == "custom" and isinstance(t.get("name"), str):
            return t
    return SQL_TOOL


def custom_only(ask: Ask) -> bool:
    """Does a Responses request offer custom tools and no function tool?"""
    return ask.dialect == "openai-responses" and bool(ask.custom_tools) and not ask.tools


def sources() -> list[dict[str, Any]]:
    """The Responses ``action.sources`` of the search."""
    return [{"type": "url", "url": url} for _, url, _ in SOURCES]


# -- planning --------------------------------------------------------------------------------

SCENARIOS: Final = frozenset((WEB_SEARCH, APPLY_PATCH, CUSTOM_SQL, PROGRAMMATIC, CODE_EXECUTION))
NEXT_CALL: Final = PROGRAMMATIC + "/next"
"""The variant of a programmatic follow-up: the next call, whole in ``message_start``."""
DIALECTS: Final[dict[str, tuple[str, ...]]] = {
    WEB_SEARCH: ("openai-responses", "anthropic"),
    APPLY_PATCH: ("openai-responses",),
    CUSTOM_SQL: ("openai-responses",),
    PROGRAMMATIC: ("anthropic",),
    CODE_EXECUTION: ("gemini",),
}
"""Where each scenario has its items (elsewhere it plays the conforming stream)."""

WEB_SEARCH_TOOL: Final[dict[str, Any]] = {
    "type": "web_search",
    "filters": None,
    "search_context_size": "medium",
    "user_location": {
        "type": "approximate", "city": None, "country": "US", "region": None, "timezone": None,
    },
}  # fmt: skip
"""The hosted tool a Responses stream echoes in its ``tools``."""


def continues(name: str, ask: Ask) -> bool:
    """Does a follow-up (tool results) of ``name`` get another call rather than the answer?"""
    return (
        name == PROGRAMMATIC and ask.dialect == "anthropic" and 0 < ask.rounds < PROGRAMMATIC_ROUNDS
    )


def shape(name: str, turn: Turn, ask: Ask) -> None:
    """Make the planned ``turn`` (one call of the request's first tool) the scenario's items."""
    if ask.dialect not in DIALECTS.get(name, ()):
        return
    ids, resp = turn.ids, ask.dialect == "openai-responses"
    if name == WEB_SEARCH:
        turn.calls, turn.text = [], ANSWER
        if resp:
            turn.tools = [*turn.tools, WEB_SEARCH_TOOL]
    elif name == APPLY_PATCH:
        op = {"type": "create_file", "diff": PATCH_DIFF, "path": PATCH_PATH}
        turn.calls = [Call("apply_patch", op, "call_" + ids.token(24), "apc_" + ids.hex(50))]
        turn.tools = [*turn.tools, {"type": "apply_patch"}]
    elif name == CUSTOM_SQL:
        tool = sql_tool(ask.custom_tools)
        call = Call(tool["name"], {"input": SQL}, "call_" + ids.token(24), "ctc_" + ids.hex(50))
        turn.calls, turn.tools = [call], [*turn.tools, tool]
    elif name == CODE_EXECUTION:
        turn.calls, turn.text, turn.variant = [], GEMINI_ANSWER, CODE_EXECUTION
    elif name == PROGRAMMATIC:
        server = ask.server_tool_id or "srvtoolu_01" + ids.token(22)
        for call in turn.calls:
            call.item_id = server  # the code execution that calls it
        turn.text = "" if ask.results else f"I'll run code that calls {turn.calls[0].name}."
        turn.variant = NEXT_CALL if ask.results else PROGRAMMATIC
