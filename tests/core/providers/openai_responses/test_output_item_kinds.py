"""Every Responses output item type of the pinned openai package that is a tool call becomes a
lane with its kind and wire type; where the type alone does not decide, the item does."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import pytest
from realworld.streams import analyse, responses_body

from inspector.core.providers.openai_responses.items import ITEMS, OUTPUT_ITEMS


def lane(tmp_path: Path, item: dict[str, Any], tools: list[Any] | None = None) -> Any:
    (v,) = analyse(tmp_path, responses_body([item], tools)).final.verdicts
    return v.call


@pytest.mark.parametrize("item_type", sorted(ITEMS))
def test_each_call_item_type_is_a_lane_of_its_kind(tmp_path: Path, item_type: str) -> None:
    call = lane(tmp_path, {"type": item_type, "id": "it_1", "call_id": "call_1",
                           "status": "completed"})  # fmt: skip
    assert (call.kind, call.item_type, call.id) == (ITEMS[item_type][0], item_type, "call_1")


def test_the_table_covers_the_pinned_packages_output_items() -> None:
    from openai.types.responses.response_output_item import ResponseOutputItem

    union = typing.get_args(typing.get_args(ResponseOutputItem)[0])
    types = {typing.get_args(m.model_fields["type"].annotation)[0] for m in union}
    not_calls = {"message", "reasoning", "compaction", "additional_tools"}
    assert types - not_calls == set(ITEMS) | (OUTPUT_ITEMS & types)


def test_where_the_type_does_not_decide_the_item_does(tmp_path: Path) -> None:
    container = {"type": "container_reference", "container_id": "cntr_1"}
    shell = {"type": "shell_call", "id": "sh_1", "call_id": "c1", "status": "completed",
             "action": {"commands": ["ls"]}}  # fmt: skip
    assert lane(tmp_path, shell).kind == "builtin"
    assert lane(tmp_path, {**shell, "environment": container}).kind == "hosted"
    search = {"type": "tool_search_call", "id": "ts_1", "call_id": "c2", "arguments": {}}
    assert lane(tmp_path, {**search, "execution": "client"}).kind == "builtin"
    assert lane(tmp_path, {**search, "execution": "server"}).kind == "hosted"
    xai = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "xs_call_1", "status":
           "completed", "name": "x_keyword_search", "input": '{"query":"q"}'}  # fmt: skip
    assert lane(tmp_path, xai, [{"type": "x_search"}]).kind == "hosted"
    declared = [{"type": "x_search"}, {"type": "custom", "name": "x_keyword_search"}]
    assert lane(tmp_path, xai, declared).kind == "custom"
    assert lane(tmp_path, xai).kind == "custom"  # no tool list: the type's own kind


def verdict(tmp_path: Path, items: list[dict[str, Any]]) -> Any:
    (v,) = analyse(tmp_path, responses_body(items)).final.verdicts
    return v


COMPUTER = {"type": "computer_call", "id": "cu_1", "call_id": "call_cu", "status": "completed",
            "pending_safety_checks": []}  # fmt: skip


def test_a_computer_call_of_the_ga_tool_shows_and_checks_its_batched_actions(
    tmp_path: Path,
) -> None:
    actions = [{"type": "click", "x": 405, "y": 157, "button": "left"},
               {"type": "type", "text": "penguin"}]  # fmt: skip
    v = verdict(tmp_path, [{**COMPUTER, "actions": actions}])
    assert (v.call.kind, v.call.item_type) == ("builtin", "computer_call")
    assert v.call.arguments == (
        '[{"type":"click","x":405,"y":157,"button":"left"},{"type":"type","text":"penguin"}]'
    )
    assert v.valid
    bad = verdict(tmp_path, [{**COMPUTER, "actions": [{"type": "click"}, {"x": 1}]}])
    assert [p.code for p in bad.problems] == ["builtin_shape"]
    assert "actions[1]" in bad.problems[0].message


def test_a_preview_computer_call_shows_its_single_action(tmp_path: Path) -> None:
    v = verdict(tmp_path, [{**COMPUTER, "action": {"type": "screenshot"}, "actions": None}])
    assert v.call.arguments == '{"type":"screenshot"}'
    assert v.valid


def test_a_computer_call_is_the_agents_even_when_its_output_is_in_the_stream(
    tmp_path: Path,
) -> None:
    """The API has no hosted computer: a computer_call_output in the body is the agent's reply
    (a joined conversation), never a sign the provider ran it."""
    output = {"type": "computer_call_output", "id": "cuo_1", "call_id": "call_cu",
              "output": {"type": "computer_screenshot", "image_url": "data:,"}}  # fmt: skip
    body = responses_body([{**COMPUTER, "actions": [{"type": "screenshot"}]}, output])
    (v,) = analyse(tmp_path, body).final.verdicts
    assert (v.call.kind, v.call.id) == ("builtin", "call_cu")
