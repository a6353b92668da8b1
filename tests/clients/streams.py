"""Every stream the client replicas are held to, and what a runner or a replica needs of one.

Stream ids:
- ``demo/<dialect>/<scenario>``: the capture ``corpus/<dialect>/<scenario>.jsonl``, recorded
  from the demo provider (:mod:`clients.record`); :func:`demo_plan` says which pairs exist:
  every scenario in each dialect where it has its own behaviour (``Scenario.dialects``), and
  the conforming scenario and every ``fault-…`` scenario in every dialect.
- ``real/<name>``: ``../shared/fixtures/real/<name>.sse``, its dialect from ``<name>.meta.json``;
  read in place, never copied (tests pass ``all_real_fixtures()`` from ``tests/conftest.py``).
- ``realworld/<provider>/<name>``: ``../shared/fixtures/realworld/<provider>/<name>.sse`` (the
  AI SDK's own recorded fixtures, README there), its dialect from ``<name>.json``, for the
  dialects the replicas speak (:data:`DIALECTS`); read in place (a missing or empty folder
  fails loudly, :func:`realworld_paths`).

Invariants:
- A stream is loaded as the inspector loads it (``Analysis.from_capture`` with the provider
  registry; a raw ``.sse`` body judged in its recorded dialect), and :meth:`Stream.exchange` is
  its final attempt's :class:`~inspector.core.clients.base.Exchange` as the judge builds it
  (:func:`~inspector.core.clients.judge.exchange_of`), so a replica reads what the real
  library was served. A raw body, which records no headers, was served as
  ``text/event-stream``, and its exchange says so.
- :meth:`Stream.tools` are the tools the request declared (name, description, JSON Schema);
  for a real stream whose meta names none, one permissive tool per call name in the stream.
- Enumerations are sorted by id, so goldens and reports list streams in one order.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from inspector.core.analysis.attempt import AttemptView
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.capture.records import Attempt, Capture
from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.judge import exchange_of, expected_calls
from inspector.core.providers import REGISTRY
from inspector.core.reports.gate import header_settings
from inspector.core.verdicts.tools import ToolRegistry
from inspector.net.demo import SCENARIOS

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
"""The recorded demo-provider captures, ``<dialect>/<scenario>.jsonl``."""
REAL_FIXTURES = HERE.parents[2] / "shared" / "fixtures" / "real"
"""The recorded provider streams beside the checkout (as ``tests/conftest.py`` finds them)."""
REALWORLD = HERE.parents[2] / "shared" / "fixtures" / "realworld"
"""The AI SDK's recorded provider streams, one folder per provider (README there)."""

DIALECTS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "cohere-v2",
    "bedrock-converse",
)
"""The dialects the demo provider speaks that a client replica reads, in the demo's order
(cohere-v2: only vercel-ai reads it, through ``@ai-sdk/cohere``)."""
REALWORLD_LABELS = {
    "cohere-v2-chat (unsupported)": "cohere-v2",
    "bedrock-converse-stream (unsupported)": "bedrock-converse",
}
"""A realworld ``.json``'s dialect label (written before the inspector spoke it) -> the dialect."""
CONFORMING = "demo-clean"
"""The scenario recorded in every dialect as the conforming stream."""
SSE = "text/event-stream"


