"""What an audience reads first (inspector.core.matrix.audience): which clients break, overall
and beside each target, and the client columns that are ``n/a`` on every row, left out of
matrix.md and hidden in matrix.html behind a checkbox (both named)."""

from __future__ import annotations

import html5lib

from core.matrix.test_exports import REPLICAS, sample_result
from inspector.core.matrix.audience import breaks_line, na_everywhere, row_line
from inspector.core.matrix.cells import Cell, CellRun, ClientOutcome
from inspector.core.matrix.exports import to_html, to_markdown
from inspector.core.matrix.result import MatrixResult, Row

NS = "{http://www.w3.org/1999/xhtml}"


def with_speechless_client() -> MatrixResult:
    """The sample, plus ``anthropic-sdk``: n/a on every run (no target speaks Anthropic)."""
    result = sample_result()
    result.replicas = [*REPLICAS, "anthropic-sdk"]
    for cell in result:
        for run in cell.runs:
            run.clients["anthropic-sdk"] = ClientOutcome("n/a", None)
    return result


def test_the_overall_line_names_each_breaking_client_and_its_targets() -> None:
    result = sample_result()
    assert breaks_line(result) == (
        "Which clients break: litellm on 1 of 2 (demo/merge|pipe);"
        " every client got the calls on 1 of 2 targets."
    )
    assert row_line(result, "demo/clean") == "no client breaks"
    assert row_line(result, "demo/merge|pipe") == "breaks litellm"


def test_a_matrix_not_run_says_so_and_hides_nothing() -> None:
    rows = [Row("a", "demo", "openai-chat", "m")]
    result = MatrixResult(None, rows, ["weather"], {("a", "weather"): Cell("a", "weather")},
                          ["openai-python", "anthropic-sdk"])  # fmt: skip
    assert breaks_line(result) == "Which clients break: nothing has run yet."
    assert row_line(result, "a") == "not run" and na_everywhere(result) == []
    assert "client: anthropic-sdk" in to_markdown(result)


def test_no_breaking_client_is_said_plainly() -> None:
    rows = [Row("a", "demo", "openai-chat", "m")]
    cell = Cell("a", "weather")
    cell.runs = [CellRun(1, "pass", None, clients={"x": ClientOutcome("agrees", True)})]
    result = MatrixResult(None, rows, ["weather"], {("a", "weather"): cell}, ["x"])
    assert breaks_line(result) == (
        "Which clients break: none — every client got the calls on all 1 targets."
    )


def test_a_column_na_on_every_row_is_left_out_of_the_markdown_and_named() -> None:
    result = with_speechless_client()
    assert na_everywhere(result) == ["anthropic-sdk"]
    md = to_markdown(result)
    head = next(line for line in md.splitlines() if line.startswith("| target"))
    assert "anthropic-sdk" not in head and "client: litellm" in head
    assert "1 client column hidden (n/a on every row" in md and "): anthropic-sdk." in md


def test_the_html_hides_it_behind_a_checkbox_and_still_parses() -> None:
    text = to_html(with_speechless_client())
    doc = html5lib.HTMLParser(strict=True).parse(text)
    cells = [el for el in doc.iter() if el.tag in (NS + "td", NS + "th")]  # type: ignore[attr-defined]
    hidden = [el for el in cells if "na" in (el.get("class") or "").split()]
    assert len(hidden) == 1 + 1 + 2  # the group header, the name, one cell per row
    box = [el for el in doc.iter() if el.tag == NS + "input"]  # type: ignore[attr-defined]
    assert [(b.get("id"), b.get("type")) for b in box] == [("show-na", "checkbox")]
    assert "main:has(#show-na:checked) .na{display:table-cell}" in text
    assert '<label><input type="checkbox" id="show-na"> show them: 1 client column' in text
    assert '<p class="breaks">Which clients break: litellm on 1 of 2' in text
    assert '<span class="rowbreaks">breaks litellm</span>' in text
