"""google-genai hands Gemini's ``executableCode`` parts (code the provider runs) over beside
the function calls: the replica reports them as hosted items, in their place, as the real
library does (run here on loopback: the real ``google-genai`` is a test peer)."""

from __future__ import annotations

import json
from pathlib import Path

from clients.compare import mismatch, outcome_of
from clients.real.genai_runner import run
from clients.serve import replay_server
from clients.streams import Stream

from inspector.core.clients.google_genai.replica import GoogleGenai
from inspector.core.clients.judge import run_replica


def _chunk(*parts: dict[str, object], finish: str | None = None) -> str:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        candidate["finishReason"] = finish
    return "data: " + json.dumps({"candidates": [candidate]}) + "\r\n\r\n"


async def test_executable_code_is_a_hosted_item_as_the_real_library_hands_it(
    tmp_path: Path,
) -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(2 + 2)"}}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}}
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
    path = tmp_path / "gemini-code.sse"
    path.write_text(_chunk(code) + _chunk(result) + _chunk(call, finish="STOP"))
    stream = Stream("real/gemini-code", "gemini", path)
    async with replay_server(stream) as url:
        real = await run(url, stream)
    replica = outcome_of(run_replica(GoogleGenai(), stream.exchange(), stream.expected(), False))
    assert real["hosted"] == [
        {"id": None, "name": None, "arguments": "print(2 + 2)", "kind": "hosted",
         "item_type": "executableCode"}
    ]  # fmt: skip
    assert real["calls"] == [{"id": None, "name": "get_weather", "arguments": '{"city":"Paris"}'}]
    assert mismatch(stream.id, real, replica) is None, mismatch(stream.id, real, replica)
