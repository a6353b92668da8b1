"""Every verified client replica gives what its real library gave, on every stream (offline).

The goldens (``tests/clients/goldens/<replica>.json``) are written by ``make verify-clients``
from the real libraries; here each replica in ``VERIFIED`` runs through the judge's own
driver (``run_replica``) on each stream's final-attempt Exchange and must hand over the same
calls and raise the same error (``clients.compare`` states the rule), one test per
(replica, stream). The corpus and the goldens must also cover each other.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from clients.compare import mismatch, outcome_of
from clients.streams import Stream, all_streams
from clients.verify import GOLDENS, golden_path, load_golden
from conftest import all_real_fixtures

from inspector.core.clients.base import Replica
from inspector.core.clients.judge import run_replica
from inspector.core.clients.registry import REPLICAS, VERIFIED

RERUN = "run make verify-clients (tests/clients/goldens/README.md)"
VERIFIED_REPLICAS = [r for r in REPLICAS if r.name in VERIFIED]

XAI_ANNOTATION = (
    "@ai-sdk/openai's chunk schema refuses xAI's url_citation annotations (no start/end "
    "index): a TypeValidationError part whose zod message is not modelled"
)
KNOWN_GAPS: dict[tuple[str, str], str] = {
    ("vercel-ai", stream): why
    for stream, why in {
        "realworld/xai-responses/xai-web-search-tool.1": XAI_ANNOTATION,
        "realworld/xai-responses/xai-x-search-tool": XAI_ANNOTATION,
        "demo/bedrock-converse/demo-args-object": (
            "@ai-sdk/amazon-bedrock's chunk schema (zod union) rejects toolUse.input sent as an "
            "object with a TypeValidationError whose issue list is not modelled"
        ),
    }.items()
}
"""Golden streams a verified replica is known to get wrong, each with why: run as strict
xfails, so a gap that closes fails until it is struck from this list (the report lists them)."""


@cache
def streams() -> dict[str, Stream]:
    """Every stream by id (analyses load once per session)."""
    return {s.id: s for s in all_streams(all_real_fixtures())}


def golden_cases() -> list[Any]:
    cases = []
    for replica in VERIFIED_REPLICAS:
        doc = load_golden(golden_path(replica.name))
        for stream_id, want in (doc or {}).get("streams", {}).items():
            gap = KNOWN_GAPS.get((replica.name, stream_id))
            marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
            cases.append(
                pytest.param(
                    replica, stream_id, want, id=f"{replica.name}:{stream_id}", marks=marks
                )
            )
    return cases


@pytest.mark.parametrize(("replica", "stream_id", "golden"), golden_cases())
def test_replica_gives_what_its_library_gave(
    replica: Replica, stream_id: str, golden: dict[str, Any]
) -> None:
    stream = streams().get(stream_id)
    assert stream is not None, f"{stream_id}: in the {replica.name} golden, not in the corpus"
    result = run_replica(replica, stream.exchange(), stream.expected(), stream.view.failed)
    problem = mismatch(stream_id, golden, outcome_of(result), who=replica.name)
    assert problem is None, problem


def test_some_replica_is_verified() -> None:
    assert VERIFIED, "no replica is verified: VERIFIED in inspector/core/clients/registry.py"


def test_every_verified_name_is_a_replica() -> None:
    names = {r.name for r in REPLICAS}
    assert names >= VERIFIED, f"VERIFIED names no replica: {sorted(VERIFIED - names)}"


@pytest.mark.parametrize("replica", VERIFIED_REPLICAS, ids=lambda r: r.name)
def test_a_verified_replica_has_goldens_of_its_library(replica: Replica) -> None:
    doc = load_golden(golden_path(replica.name))
    assert doc is not None, f"{replica.name} is verified but has no golden: {RERUN}"
    assert doc["streams"], f"the {replica.name} golden holds no stream: {RERUN}"
    assert (doc["replica"], doc["library"], doc["version"]) == (
        replica.name, replica.library, replica.version
    ), f"the {replica.name} golden was written by another library or version: {RERUN}"  # fmt: skip


@pytest.mark.parametrize("replica", VERIFIED_REPLICAS, ids=lambda r: r.name)
def test_a_golden_covers_every_stream_of_its_dialects(replica: Replica) -> None:
    doc = load_golden(golden_path(replica.name)) or {"streams": {}}
    want = {i for i, s in streams().items() if s.dialect in replica.dialects}
    assert any(i.startswith("real/") for i in want), f"{replica.name}: no real stream to hold"
    missing, extra = sorted(want - set(doc["streams"])), sorted(set(doc["streams"]) - want)
    assert not missing and not extra, (
        f"the {replica.name} golden is out of date with the streams: {RERUN}\n"
        f"  missing: {missing}\n  not a stream of its dialects: {extra}"
    )


def test_every_golden_file_names_a_replica() -> None:
    files = sorted(GOLDENS.glob("*.json"))
    assert files, f"no golden in {GOLDENS}: {RERUN}"
    names = {r.name for r in REPLICAS}
    for path in files:
        doc = json.loads(path.read_text())
        assert doc.get("replica") == path.stem, f"{path.name} says it is {doc.get('replica')!r}"
        assert path.stem in names, f"{path.name}: no replica {path.stem!r} in REPLICAS"
