"""The plain-run rule (DEVELOPERS.md, "Speed"): a run's deltas are instances of a ``shared``
subclass of ``ToolCallDelta`` whose class holds most of their fields, so code that reads deltas
tells them apart by ``kind`` or ``isinstance``, never by their exact class. Only the run code
may compare a delta's class: the shape memo (``core/providers/shapememo/``), whose shapes make
those subclasses, and the two OpenAI dialects, whose full path makes the plain deltas a shape is
proved on; the delta log that stores keep-alive runs; and the quirk scan's plain run, which
compares a run's deltas with the run's own class."""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

import inspector

PACKAGE = Path(inspector.__file__).parent
RUN_CODE = (
    "core/providers/shapememo/",
    "core/providers/openai_chat/dialect.py",
    "core/providers/openai_responses/dialect.py",
    "core/calls/deltalog.py",
    "core/quirks/lanes/plainrun.py",
)
"""Where a delta's exact class may be compared (paths under ``inspector/``)."""


def _is_class_of(node: ast.expr) -> bool:
    """``type(x)`` or ``x.__class__``."""
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) == 1
    return isinstance(node, ast.Attribute) and node.attr == "__class__"


def _delta_classes(node: ast.expr) -> list[str]:
    """The delta classes ``node`` names (a class, or a tuple, list or set of them)."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    names = []
    for item in items:
        name = item.id if isinstance(item, ast.Name) else getattr(item, "attr", "")
        if name.endswith("Delta"):
            names.append(name)
    return names


def class_checks(source: str) -> list[tuple[int, str]]:
    """(line, delta class) of every comparison of a value's exact class with a delta class
    (``type(d) is ToolCallDelta``, ``d.__class__ == Delta``, ``type(d) in (Delta, …)``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for a, b in pairwise(sides):
            for one, other in ((a, b), (b, a)):
                if _is_class_of(one):
                    found += [(node.lineno, name) for name in _delta_classes(other)]
    return sorted(found)


def test_no_delta_class_is_compared_outside_the_run_code() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 100  # the package itself
    allowed = [m for m in modules if m.relative_to(PACKAGE).as_posix().startswith(RUN_CODE)]
    assert len(allowed) > 5 and all(p.exists() for p in allowed)
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name}"
        for path in modules
        if path not in allowed
        for line, name in class_checks(path.read_text(encoding="utf-8"))
    ]
    assert not found, "a delta's exact class compared (use isinstance or kind):\n" + "\n".join(
        found
    )


def test_the_run_code_does_compare_classes_so_the_check_reads_it() -> None:
    """The allowance is used: the run code's own class checks are found (if the search went
    blind, the test above would pass on anything)."""
    seen = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if class_checks(path.read_text(encoding="utf-8"))
    }
    assert "core/calls/deltalog.py" in seen
    assert "core/providers/shapememo/shape.py" in seen


def test_each_form_of_class_check_is_found_and_isinstance_is_not() -> None:
    source = (
        "if type(d) is ToolCallDelta: pass\n"
        "if d.__class__ == Delta: pass\n"
        "if type(d) in (Delta, model.ToolCallDelta): pass\n"
        "if ToolCallDelta is not type(d): pass\n"
        "if isinstance(d, ToolCallDelta) and d.kind == 'tool_call': pass\n"
        "if type(d) is str: pass\n"
    )
    assert class_checks(source) == [
        (1, "ToolCallDelta"),
        (2, "Delta"),
        (3, "Delta"),
        (3, "ToolCallDelta"),
        (4, "ToolCallDelta"),
    ]
