"""The quirk registry is the one home of the quirk codes: every code spelled once (in
``inspector/core/quirks/codes.py``, never as a bare string elsewhere in the package), each with
one entry whose fields hold (family and detector, scope, severity, references, expected), and
docs/quirks.md explaining exactly the registry's codes, a section each, in report order."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import inspector
from inspector.core.providers import REGISTRY as PROVIDERS
from inspector.core.quirks import codes
from inspector.core.quirks.codes import ORDER
from inspector.core.quirks.registry import BY_CODE, PROVIDER_CHECKS, REGISTRY
from inspector.core.quirks.registry.info import DOC, SEVERITIES, QuirkInfo

PACKAGE = Path(inspector.__file__).parent
REPO = PACKAGE.parent
CODES_MODULE = PACKAGE / "core" / "quirks" / "codes.py"


def bare_codes(source: str, known: frozenset[str]) -> list[tuple[int, str]]:
    """(line, code) of every string literal in ``source`` that is exactly a quirk code (an
    f-string's literal parts included; prose that mentions a code is no such literal)."""
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known
    )


def test_no_quirk_code_is_a_bare_string_outside_the_codes_module() -> None:
    known = frozenset(ORDER)
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 100 and CODES_MODULE in modules  # the package itself
    found = [
        f"{path.relative_to(REPO)}:{line}: {code!r}"
        for path in modules
        if path != CODES_MODULE
        for line, code in bare_codes(path.read_text(encoding="utf-8"), known)
    ]
    assert not found, "quirk codes written as strings (import them from codes.py):\n" + "\n".join(
        found
    )


def test_a_bare_code_is_found_and_a_mention_in_prose_is_not() -> None:
    known = frozenset({"missing_done", "null_id"})
    source = (
        '"""Names ``missing_done`` in prose."""\n'
        "x = 1\n"
        "checks = frozenset({'missing_done'})\n"
        'note = f"{x} null_id"\n'
        "y = ('null_id' if x else None)\n"
    )
    assert bare_codes(source, known) == [(3, "missing_done"), (5, "null_id")]


def test_the_codes_module_spells_each_code_once_as_its_constant_name() -> None:
    constants = {n: v for n, v in vars(codes).items() if n.isupper() and isinstance(v, str)}
    assert len(constants) == len(ORDER) == len(set(ORDER)) == 46
    assert all(value == name.lower() for name, value in constants.items())
    assert list(constants.values()) == list(ORDER)  # defined in report order
    source = CODES_MODULE.read_text(encoding="utf-8")
    assert bare_codes(source, frozenset(ORDER)) == sorted(
        (source[: source.index(f'"{c}"')].count("\n") + 1, c) for c in ORDER
    )


def test_the_registry_has_one_entry_per_code_in_report_order() -> None:
    assert [q.code for q in REGISTRY] == list(ORDER) == list(BY_CODE)
    assert all(isinstance(q, QuirkInfo) for q in REGISTRY)


@pytest.mark.parametrize("info", REGISTRY, ids=lambda q: q.code)
def test_an_entry_names_its_family_detector_and_where_it_is_explained(info: QuirkInfo) -> None:
    assert info.detector and info.detector[0].split(".")[0] == info.family
    for module in info.detector:  # each detector names the code's constant (it reports it)
        source = Path(importlib.import_module(f"inspector.core.quirks.{module}").__file__ or "")
        assert re.search(rf"\b{info.code.upper()}\b", source.read_text(encoding="utf-8")), module
    assert info.anchor == f"{DOC}#{info.code}"
    assert info.severity in SEVERITIES
    assert info.meaning and info.meaning == info.meaning.strip() and "\n" not in info.meaning
    assert not info.expected or info.expected.endswith(".")
    assert len(set(info.references)) == len(info.references)
    assert all(re.fullmatch(r"https://[\w.-]+/\S+", ref) for ref in info.references)


def test_most_entries_carry_their_reports_and_what_was_expected() -> None:
    """The bug reports are written from these fields: a registry that loses them fails."""
    referenced = [q.code for q in REGISTRY if q.references]
    expected = [q.code for q in REGISTRY if q.expected]
    assert len(referenced) >= 38 and len(expected) >= 36
    # an empty value is an honest "none known", kept to the codes that have none
    assert {q.code for q in REGISTRY if not q.references} == {
        codes.NULL_ID,
        codes.USAGE_ONLY_CHUNK,
        codes.WIRE_FIELD_TYPE,
        codes.INVALID_UTF8,
        codes.ARGUMENTS_ONLY_IN_DONE,
        codes.DONE_ARGUMENTS_MISMATCH,
        codes.MISSING_FINISH_REASON,
    }


def test_the_provider_dependent_codes_are_the_checks_providers_may_list() -> None:
    dependent = {q.code for q in REGISTRY if q.scope == "provider-dependent"}
    assert dependent == PROVIDER_CHECKS and len(dependent) == 6
    assert {q.scope for q in REGISTRY} == {"every dialect", "provider-dependent"}
    for provider in PROVIDERS:
        assert provider.checks <= PROVIDER_CHECKS, provider.name


def _doc_sections() -> list[str]:
    text = (REPO / DOC).read_text(encoding="utf-8")
    return re.findall(r"^## `(\w+)`$", text, re.M)


def test_docs_explain_every_registry_code_and_no_other_in_report_order() -> None:
    sections = _doc_sections()
    assert sections == list(ORDER)  # every code documented, none documented but missing
    # the anchor a heading gets on GitHub is the code itself (backticks dropped)
    assert {q.anchor.split("#", 1)[1] for q in REGISTRY} == set(sections)


def test_a_documented_code_missing_from_the_registry_would_be_found() -> None:
    text = (REPO / DOC).read_text(encoding="utf-8") + "\n## `made_up_quirk`\n"
    assert re.findall(r"^## `(\w+)`$", text, re.M) != list(ORDER)
