"""Items are judged by their kind: a custom input against the format its tool declared (never
as JSON), a built-in input against its documented shape, a hosted item never."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from realworld.streams import analyse, responses_body

from inspector.core.providers import REGISTRY
from inspector.core.reports.words import call_word
from inspector.core.verdicts.bykind import INPUT_FORMAT, validate_custom
from inspector.core.verdicts.tools import ToolRegistry

SQL = "SELECT * FROM users WHERE age > 25"


def custom_call(text: str) -> dict[str, Any]:
    return {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "write_sql",
            "input": text, "status": "completed"}  # fmt: skip


def custom_tool(fmt: dict[str, Any]) -> list[Any]:
    return [{"type": "custom", "name": "write_sql", "format": fmt}]


def verdict(tmp_path: Path, items: list[dict[str, Any]], tools: list[Any] | None = None) -> Any:
    analysis = analyse(tmp_path, responses_body(items, tools))
    (v,) = analysis.final.verdicts
    return analysis, v


def test_a_custom_input_matching_its_regex_is_valid_and_never_read_as_json(tmp_path: Path) -> None:
    regex = {"type": "grammar", "syntax": "regex", "definition": "SELECT .+"}
    analysis, v = verdict(tmp_path, [custom_call(SQL)], custom_tool(regex))
    assert (v.call.kind, v.call.item_type, v.valid) == ("custom", "custom_tool_call", True)
    assert call_word(v, validation="structural") == "valid" and analysis.all_valid


def test_a_custom_input_its_regex_rejects_is_invalid(tmp_path: Path) -> None:
    regex = {"type": "grammar", "syntax": "regex", "definition": "SELECT .+"}
    _, v = verdict(tmp_path, [custom_call("DROP TABLE users")], custom_tool(regex))
    assert [p.code for p in v.problems] == [INPUT_FORMAT]


def test_a_lark_grammar_accepts_and_rejects(tmp_path: Path) -> None:
    grammar = {"type": "grammar", "syntax": "lark", "definition":
               'start: "SELECT " COLS " FROM " NAME\nCOLS: "*" | NAME\nNAME: /[a-z]+/'}  # fmt: skip
    _, good = verdict(tmp_path, [custom_call("SELECT * FROM users")], custom_tool(grammar))
    _, bad = verdict(tmp_path, [custom_call("SELECT * users")], custom_tool(grammar))
    assert good.valid and [p.code for p in bad.problems] == [INPUT_FORMAT]


def test_a_custom_input_with_no_declared_format_is_not_checked_never_invalid(
    tmp_path: Path,
) -> None:
    _, v = verdict(tmp_path, [custom_call("not { json")])  # a raw body: no tools at all
    assert v.valid and call_word(v, validation="structural") == "not checked"


def test_validate_custom_says_whether_it_checked() -> None:
    reg = ToolRegistry.from_definitions(custom_tool({"type": "text"}), REGISTRY)
    assert validate_custom("write_sql", "anything", reg, False) == ([], True)
    assert validate_custom("other", "anything", reg, False) == ([], False)


def test_a_builtin_item_is_checked_against_its_documented_shape(tmp_path: Path) -> None:
    patch = {"type": "update_file", "path": "a.py", "diff": "@@\n-a\n+b\n"}
    good = {"type": "apply_patch_call", "id": "apc_1", "call_id": "call_p", "status": "completed",
            "operation": patch}  # fmt: skip
    bad = {**good, "operation": {"type": "rename_file", "path": "a.py"}}
    _, v_good = verdict(tmp_path, [good])
    _, v_bad = verdict(tmp_path, [bad])
    assert (v_good.call.kind, v_good.valid) == ("builtin", True)
    assert [p.code for p in v_bad.problems] == ["builtin_shape"]


def test_a_hosted_item_is_never_judged_and_never_makes_the_session_invalid(
    tmp_path: Path,
) -> None:
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed",
              "action": {"type": "search", "query": 7}}  # fmt: skip
    analysis, v = verdict(tmp_path, [search])
    assert (v.call.kind, v.call.item_type, v.problems) == ("hosted", "web_search_call", [])
    assert call_word(v, validation="strict") == "not checked" and analysis.all_valid
