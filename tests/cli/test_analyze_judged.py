"""``analyze --json`` says, per client, how it was judged: ``plain stream`` where the body is
plain and the replica declares its dialect (judged from the inspector's own reading, no
replay), ``replayed`` otherwise; the verdicts are those of a replay either way."""

from __future__ import annotations

import json

import pytest
from conftest import TESTS

from inspector.cli import main

CORPUS = TESTS / "clients" / "corpus" / "openai-chat"
CHAT = ("openai-python", "litellm", "langchain", "vercel-ai", "by-id", "by-index")


def _clients(capsys: pytest.CaptureFixture[str], name: str) -> dict[str, dict[str, object]]:
    code = main(["analyze", "--json", str(CORPUS / f"{name}.jsonl")])
    assert code in (0, 1)
    return json.loads(capsys.readouterr().out)["clients"]


def test_a_plain_stream_judges_every_chat_client_from_the_engines_reading(
    capsys: pytest.CaptureFixture[str],
) -> None:
    clients = _clients(capsys, "demo-clean")
    for name in CHAT:
        assert clients[name]["judged"] == "plain stream", name
        assert clients[name]["agrees"] is True, name
        assert clients[name]["word"] == "agrees", name
    assert clients["anthropic-sdk"]["applies"] is False
    assert clients["anthropic-sdk"]["judged"] == "replayed"


def test_a_stream_the_libraries_read_differently_is_replayed_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    clients = _clients(capsys, "demo-parallel-index-0")
    assert {clients[name]["judged"] for name in CHAT} == {"replayed"}
    assert any(clients[name]["agrees"] is False for name in CHAT)
