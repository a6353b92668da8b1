"""``analyze --no-clients``: a quick look that runs no client replica. The JSON says so
(``clients`` null, ``clients_judged`` false), the headline says the clients were not judged
(never that they agree), the exit code is the stream's own, and ``--client`` with it is bad
usage (exit 2)."""

from __future__ import annotations

import json

import pytest
from conftest import TESTS

from inspector.cli import main

CORPUS = TESTS / "clients" / "corpus"
CLEAN = CORPUS / "anthropic" / "demo-clean.jsonl"
PARALLEL_INDEX_0 = CORPUS / "openai-chat" / "demo-parallel-index-0.jsonl"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["analyze", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_json_says_clients_were_not_judged(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(CLEAN), "--json", "--no-clients")
    doc = json.loads(out)
    assert code == 0
    assert doc["clients"] is None and doc["clients_judged"] is False
    assert doc["headline"].endswith("clients not judged")
    assert doc["tool_calls"], "the calls are still judged"


def test_by_default_the_json_says_clients_were_judged(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(CLEAN), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["clients_judged"] is True and isinstance(doc["clients"], dict)


def test_a_session_that_breaks_clients_is_not_said_to_break_them_unjudged(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, judged, _ = _run(capsys, str(PARALLEL_INDEX_0), "--json")
    assert "breaks" in json.loads(judged)["headline"]
    code, out, _ = _run(capsys, str(PARALLEL_INDEX_0), "--json", "--no-clients")
    doc = json.loads(out)
    assert "breaks" not in doc["headline"] and "agree" not in doc["headline"]
    assert doc["headline"].endswith("clients not judged")
    assert code == doc["exit"]["code"]


def test_the_text_report_says_clients_were_not_judged(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(CLEAN), "--no-clients")
    assert code == 0
    assert "clients not judged" in out.splitlines()[1]
    assert "clients: not judged (--no-clients)" in out.splitlines()


def test_client_with_no_clients_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, str(CLEAN), "--no-clients", "--client", "anthropic-sdk")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--no-clients" in err and "--client" in err
