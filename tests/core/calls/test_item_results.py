"""What a stream reports of an item's execution is a RESULT beside the call it names, never a
call of its own: Responses output items and hosted results, Anthropic ``*_tool_result``
blocks, Gemini code execution (no id: the results that follow the code)."""

from __future__ import annotations

import json
from pathlib import Path

from realworld.loader import REALWORLD
from realworld.streams import analyse

from inspector.core.analysis.session import Analysis
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY


def real(name: str) -> Analysis:
    path = next(REALWORLD.glob(f"*/{name}.sse"), None)
    assert path is not None, f"missing realworld stream {name} under {REALWORLD}"
    return Analysis.from_capture(load(path), providers=REGISTRY)


def test_a_container_shell_call_has_its_output_item_beside_it() -> None:
    st = real("openai-shell-container.1").final.state
    (call,) = st.calls
    assert (call.kind, call.item_type) == ("hosted", "shell_call")
    got = [r.value["item_type"] for r in st.results_of(call)]
    assert got == ["shell_call", "shell_call_output"]
    assert st.results_of(call)[1].value["output"][0]["stdout"].startswith("Hello from container!")


def test_a_server_tool_use_has_its_tool_result_block_beside_it() -> None:
    st = real("anthropic-web-fetch-tool.1").final.state
    hosted = [c for c in st.calls if c.kind == "hosted"]
    assert hosted and all(c.item_type == "server_tool_use" for c in hosted)
    assert [r.value["item_type"] for r in st.results_of(hosted[0])] == ["web_fetch_tool_result"]


def test_gemini_code_execution_is_a_hosted_lane_with_its_result(tmp_path: Path) -> None:
    parts = [
        {"executableCode": {"language": "PYTHON", "code": "print(1+1)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2\n"}},
        {"text": "It is 2."},
    ]
    chunk = {"candidates": [{"content": {"role": "model", "parts": parts},
                             "finishReason": "STOP"}]}  # fmt: skip
    analysis = analyse(tmp_path, f"data: {json.dumps(chunk)}\n\n".encode())
    st = analysis.final.state
    (call,) = st.calls
    assert (call.kind, call.item_type, call.arguments) == ("hosted", "executableCode", "print(1+1)")
    assert [r.value["output"] for r in st.results_of(call)] == ["2\n"]
    assert st.full_text == "It is 2." and analysis.all_valid
    assert not {q.code for q in analysis.final.quirks} & {"finish_reason_mismatch"}
