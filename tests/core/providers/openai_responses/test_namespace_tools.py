"""Tools nested in a Responses ``namespace`` are known to the validator: a well-formed call to
one is valid, not an unknown tool; restating a top-level tool there warns of nothing."""

from __future__ import annotations

from inspector.core.providers import REGISTRY
from inspector.core.verdicts.tools import ToolRegistry
from inspector.core.verdicts.validation import validate_call

WEATHER = {"type": "function", "name": "get_weather",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}  # fmt: skip
FILES = {"type": "function", "name": "search_files", "parameters": {"type": "object"}}


def test_a_namespaced_tool_is_known_and_validated() -> None:
    reg = ToolRegistry.from_definitions(
        [{"type": "namespace", "name": "fs", "tools": [FILES, WEATHER]}], REGISTRY
    )
    assert reg.names() == ("search_files", "get_weather") and reg.warnings == []
    assert validate_call("get_weather", '{"city":"Paris"}', reg) == []
    assert [p.code for p in validate_call("get_weather", "{}", reg)] == ["missing_required"]


def test_a_tool_restated_in_a_namespace_is_no_duplicate_but_a_different_one_is() -> None:
    same = [WEATHER, {"type": "namespace", "name": "get_weather", "tools": [WEATHER]}]
    assert ToolRegistry.from_definitions(same, REGISTRY).warnings == []
    other = {**WEATHER, "parameters": {"type": "object"}}
    differ = [WEATHER, {"type": "namespace", "name": "w", "tools": [other]}]
    assert ToolRegistry.from_definitions(differ, REGISTRY).warnings == [
        "tool 'get_weather' is defined more than once; the first definition is used"
    ]
