"""A built-in item's streamed input fills its lane as it arrives: each
``apply_patch_call_operation_diff.delta`` and ``shell_call_command.delta`` is a fragment of the
item's lane (not a META event), the ``.done`` restates it, and the item's ``output_item.done``
restates the whole object input, which the lane ends holding once (no duplication), with the
kind and verdict the item had when only ``output_item.done`` filled it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from realworld.loader import REALWORLD, MissingFixtures
from realworld.streams import analyse, sse

from inspector.core.base.model import ToolCallDelta
from inspector.core.calls.progress import progress_of

DIFF = ["+## List\n", "+- [ ] Milk\n", "+- [ ] Eggs\n"]
OPERATION = {"type": "create_file", "diff": "".join(DIFF), "path": "list.md"}
PATCH_ID = "apc_1"


def patch_events(done_diff: bool = True) -> list[dict[str, Any]]:
    """added (empty diff), one delta per piece of DIFF, the diff's done, the item's done."""
    item = {"type": "apply_patch_call", "id": PATCH_ID, "call_id": "call_p", "status":
            "in_progress", "operation": {**OPERATION, "diff": ""}}  # fmt: skip
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    for piece in DIFF:
        events.append({"type": "response.apply_patch_call_operation_diff.delta",
                       "item_id": PATCH_ID, "output_index": 0, "delta": piece})  # fmt: skip
    if done_diff:
        diff = OPERATION["diff"]
        events.append({"type": "response.apply_patch_call_operation_diff.done",
                       "item_id": PATCH_ID, "output_index": 0, "diff": diff})  # fmt: skip
    done = {**item, "status": "completed", "operation": OPERATION}
    events.append({"type": "response.output_item.done", "output_index": 0, "item": done})
    events.append({"type": "response.completed", "response": {"id": "resp_1", "status":
                                                                "completed"}})  # fmt: skip
    return events


def test_each_diff_delta_is_a_fragment_of_the_patch_lane(tmp_path: Path) -> None:
    a = analyse(tmp_path, sse(patch_events()))
    view = a.final
    (v,) = view.verdicts
    call = v.call
    texts = [f.arguments for f in call.fragments if not f.final]
    assert texts[1:] == DIFF  # after the opener, every delta, as it arrived, in its lane
    assert [f.final for f in call.fragments] == [False, False, False, False, True, True]
    diff_events = [i for i, e in enumerate(patch_events()) if e["type"].endswith("diff.delta")]
    assert [f.seq for f in call.fragments[1:4]] == diff_events == [2, 3, 4]  # at arrival
    # the whole object input, once: not the diff followed by it
    assert json.loads(call.arguments) == OPERATION
    assert (call.kind, call.item_type, v.valid) == ("builtin", "apply_patch_call", True)
    progress = progress_of(call, view.events)
    assert [r.length for r in progress.rows[1:4]] == [9, 21, 33]  # the lane grows per delta
    assert progress.length == len(call.arguments) == progress.json.length


def test_the_lane_holds_the_diff_while_it_streams(tmp_path: Path) -> None:
    """Cut before the item is done: the lane has the diff so far (it used to be empty)."""
    events = patch_events()[:4]  # created, added, two deltas
    call = analyse(tmp_path, sse(events)).final.verdicts[0].call
    assert call.arguments == DIFF[0] + DIFF[1]
    assert call.truncated


def test_shell_command_deltas_fill_the_shell_lane(tmp_path: Path) -> None:
    item = {"type": "shell_call", "id": "sh_1", "call_id": "call_s", "status": "in_progress",
            "action": {"commands": []}}  # fmt: skip
    pieces = ["ls", " -la", " /tmp"]
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {
            "type": "response.shell_call_command.added",
            "command": "",
            "command_index": 0,
            "output_index": 0,
        },
        *(
            {
                "type": "response.shell_call_command.delta",
                "command_index": 0,
                "delta": p,
                "output_index": 0,
            }
            for p in pieces
        ),
        {
            "type": "response.shell_call_command.done",
            "command": "".join(pieces),
            "command_index": 0,
            "output_index": 0,
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "status": "completed", "action": {"commands": ["ls -la /tmp"]}},
        },
        {"type": "response.completed", "response": {"id": "r", "status": "completed"}},
    ]
    (v,) = analyse(tmp_path, sse(events)).final.verdicts
    call = v.call
    assert [f.arguments for f in call.fragments if not f.final][1:] == pieces
    assert json.loads(call.arguments) == {"commands": ["ls -la /tmp"]}
    assert (call.kind, v.valid) == ("builtin", True)


def test_the_real_apply_patch_recording_fills_its_lane_per_delta(tmp_path: Path) -> None:
    path = REALWORLD / "openai-responses" / "openai-apply-patch-tool.1.sse"
    if not path.is_file():
        raise MissingFixtures(f"{path} is missing")
    deltas = path.read_bytes().count(b"event: response.apply_patch_call_operation_diff.delta")
    (v,) = analyse(tmp_path, path.read_bytes()).final.verdicts
    call = v.call
    streamed = [f for f in call.fragments if not f.final][1:]
    assert deltas == 32 and len(streamed) == deltas
    operation = json.loads(call.arguments)
    assert "".join(f.arguments for f in streamed) == operation["diff"]
    assert (call.kind, call.item_type, v.valid) == ("builtin", "apply_patch_call", True)
    assert all(isinstance(f, ToolCallDelta) for f in streamed)
