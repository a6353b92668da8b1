"""``analyze`` speaks for the clients, on the real replica registry and the demo provider's
scenarios (tests/clients/corpus): the headline, the JSON ``clients`` section, ``--client NAME``
as a CI gate, and sessions that are never valid (a failed request, a body that is not UTF-8).

Each test names the replicas it needs; it fails until they are registered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TESTS

from inspector.cli import main
from inspector.core.clients.registry import REPLICAS

CORPUS = TESTS / "clients" / "corpus"
PARALLEL_INDEX_0 = CORPUS / "openai-chat" / "demo-parallel-index-0.jsonl"
FAILURES = ("fault-401", "fault-429", "fault-500", "fault-wrong-content-type")
DIALECTS = ("openai-chat", "openai-responses", "anthropic", "gemini")
SPEAKERS = {
    "openai-chat": ("openai-python", "litellm", "langchain", "vercel-ai", "by-id", "by-index"),
    "openai-responses": ("openai-python",),
    "anthropic": ("anthropic-sdk",),
    "gemini": ("google-genai",),
}
"""Per dialect, replicas that must speak it (others may too)."""
STRICT_UTF8 = {
    "openai-chat": ("openai-python", "langchain", "by-id", "by-index"),
    "openai-responses": ("openai-python",),
    "anthropic": ("anthropic-sdk",),
    "gemini": (),
}
"""Per dialect, replicas measured to raise UnicodeDecodeError on a body that is not UTF-8 (the
others raise their own error, or read U+FFFD and agree: google-genai, vercel-ai)."""


def _analyze(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["analyze", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code, out, _ = _analyze(capsys, "--json", *args)
    return code, json.loads(out)


def test_the_json_clients_section_is_always_there_with_every_replica(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc = _json(capsys, str(CORPUS / "anthropic" / "demo-clean.jsonl"))
    assert code == 0 and doc["format_version"] == 4
    clients = doc["clients"]
    assert isinstance(clients, dict) and list(clients) == [r.name for r in REPLICAS]
    assert {"by-index", "anthropic-sdk"} <= set(clients)
    keys = {"calls", "error", "error_after", "hosted", "agrees", "diverges_at", "word",
            "library", "version", "verified", "attempt", "applies", "judged"}  # fmt: skip
    assert all(set(entry) == keys for entry in clients.values())
    assert clients["by-index"]["word"] == "n/a" and clients["by-index"]["agrees"] is None
    assert clients["anthropic-sdk"]["word"] == "agrees"


def test_parallel_calls_on_index_0_break_the_clients_that_merge_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _analyze(capsys, str(PARALLEL_INDEX_0))
    assert (code, err) == (0, "")  # without --client the exit-code table is unchanged
    headline = out.splitlines()[1]
    assert headline.startswith("valid — breaks ")
    for name in ("openai-python", "litellm", "by-index"):
        assert f"{name} (merged)" in headline
    assert "langchain (" in headline and "by-id" not in headline
    section = out[out.index("\nclients:\n") + 1 :].splitlines()
    assert len(section) == 1 + len(REPLICAS)
    by_index = next(line for line in section if " by-index" in line)
    assert "✗ merged" in by_index and "hands over 1 call: get_weatherget_time" in by_index
    assert by_index.endswith(", diverges at chunk 6")  # the chunk that reuses index 0


def test_client_gate_exits_1_for_a_client_that_breaks_and_0_for_one_that_agrees(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _analyze(capsys, str(PARALLEL_INDEX_0), "--client", "by-index")
    assert code == 1
    last = out.splitlines()[-1]
    assert last.startswith("client by-index") and "✗ merged: would not get the inspector's" in last
    code, out, _ = _analyze(capsys, str(PARALLEL_INDEX_0), "--client", "by-id")
    assert code == 0 and "✓ agrees (gets the inspector's calls)" in out.splitlines()[-1]
    code, doc = _json(capsys, str(PARALLEL_INDEX_0), "--client", "by-id", "--client", "by-index")
    reasons = doc["exit"]["reasons"]  # type: ignore[index]
    assert code == 1 and len(reasons) == 1 and reasons[0].startswith("client by-index")


def test_an_unknown_client_is_bad_usage_naming_the_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _analyze(capsys, str(PARALLEL_INDEX_0), "--client", "openai")
    assert (code, out) == (2, "") and len(err.splitlines()) == 1
    assert err.startswith("toolcall-inspector: --client openai: no such client replica (known: ")
    assert all(r.name in err for r in REPLICAS) and "by-index" in err


def test_a_client_that_does_not_speak_the_dialect_is_bad_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    clean = str(CORPUS / "anthropic" / "demo-clean.jsonl")
    code, out, err = _analyze(capsys, clean, "--client", "by-index")
    assert (code, out) == (2, "")
    assert err == "toolcall-inspector: --client by-index does not speak anthropic (it speaks " \
        "openai-chat)\n"  # fmt: skip


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("fault", FAILURES)
def test_a_failed_request_is_never_valid(
    capsys: pytest.CaptureFixture[str], dialect: str, fault: str
) -> None:
    code, doc = _json(capsys, str(CORPUS / dialect / f"{fault}.jsonl"))
    assert code == 1 and doc["valid"] is False
    headline = str(doc["headline"])
    said = "wrong content type text/html" if "content" in fault else f"HTTP {fault[-3:]}"
    assert headline.startswith(f"failed — {said}")
    clients = doc["clients"]
    assert isinstance(clients, dict)
    if fault == "fault-wrong-content-type":  # measured: the OpenAI SDK reads HTML as no events
        assert dialect != "openai-chat" or clients["by-index"]["word"] == "silent failure"
        assert all(clients[n]["word"] in ("agrees", "silent failure") for n in SPEAKERS[dialect])
        return
    for name in SPEAKERS[dialect]:  # each raises as the library does: agreement on a failure
        assert clients[name]["error"] is not None and clients[name]["agrees"] is True


def test_record_then_analyze_of_a_failed_request_says_failed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "f.jsonl"
    code = main(["record", "--profile", "demo", "--scenario", "weather", "--model", "fault-500",
                 "--header", "x-demo-chunk-delay: 0", "--out", str(out)])  # fmt: skip
    capsys.readouterr()
    assert code == 2  # record describes the run
    code, doc = _json(capsys, str(out))
    assert code == 1 and doc["valid"] is False and doc["headline"] == "failed — HTTP 500"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_bytes_that_are_not_utf8_fail_the_session_and_every_client(
    capsys: pytest.CaptureFixture[str], dialect: str
) -> None:
    path = CORPUS / dialect / "fault-invalid-utf8.jsonl"
    code, doc = _json(capsys, str(path))
    reasons = doc["exit"]["reasons"]  # type: ignore[index]
    assert code == 1 and doc["valid"] is False and len(reasons) == 1
    at, how = reasons[0].split(": ")
    assert at.startswith("the body is not valid UTF-8 at byte ")
    assert how == "a client raises there or reads U+FFFD in its place"
    assert str(doc["headline"]).startswith(f"INVALID — {at}; ")
    clients = doc["clients"]
    assert isinstance(clients, dict)
    speaking = [name for name, entry in clients.items() if entry["applies"]]
    assert set(SPEAKERS[dialect]) <= set(speaking)
    for name in speaking:  # the line's claim, measured: each raises, or reads U+FFFD and agrees
        error, agrees = clients[name]["error"], clients[name]["agrees"]
        assert (error is not None and agrees is False) or (error is None and agrees is True)
        if name in STRICT_UTF8[dialect]:
            assert error["type"] == "UnicodeDecodeError"
    if dialect == "gemini":
        assert clients["google-genai"]["word"] == "agrees"
    code, out, _ = _analyze(capsys, str(path))
    assert code == 1 and f"\n{reasons[0]}\n" in out