@dataclass(frozen=True)
class Tool:
    """One tool the request declared, in neutral form."""

    name: str
    description: str | None
    parameters: dict[str, Any]
    """Its JSON Schema (an object schema; ``{"type": "object"}`` when it declared none)."""

    def openai(self) -> dict[str, Any]:
        """The OpenAI chat shape (the project's neutral form)."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description is not None:
            function["description"] = self.description
        return {"type": "function", "function": function}


@dataclass(frozen=True)
class Stream:
    """One stream: its id, its dialect, and where its bytes are."""

    id: str
    dialect: str
    path: Path

    @property
    def kind(self) -> str:
        """``demo``, ``real`` or ``realworld``."""
        return self.id.split("/", 1)[0]

    @property
    def recorded(self) -> bool:
        """A stream a provider sent (``real`` or ``realworld``), not the demo's."""
        return self.kind != "demo"

    @property
    def name(self) -> str:
        """The demo scenario or the real fixture's name."""
        return self.id.rsplit("/", 1)[1]

    @property
    def model(self) -> str:
        """The model a client asks for (the demo scenario; a real fixture's name)."""
        return self.name

    @cached_property
    def capture(self) -> Capture:
        """The capture (a raw ``.sse`` body reads as a one-attempt capture)."""
        return load(self.path)

    @cached_property
    def analysis(self) -> Analysis:
        """The stream as the inspector judges it."""
        settings = Settings(dialect=self.dialect if self.recorded else "auto")
        settings = header_settings(self.capture, settings, REGISTRY)
        return Analysis.from_capture(self.capture, settings, providers=REGISTRY)

    @property
    def view(self) -> AttemptView:
        """The final attempt: the one a client library reads."""
        return self.analysis.final

    @property
    def source(self) -> Attempt:
        """The final attempt's recorded request, response, chunks and end."""
        source = self.view.source
        assert source is not None, f"{self.id}: no attempt recorded"
        return source

    def exchange(self) -> Exchange:
        """What the client saw of the final attempt (see the module's invariants)."""
        exchange = exchange_of(self.view)
        if self.capture.kind == "raw-sse" and exchange.content_type is None:
            exchange = dataclasses.replace(exchange, content_type=SSE)
        return exchange

    def expected(self) -> list[HandedCall]:
        """The inspector's calls on the final attempt."""
        return expected_calls(self.view)

    def tools(self) -> list[Tool]:
        """The tools the request declared (see the module's invariants)."""
        if self.kind == "demo":
            return _registry_tools(
                ToolRegistry.from_definitions(self.capture.request_body, REGISTRY)
            )
        if self.kind == "realworld":
            names = [c["name"] for c in _meta(self.path).get("calls", []) if c.get("client_side")]
            names += [c.name for c in self.expected() if c.name]
            return [Tool(n, None, {"type": "object"}) for n in dict.fromkeys(names) if n]
        declared = _meta(self.path).get("tools")
        if isinstance(declared, list):
            return _registry_tools(ToolRegistry.from_definitions(declared, REGISTRY))
        names = dict.fromkeys(c.name for c in self.expected() if c.name)
        return [Tool(name, None, {"type": "object"}) for name in names]


def _registry_tools(registry: ToolRegistry) -> list[Tool]:
    return [
        Tool(spec.name, spec.description, spec.schema or {"type": "object", "properties": {}})
        for spec in registry
    ]


