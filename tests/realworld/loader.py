"""Read ``../shared/fixtures/realworld``: every ``NAME.sse`` with its ``NAME.json`` ground truth.

Invariants:
- The folder is read in place (never copied into the project). When it is missing, empty, or a
  stream lacks its ground truth, :func:`realworld_streams` raises :class:`MissingFixtures`: a
  checkout without ``../shared`` can never pass by iterating over nothing.
- :data:`SPOKEN` names the dialects the inspector speaks today (as the ground truth spells
  them); streams of other dialects (Bedrock, Cohere, Gemini Interactions, legacy completions)
  are left to the dialects issue and skipped by ``spoken=True``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
REALWORLD = REPO.parent / "shared" / "fixtures" / "realworld"

SPOKEN = frozenset({"openai-chat", "openai-responses", "anthropic", "gemini"})
"""The ground truth's ``dialect`` of the streams of the four dialects spoken today."""


class MissingFixtures(RuntimeError):
    """The realworld folder is missing, empty, or a stream has no ground truth."""


@dataclass(frozen=True)
class TruthItem:
    """One tool-call item of a stream, as the ground truth counted it."""

    id: str | None
    name: str
    item: str  # ``function`` for a call the agent executes, else the wire item type
    client_side: bool
    arguments: str | None


@dataclass(frozen=True)
class RealStream:
    """A recorded stream and its ground truth."""

    name: str  # the file's stem (``openai-custom-tool.1``)
    folder: str  # the provider folder (``openai-responses``, ``azure`` …)
    path: Path
    dialect: str
    provider: str
    items: tuple[TruthItem, ...]

    @property
    def body(self) -> bytes:
        return self.path.read_bytes()

    @property
    def key(self) -> str:
        return f"{self.folder}/{self.name}"


def _truth(path: Path) -> dict[str, Any]:
    truth = path.with_suffix(".json")
    if not truth.exists():
        raise MissingFixtures(f"{path} has no ground truth {truth.name}")
    doc = json.loads(truth.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("calls"), list):
        raise MissingFixtures(f"{truth} is not a ground-truth document (no 'calls' list)")
    return doc


def realworld_streams(root: Path = REALWORLD, spoken: bool = True) -> list[RealStream]:
    """Every stream under ``root``, sorted by folder and name (``spoken``: only those of
    :data:`SPOKEN`). Never empty: raises :class:`MissingFixtures` instead."""
    if not root.is_dir():
        raise MissingFixtures(
            f"the real recorded streams folder {root} is missing: the tests read them from "
            "../shared/fixtures/realworld beside the checkout"
        )
    paths = sorted(root.glob("*/*.sse"))
    if not paths:
        raise MissingFixtures(f"the real recorded streams folder {root} holds no .sse stream")
    out = []
    for path in paths:
        doc = _truth(path)
        dialect = str(doc.get("dialect"))
        if spoken and dialect not in SPOKEN:
            continue
        items = tuple(
            TruthItem(
                c.get("id"),
                c.get("name") or "",
                c["item"],
                bool(c["client_side"]),
                c.get("arguments"),
            )
            for c in doc["calls"]
        )
        out.append(RealStream(path.stem, path.parent.name, path, dialect,
                              str(doc.get("provider")), items))  # fmt: skip
    if not out:
        raise MissingFixtures(f"no stream of {sorted(SPOKEN)} under {root}")
    return out
