"""A scenario's custom tool (free-form input, Chat's neutral ``{"type": "custom", "custom":
{…}}``) is declared, with its format, in the Responses request a session sends, and left out
by the dialects that read no custom call; the default matrix keeps to function-only scenarios."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspector.core.providers import REGISTRY
from inspector.core.requests.scenarios import (
    BUILTIN_PROFILES,
    ScenarioError,
    _scenario,
    build_request,
    find_scenario,
)
from inspector.core.verdicts.tools import ToolRegistry


def _profile(dialect: str) -> Any:
    return next(p for p in BUILTIN_PROFILES if p.dialect == dialect and not p.is_demo)


def test_the_sql_scenario_declares_its_grammar_tool_in_a_responses_request() -> None:
    sql = find_scenario("sql")
    assert not sql.functions_only
    body = build_request(_profile("openai-responses"), sql).body
    (tool,) = body["tools"]
    grammar = sql.tools[0]["custom"]["format"]["grammar"]
    assert tool == {
        "type": "custom",
        "name": "write_sql",
        "description": "Write one SQL SELECT over the forecasts table.",
        "format": {"type": "grammar", "syntax": "lark", "definition": grammar["definition"]},
    }
    registry = ToolRegistry.from_definitions(body["tools"], REGISTRY)
    spec = registry.get("write_sql")
    assert spec is not None and spec.format == tool["format"] and registry.warnings == []


@pytest.mark.parametrize(
    "dialect", ["openai-chat", "anthropic", "gemini", "bedrock-converse", "cohere-v2",
                "gemini-interactions"],
)  # fmt: skip
def test_dialects_reading_no_custom_call_leave_the_custom_tool_out(dialect: str) -> None:
    weather = find_scenario("weather")
    both = _scenario(
        {"prompt": "p", "tools": [*weather.tools, *find_scenario("sql").tools]}, Path("both.json")
    )
    written = build_request(_profile(dialect), both).body
    assert "write_sql" not in str(written) and "get_weather" in str(written)


def test_a_custom_tool_without_a_name_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"prompt": "p", "tools": [{"type": "custom", "custom": {}}]}')
    with pytest.raises(ScenarioError, match=r"'custom': \{'name'"):
        find_scenario(str(path))


def test_the_default_matrix_keeps_to_function_only_scenarios() -> None:
    from inspector.net.matrix.default import default_spec

    names = [s.name for s in default_spec(models=["demo-clean"]).scenarios]
    assert "sql" not in names and "weather" in names
    (only,) = default_spec(models=["demo-clean"], scenarios=["sql"]).scenarios
    assert only.name == "sql"
