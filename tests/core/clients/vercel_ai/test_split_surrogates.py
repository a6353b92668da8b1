"""An escaped surrogate pair split across two chunks (``"\\ud83d"`` then ``"\\ude00"``) read
as each real client reads it: JavaScript's strings are UTF-16, so the AI SDK's two halves
make one character; Python's clients hold two lone surrogates, which every report writes as
their escapes, never an internal error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from inspector.core.clients.vercel_ai.v8_json import parse, stringify

CHUNK = (
    'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index"'
    ':0,"delta":{"tool_calls":[%s]},"finish_reason":%s}]}\n\n'
)


def _body() -> str:
    first = (
        '{"index":0,"id":"call_1","type":"function","function":{"name":"echo",'
        '"arguments":"{\\"text\\": \\""}}'
    )
    return (
        CHUNK % (first, "null")
        + CHUNK % ('{"index":0,"function":{"arguments":"\\ud83d"}}', "null")
        + CHUNK % ('{"index":0,"function":{"arguments":"\\ude00\\"}"}}', "null")
        + 'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":'
        '[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )


def test_javascript_joins_the_halves_python_concatenated() -> None:
    text = '{"text": "' + "\ud83d" + "\ude00" + '"}'
    assert stringify(parse(text)) == '{"text":"\U0001f600"}'
    assert stringify("\ud83d") == '"\\ud83d"'  # a lone half stays escaped, as V8 writes it


def test_analyze_reports_each_clients_reading_and_never_fails(tmp_path: Path) -> None:
    path = tmp_path / "split-surrogate.sse"
    path.write_text(_body())
    cli = [sys.executable, "-m", "inspector.cli.main", "analyze"]
    for extra in ([], ["--json"]):
        run = subprocess.run([*cli, *extra, str(path)], capture_output=True, text=True)
        assert "internal error" not in run.stderr, run.stderr
        assert run.returncode in (0, 1), run.stderr
    run = subprocess.run([*cli, "--json", str(path)], capture_output=True, text=True)
    clients = json.loads(run.stdout)["clients"]
    assert clients["vercel-ai"]["calls"][0]["arguments"] == '{"text":"\U0001f600"}'
    # Python's two halves are written as two escapes, which a JSON reader pairs again
    assert clients["openai-python"]["calls"][0]["arguments"] == '{"text": "\U0001f600"}'
    assert "\\ud83d\\ude00" in run.stdout