def _meta(path: Path) -> dict[str, Any]:
    meta_path = path.with_suffix(".meta.json")
    if path.parent.parent == REALWORLD:  # realworld/<provider>/<name>.json
        meta_path = path.with_suffix(".json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    return meta if isinstance(meta, dict) else {}


# -- enumerating -----------------------------------------------------------------------------


ANTHROPIC, BEDROCK = "anthropic", "bedrock-converse"
INVOKED = frozenset({CONFORMING})
"""Besides the Anthropic quirks, the scenarios recorded over InvokeModel too."""
NOT_INVOKED = frozenset({"demo-truncated-then-valid"})
"""Anthropic scenarios left out over InvokeModel: the demo plays it by attempt, counted per
conversation, and its Anthropic capture asks the same conversation."""
INVOKE = ".invoke"
"""The suffix of a Bedrock InvokeModelWithResponseStream capture's name (``demo-clean.invoke``:
the scenario's Anthropic Messages stream in Bedrock ``chunk`` frames)."""


def demo_plan() -> list[tuple[str, str]]:
    """Every (dialect, scenario) the corpus holds (see the module docstring), id-sorted; and,
    under ``bedrock-converse``, the conforming stream and each Anthropic quirk over InvokeModel
    (``NAME.invoke``; but :data:`NOT_INVOKED`)."""
    pairs = []
    for scenario in SCENARIOS.values():
        every = scenario.fault is not None or scenario.name == CONFORMING
        for dialect in DIALECTS if every else [d for d in scenario.dialects if d in DIALECTS]:
            pairs.append((dialect, scenario.name))
        quirk = scenario.fault is None and ANTHROPIC in scenario.dialects
        if (scenario.name in INVOKED or quirk) and scenario.name not in NOT_INVOKED:
            pairs.append((BEDROCK, scenario.name + INVOKE))
    return sorted(pairs)


def scenario_of(name: str) -> str:
    """The demo scenario a corpus stream plays (its name without :data:`INVOKE`)."""
    return name.removesuffix(INVOKE)


def demo_id(dialect: str, scenario: str) -> str:
    """``demo/<dialect>/<scenario>``."""
    return f"demo/{dialect}/{scenario}"


def corpus_path(dialect: str, scenario: str, corpus: Path = CORPUS) -> Path:
    """Where the capture of ``scenario`` in ``dialect`` lives."""
    return corpus / dialect / f"{scenario}.jsonl"


def demo_streams(corpus: Path = CORPUS) -> list[Stream]:
    """Every capture in the corpus, as a stream (whatever :func:`demo_plan` says)."""
    out = []
    for path in corpus.glob("*/*.jsonl"):
        dialect, scenario = path.parent.name, path.stem
        out.append(Stream(demo_id(dialect, scenario), dialect, path))
    return sorted(out, key=lambda s: s.id)


def real_fixture_paths() -> list[Path]:
    """Every recorded ``.sse`` beside the checkout; SystemExit with one line when none are."""
    paths = sorted(REAL_FIXTURES.glob("*.sse"))
    if not paths:
        raise SystemExit(f"no recorded streams in {REAL_FIXTURES} (../shared/fixtures/real)")
    return paths


def real_streams(paths: Iterable[Path] | None = None) -> list[Stream]:
    """The recorded streams (``paths``, default :func:`real_fixture_paths`), as streams."""
    out = []
    for path in real_fixture_paths() if paths is None else paths:
        dialect = _meta(path).get("dialect")
        if not isinstance(dialect, str):
            raise SystemExit(f"{path.with_suffix('.meta.json')}: no dialect")
        out.append(Stream(f"real/{path.stem}", dialect, path))
    return sorted(out, key=lambda s: s.id)


def _realworld_dialect(path: Path) -> str:
    label = str(_meta(path).get("dialect"))
    return REALWORLD_LABELS.get(label, label)


def realworld_paths(folder: Path = REALWORLD) -> list[Path]:
    """Every ``.sse`` under ``folder`` whose ``.json`` names a dialect of :data:`DIALECTS`,
    sorted; SystemExit with one line when the folder is missing or holds none."""
    every = sorted(folder.glob("*/*.sse"))
    if not every:
        state = "is empty" if folder.is_dir() else "is missing"
        raise SystemExit(
            f"the realworld streams folder {folder} {state} (../shared/fixtures/realworld)"
        )
    paths = []
    for path in every:
        if not path.with_suffix(".json").exists():
            raise SystemExit(f"{path}: no {path.with_suffix('.json').name} beside it")
        if _realworld_dialect(path) in DIALECTS:
            paths.append(path)
    return paths


def realworld_streams(paths: Iterable[Path] | None = None) -> list[Stream]:
    """The realworld streams of the replicas' dialects (``paths``, default
    :func:`realworld_paths`), as streams."""
    out = []
    for path in realworld_paths() if paths is None else paths:
        dialect = _realworld_dialect(path)
        out.append(Stream(f"realworld/{path.parent.name}/{path.stem}", dialect, path))
    return sorted(out, key=lambda s: s.id)


def all_streams(
    real: Iterable[Path] | None = None,
    corpus: Path = CORPUS,
    realworld: Iterable[Path] | None = None,
) -> list[Stream]:
    """The corpus's streams, then the recorded ones, then the realworld ones."""
    return [*demo_streams(corpus), *real_streams(real), *realworld_streams(realworld)]


def by_id(streams: Iterable[Stream]) -> dict[str, Stream]:
    """``streams`` keyed by id."""
    return {s.id: s for s in streams}
