"""The shape of the code, checked: the import graph of the whole ``inspector`` package has no
cycle, no client replica imports another, and no module of the product is over the 600-line
backstop.

No cycle: every module of ``inspector`` (core, net, ui, cli) can be read (and imported) after
the modules it imports, never halfway through one of them. import-linter's ``layers``
contracts (pyproject.toml) order the core's stages and the window's parts; this test also
covers the modules inside one stage or part, and imports made only for type checking (a cycle
there still ties two modules together for a reader, and for mypy: a window feature that names
the main window back for its type is such a knot).

Replicas stand alone: a client replica's package (``inspector.core.clients.<library>``) imports
the driver and the packages replicas share, never another replica's, so a new replica is a
folder and a registry line.

Module size: modules are sized by concept, not by a line cap (DEVELOPERS.md, "Size by
concept": most are ~100-300 lines; a concept that outgrows a file becomes a folder). A line
count is a smell, never the reason to split: a module nearing 600 lines (counted as ``ruff
format`` leaves it) most likely holds more than one idea, and this backstop fails so someone
looks for the seam. Split along that seam (or make the concept a folder) rather than raise the
backstop."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest

import inspector

PACKAGE = "inspector"
CORE = "inspector.core"
CLIENTS = "inspector.core.clients"
MAX_LINES = 600  # a backstop, not a target (see the module docstring)


def imports_within(
    root: str = PACKAGE, graph: grimp.ImportGraph | None = None
) -> dict[str, set[str]]:
    """Each module of ``root`` (a package), with the modules of ``root`` it imports directly
    (imports made only for type checking included)."""
    graph = graph or grimp.build_graph("inspector")
    modules = {m for m in graph.modules if m == root or m.startswith(root + ".")}
    return {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}


def cycles(imports: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The import cycles of ``imports``: each strongly connected group of two or more modules
    (or a module that imports itself), as one path around it (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(imports):
        if root in index:
            continue
        work = [(root, iter(sorted(imports[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(imports.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in imports.get(node, ()):
                    groups.append(_path(sorted(group), imports))
    return groups


def _path(group: list[str], imports: Mapping[str, Iterable[str]]) -> list[str]:
    """A readable cycle through ``group``: from its first module, along imports inside the
    group, back to a module already on the path."""
    members, path = set(group), [group[0]]
    while True:
        nxt = min(m for m in imports[path[-1]] if m in members)
        if nxt in path:
            return [*path[path.index(nxt) :], nxt]
        path.append(nxt)


def test_the_package_has_no_import_cycle() -> None:
    imports = imports_within()
    assert any(m.startswith("inspector.ui.") for m in imports)  # the whole package, ui included
    assert any(m.startswith("inspector.cli") for m in imports)
    found = cycles(imports)
    assert not found, "import cycles in inspector:\n" + "\n".join(" -> ".join(c) for c in found)


@pytest.mark.parametrize(
    ("imports", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b", "a"]]),
        ({"a": {"a"}}, [["a", "a"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"b", "d"}, "d": set()}, [["b", "c", "b"]]),
        ({"x": {"y"}, "y": {"z"}, "z": {"x"}, "q": {"x"}}, [["x", "y", "z", "x"]]),
    ],
)
def test_cycles_finds_every_cycle_and_only_cycles(
    imports: dict[str, set[str]], expected: list[list[str]]
) -> None:
    assert cycles(imports) == expected


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("inspector.core.base.model", "inspector.core.reports.report"),
        ("inspector.ui.har.har", "inspector.ui.shell.mainwindow"),  # a feature naming the window
        ("inspector.ui.clients.follow", "inspector.ui.views.views"),
    ],
)
def test_a_cycle_added_anywhere_is_found(importer: str, imported: str) -> None:
    graph = grimp.build_graph("inspector")
    assert not cycles(imports_within(graph=graph))
    graph.add_import(importer=importer, imported=imported)
    found = cycles(imports_within(graph=graph))
    assert any(importer in c and imported in c for c in found), found


def replica_packages() -> set[str]:
    """The package of every registered replica's class (``inspector.core.clients.<library>``)."""
    from inspector.core.clients.registry import REPLICAS

    return {type(r).__module__.rsplit(".", 1)[0] for r in REPLICAS}


def crossings(graph: grimp.ImportGraph, packages: set[str]) -> list[tuple[str, str]]:
    """(importer, imported) of every import from one of ``packages`` into another."""

    def owner(module: str) -> str | None:
        return next((p for p in packages if module == p or module.startswith(p + ".")), None)

    found = []
    for module in sorted(graph.modules):
        mine = owner(module)
        if mine is None:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            theirs = owner(imported)
            if theirs is not None and theirs != mine:
                found.append((module, imported))
    return found


def test_each_replica_is_a_package_of_its_own_and_imports_no_other() -> None:
    packages = replica_packages()
    assert len(packages) >= 7  # openai_python, litellm, langchain, vercel_ai, anthropic_sdk, …
    assert all(p.startswith(CLIENTS + ".") and p.count(".") == 3 for p in packages), packages
    found = crossings(grimp.build_graph("inspector"), packages)
    assert not found, "replicas importing another replica's package: " + ", ".join(
        f"{a} -> {b}" for a, b in found
    )


def test_a_replica_importing_another_is_found() -> None:
    graph = grimp.build_graph("inspector")
    graph.add_import(
        importer="inspector.core.clients.litellm.builder",
        imported="inspector.core.clients.langchain.merge",
    )
    found = crossings(graph, replica_packages())
    assert found == [
        ("inspector.core.clients.litellm.builder", "inspector.core.clients.langchain.merge")
    ]


def long_modules(root: Path, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """(path relative to ``root``'s parent, lines) of every ``.py`` file under ``root`` longer
    than ``limit`` lines, longest first."""
    sizes = [
        (path.relative_to(root.parent).as_posix(), len(path.read_bytes().splitlines()))
        for path in root.rglob("*.py")
    ]
    return sorted(((p, n) for p, n in sizes if n > limit), key=lambda s: (-s[1], s[0]))


def test_no_module_is_over_the_600_line_backstop() -> None:
    package = Path(inspector.__file__).parent
    assert len(list(package.rglob("*.py"))) > 50  # the package itself, not an empty folder
    found = long_modules(package)
    assert not found, (
        f"modules over the {MAX_LINES}-line backstop (split each along a real seam, or make its "
        "concept a folder: DEVELOPERS.md, 'Size by concept'): "
        + ", ".join(f"{p} ({n})" for p, n in found)
    )


def test_a_long_module_is_found(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "short.py").write_text("x = 1\n" * MAX_LINES)
    (tmp_path / "pkg" / "sub" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert long_modules(tmp_path / "pkg") == [("pkg/sub/long.py", MAX_LINES + 1)]
