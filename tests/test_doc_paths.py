"""Every path the project's documents cite still exists, so a file that moves takes its
citations along: the README, DEVELOPERS.md, docs/, the Makefile and the READMEs of bench/,
tests/clients/goldens/ and resources/samples/ name files (``ui/shell/menus.py``), folders
(``core/clients/``), globs (``cli/matrix*.py``, ``core/reports/{clients,headline}.py``) and
modules run with ``python -m`` (as does the code: the read-ahead process).

A path is checked when its first folder is one of the project's own (a top-level folder, or a
package of ``inspector/`` or ``inspector/core/``); it may start at the repository, at
``inspector/`` or at ``inspector/core/``. Other paths (``captures/``, ``../shared/…``, a URL)
are examples or lie outside the checkout."""

from __future__ import annotations

import glob
import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOTS = (REPO, REPO / "inspector", REPO / "inspector" / "core")
DOCUMENTS = (
    REPO / "README.md",
    REPO / "DEVELOPERS.md",
    REPO / "Makefile",
    *sorted((REPO / "docs").glob("*.md")),
    REPO / "bench" / "README.md",
    REPO / "tests" / "clients" / "goldens" / "README.md",
    REPO / "resources" / "samples" / "README.md",
)
PATH = re.compile(
    r"(?<![\w/.<>-])((?:[\w.*{},-]+/)+(?:[\w.*{},-]+\.(?:py|md|sh|json|jsonl|toml|png))?)"
    r"(?![\w/<>])"
)
RUN_MODULE = re.compile(r"python -m\s+(inspector[\w.]*)")
CODE_MODULE = re.compile(r"\"-m\",\s*\"(inspector[\w.]*)\"")


def own_folders() -> set[str]:
    """The names a checked path may start with."""
    return {p.name for root in ROOTS for p in root.iterdir() if p.is_dir()} - {"__pycache__"}


def expand(cited: str) -> list[str]:
    """``a/{b,c}.py`` as ``a/b.py`` and ``a/c.py``."""
    m = re.search(r"\{([^}]*)\}", cited)
    if m is None:
        return [cited]
    return [
        x
        for alt in m.group(1).split(",")
        for x in expand(cited[: m.start()] + alt + cited[m.end() :])
    ]


def exists(cited: str) -> bool:
    return all(any(glob.glob(str(root / c)) for root in ROOTS) for c in expand(cited))


def cited_paths(text: str, own: set[str]) -> list[str]:
    """The project's own paths cited in ``text``."""
    found = []
    for m in PATH.finditer(text):
        cited = m.group(1)
        if cited.split("/", 1)[0] in own and "//" not in cited:
            found.append(cited)
    return found


def test_every_cited_path_exists() -> None:
    own = own_folders()
    assert {"inspector", "ui", "clients", "tests", "bench"} <= own
    checked, missing = 0, []
    for doc in DOCUMENTS:
        for cited in cited_paths(doc.read_text(encoding="utf-8"), own):
            checked += 1
            if not exists(cited):
                missing.append(f"{doc.relative_to(REPO)}: {cited}")
    assert checked > 100  # the documents were read
    assert not missing, "paths cited that do not exist:\n" + "\n".join(missing)


def test_every_module_run_with_python_m_exists() -> None:
    texts = [doc.read_text(encoding="utf-8") for doc in DOCUMENTS]
    code = [p.read_text(encoding="utf-8") for p in (REPO / "inspector").rglob("*.py")]
    modules = {m for t in texts for m in RUN_MODULE.findall(t)}
    modules |= {m for t in code for m in CODE_MODULE.findall(t)}
    assert "inspector.core.capture.ahead" in modules  # the read-ahead process, cited and run
    missing = sorted(m for m in modules if importlib.util.find_spec(m) is None)
    assert not missing, f"modules run with python -m that do not exist: {missing}"


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("see `ui/shell/menus.py: add_action`", True),
        ("`core/reports/{clients,headline}.py`", True),
        ("`cli/matrix*.py` and `ui/matrix/`", True),
        ("see `ui/menus.py`", False),
        ("`core/reports/{clients,nothing}.py`", False),
        ("`core/clients/openai_wire.py`", False),
    ],
)
def test_a_stale_path_is_found(text: str, ok: bool) -> None:
    paths = cited_paths(text, own_folders())
    assert paths
    assert all(exists(p) for p in paths) is ok
