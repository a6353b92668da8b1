"""docs/quirks.md says, per quirk, which client replicas it breaks: measured by
scripts/quirk_clients.py over the demo provider's streams (tests/clients/corpus), and held to a
fresh measurement here so it cannot go stale."""

from __future__ import annotations

import importlib.util
import re
import sys
from types import ModuleType

import pytest
from conftest import REPO


@pytest.fixture(scope="module")
def script() -> ModuleType:
    path = REPO / "scripts" / "quirk_clients.py"
    spec = importlib.util.spec_from_file_location("quirk_clients", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["quirk_clients"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measured(script: ModuleType) -> dict[str, list[object]]:
    result: dict[str, list[object]] = script.measure()
    return result


def test_the_breaks_lines_are_the_measurement(
    script: ModuleType, measured: dict[str, list[object]]
) -> None:
    doc = (REPO / "docs" / "quirks.md").read_text(encoding="utf-8")
    assert script.render(doc, measured) == doc, "stale: run python scripts/quirk_clients.py"
    blocks = re.findall(r"<!-- breaks: (\w+) -->", doc)
    assert blocks == re.findall(r"^## `(\w+)`", doc, re.M)  # one per quirk section, in order
    assert blocks  # (tests/core/quirks/test_every_code.py holds the sections to the registry)


def test_render_adds_the_markers_once_and_leaves_the_prose(script: ModuleType) -> None:
    doc = "# Quirks\n\nintro\n\n## `a`\n\nabout a\n\n## `b`\n\nabout b\n"
    seen = {"a": [script.Seen("openai-chat/demo-x", ["b"], ["by-index (merged)"], 2)], "b": []}
    once = script.render(doc, seen)
    assert once == (
        "# Quirks\n\nintro\n\n## `a`\n\nabout a\n\n<!-- breaks: a -->\n"
        "- **Breaks (measured):** `openai-chat/demo-x` (also shows `b`): by-index (merged).\n"
        "<!-- /breaks -->\n\n## `b`\n\nabout b\n\n<!-- breaks: b -->\n"
        "- **Breaks (measured):** no demo-provider stream shows it, so nothing was measured.\n"
        "<!-- /breaks -->\n"
    )
    assert script.render(once, seen) == once
    seen["a"][0].broken = []
    assert "`openai-chat/demo-x` (also shows `b`): none of 2." in script.render(once, seen)


def test_parallel_calls_on_index_0_break_the_clients_that_key_by_index(
    measured: dict[str, list[object]],
) -> None:
    (seen,) = measured["index_reused_with_new_id"]
    assert seen.stream == "openai-chat/demo-parallel-index-0"  # type: ignore[attr-defined]
    broken = " ".join(seen.broken)  # type: ignore[attr-defined]
    for name in ("openai-python", "litellm", "by-index"):
        assert re.search(rf"\b{name}( \(unverified\))? \(merged\)", broken), broken
    assert "by-id" not in broken
