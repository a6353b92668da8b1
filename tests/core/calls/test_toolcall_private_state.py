"""A :class:`~inspector.core.calls.toolcall.ToolCall` keeps its state compact in private slots
(one fragment without a list, one piece of text without a list, the rare record made at first
need); only the call itself reads or writes them. The accumulator's hot path goes through
``ToolCall.take`` instead of writing them inline, so the compact forms stay the call's to
change."""

from __future__ import annotations

import ast
from pathlib import Path

import inspector
from inspector.core.calls.toolcall import ToolCall

PACKAGE = Path(inspector.__file__).parent
TOOLCALL = PACKAGE / "core" / "calls" / "toolcall.py"
PRIVATE = frozenset(s for s in ToolCall.__slots__ if s.startswith("_") and not s.startswith("__"))


def foreign_uses(source: str, private: frozenset[str]) -> list[tuple[int, str]]:
    """(line, attribute) of every read or write of one of ``private`` on anything but
    ``self``."""
    return sorted(
        (node.lineno, node.attr)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr in private
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    )


def test_only_a_call_touches_its_private_slots() -> None:
    assert {"_first", "_frags", "_joined", "_parts", "_rare"} <= PRIVATE
    modules = [p for p in sorted(PACKAGE.rglob("*.py")) if p != TOOLCALL]
    assert len(modules) > 100
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: .{attr}"
        for path in modules
        for line, attr in foreign_uses(path.read_text(encoding="utf-8"), PRIVATE)
    ]
    assert not found, "a ToolCall's private slots used from outside:\n" + "\n".join(found)


def test_a_write_from_outside_is_found() -> None:
    source = (
        "def add(self, call, d):\n"
        "    frags = call._frags\n"
        "    call._joined = None\n"
        "    self._frags = []\n"
    )
    assert foreign_uses(source, PRIVATE) == [(2, "_frags"), (3, "_joined")]
