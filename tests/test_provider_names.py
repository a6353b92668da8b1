"""No stage names a provider: outside ``inspector/core/providers/`` (and the demo provider, which
plays each wire) no dialect's name or registry constant is compared or branched on, and none is
written as a string where a dialect is named: what names one imports the registry's constants.

The check reads the source (``ast``), so it sees ``x == GEMINI``, ``d in (CHAT, RESPONSES)``
through an alias, ``"anthropic" != d``, a ``match`` case and ``dialects = {"gemini"}`` alike;
the first tests below show it failing on each.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from inspector.core import providers as registry_module
from inspector.core.providers import REGISTRY

ROOT = Path(__file__).resolve().parents[1] / "inspector"
NAMES = frozenset(REGISTRY.names())
CONSTANTS = frozenset(
    k for k, v in vars(registry_module).items() if isinstance(v, str) and v in NAMES
)
ALLOWED_LITERALS = {
    "library": "a client library's own name (the anthropic SDK is called anthropic)",
    "Profile": "a profile's own name (the anthropic profile), its first argument",
}
"""Where a string equal to a dialect's name names something else."""


def _aliases(tree: ast.AST) -> set[str]:
    """Local names bound to a dialect's name: imported registry constants (or a provider
    package's ``NAME``), and names assigned one of those or a name as a string."""
    refs: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "inspector.core.providers"
        ):
            refs |= {a.asname or a.name for a in node.names if a.name in CONSTANTS | {"NAME"}}
    grew = True
    while grew:
        grew = False
        for node in ast.walk(tree):
            target, value = _assigned(node)
            if target is not None and target not in refs and _names(value, refs):
                refs.add(target)
                grew = True
    return refs


def _assigned(node: ast.AST) -> tuple[str | None, ast.AST | None]:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (target.id if isinstance(target, ast.Name) else None), node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id, node.value
    return None, None


def _names(node: ast.AST | None, refs: set[str]) -> bool:
    """Does ``node`` name a dialect: a name's string, a constant, or a collection of them?"""
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, ast.Name):
        return node.id in refs
    if isinstance(node, ast.Attribute):
        return node.attr in CONSTANTS
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names(e, refs) for e in node.elts)
    if isinstance(node, ast.Call):  # frozenset({...}), set(...)
        return any(_names(a, refs) for a in node.args)
    return False


def offences(source: str) -> list[str]:
    """Each comparison, branch or dialect-naming string of ``source`` that names a dialect."""
    tree = ast.parse(source)
    refs = _aliases(tree)
    found: list[str] = []
    allowed: set[int] = set()
    for node in ast.walk(tree):
        target, value = _assigned(node)
        if target in ALLOWED_LITERALS and isinstance(value, ast.Constant):
            allowed.add(id(value))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ALLOWED_LITERALS:
            allowed |= {id(a) for a in node.args[:1]}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
            _names(n, refs) for n in (node.left, *node.comparators)
        ):
            found.append(f"{node.lineno}: compares a dialect's name")
        elif isinstance(node, ast.MatchValue) and _names(node.value, refs):
            found.append(f"{node.lineno}: branches on a dialect's name")
        elif isinstance(node, ast.Constant) and node.value in NAMES and id(node) not in allowed:
            found.append(f"{node.lineno}: writes a dialect's name {node.value!r}")
    return found


@pytest.mark.parametrize(
    "source",
    [
        "from inspector.core.providers import GEMINI\nif shape == GEMINI:\n    pass\n",
        "from inspector.core.providers import OPENAI_CHAT as CHAT\nok = d in (CHAT, 'x')\n",
        "from inspector.core.providers import OPENAI_CHAT\nCHAT = OPENAI_CHAT\nok = CHAT != d\n",
        "from inspector.core import providers\nok = d is providers.ANTHROPIC\n",
        "ok = 'anthropic' == d\n",
        "match d:\n    case 'gemini':\n        pass\n",
        "dialects = frozenset({'gemini'})\n",
        "x = Settings(dialect='openai-responses')\n",
    ],
)
def test_the_guard_finds_each_way_of_naming_a_dialect(source: str) -> None:
    assert offences(source)


def test_the_guard_lets_data_and_other_names_through() -> None:
    source = (
        "from inspector.core.providers import GEMINI, OPENAI_CHAT\n"
        "dialects = frozenset({GEMINI})\n"
        "RUNS = {OPENAI_CHAT: 1}\n"
        "run = RUNS[d]\n"
        "library = 'anthropic'\n"
        "p = Profile('gemini', GEMINI, 'https://h', 'm')\n"
        "ok = d in RUNS and provider.name == other.name\n"
    )
    assert offences(source) == []


def test_no_provider_name_is_compared_or_written_outside_the_providers_package() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{where}"
        for path in sorted(ROOT.rglob("*.py"))
        if not {"providers", "demo"} & set(path.relative_to(ROOT).parts)
        for where in offences(path.read_text())
    ]
    assert not found, "\n".join(found)
    assert {"OPENAI_CHAT", "OPENAI_RESPONSES", "ANTHROPIC", "GEMINI"} <= CONSTANTS
    assert {
        "COHERE_V2",
        "GEMINI_INTERACTIONS",
        "OPENAI_COMPLETIONS",
        "BEDROCK_CONVERSE",
    } <= CONSTANTS
