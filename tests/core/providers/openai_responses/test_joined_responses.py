"""A body that joins several Responses streams (as the AI SDK's tests feed them) keeps every
item of every response: a later response's output indexes restart at 0, and an item there
that has no name (``apply_patch_call``, ``web_search_call``…) is a new lane, never a late
fragment of the earlier response's item at that index."""

from __future__ import annotations

from pathlib import Path

import pytest
from realworld.loader import realworld_streams
from realworld.streams import analyse, responses_body


def _streams(*keys: str) -> bytes:
    by_key = {s.key: s for s in realworld_streams()}
    return b"".join(by_key[f"openai-responses/{k}"].body for k in keys)


@pytest.mark.parametrize(
    "keys",
    [
        ("openai-custom-tool.1", "openai-apply-patch-tool.1"),
        ("openai-apply-patch-tool.1", "openai-custom-tool.1"),
        ("openai-custom-tool.1", "openai-apply-patch-tool.1", "openai-web-search-tool.1"),
    ],
)
def test_every_item_of_joined_real_responses_is_a_lane(tmp_path: Path, keys: tuple[str]) -> None:
    by_key = {s.key: s for s in realworld_streams()}
    want = [(i.id, i.item if i.item != "function" else None) for k in keys
            for i in by_key[f"openai-responses/{k}"].items]  # fmt: skip
    calls = [v.call for v in analyse(tmp_path, _streams(*keys)).final.verdicts]
    assert [c.id for c in calls] == [w[0] for w in want]
    assert "apply_patch_call" in [c.item_type for c in calls]
    assert not any(c.late_fragments or c.id_changes for c in calls)


def test_a_nameless_item_at_a_reused_index_opens_its_own_lane(tmp_path: Path) -> None:
    first = {"type": "web_search_call", "id": "ws_1", "status": "completed",
             "action": {"type": "search", "query": "a"}}  # fmt: skip
    second = {"type": "apply_patch_call", "id": "apc_2", "call_id": "call_2",
              "status": "completed",
              "operation": {"type": "delete_file", "path": "x.md"}}  # fmt: skip
    body = responses_body([first]) + responses_body([second])
    calls = [v.call for v in analyse(tmp_path, body).final.verdicts]
    assert [(c.id, c.item_type, c.kind) for c in calls] == [
        ("ws_1", "web_search_call", "hosted"),
        ("call_2", "apply_patch_call", "builtin"),
    ]
    assert calls[0].arguments == '{"type":"search","query":"a"}'
    assert calls[1].arguments == '{"type":"delete_file","path":"x.md"}'
