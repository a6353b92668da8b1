"""matrix.md and matrix.html (inspector.core.matrix.exports): the Markdown table's shape and
legend; the HTML parsed as a browser would (html5lib), self-contained (no URL, script, font or
image from outside the matrix folder), each cell linking to its capture, words beside colours.
"""

from __future__ import annotations

from pathlib import Path

import html5lib

from inspector.core.matrix.cells import Cell, CellRun, ClientOutcome, ErrorInfo
from inspector.core.matrix.exports import (
    client_column,
    local_href,
    to_html,
    to_markdown,
    write_exports,
)
from inspector.core.matrix.result import MatrixResult, Row

NS = "{http://www.w3.org/1999/xhtml}"
REPLICAS = ["openai-python", "litellm"]


def _run(n: int, word: str, capture: str | None, **kw: object) -> CellRun:
    clients = {
        "openai-python": ClientOutcome("agrees", True),
        "litellm": ClientOutcome("merged" if word == "breaks clients" else "agrees",
                                 word != "breaks clients"),
    }  # fmt: skip
    return CellRun(n, word, capture, clients=clients, **kw)  # type: ignore[arg-type]


def sample_result() -> MatrixResult:
    """Two targets x three scenarios, one flaky cell, one error, one pending, one capture
    path that tries to leave the folder."""
    rows = [
        Row("demo/clean", "demo", "openai-chat", "clean"),
        Row("demo/merge|pipe", "demo", "openai-chat", "merge"),
    ]
    cols = ["weather", "parallel", "trip"]
    cells = {(r.name, c): Cell(r.name, c) for r in rows for c in cols}
    cells[("demo/clean", "weather")].runs = [
        _run(1, "pass", "captures/clean weather 1.jsonl"),
        _run(2, "quirk", "captures/clean-weather-2.jsonl", quirks=("empty_id",)),
        _run(3, "invalid", "captures/clean-weather-3.jsonl"),
    ]
    cells[("demo/clean", "parallel")].runs = [_run(1, "pass", "captures/clean-parallel.jsonl")]
    cells[("demo/merge|pipe", "weather")].runs = [
        _run(1, "breaks clients", "captures/merge-weather.jsonl")
    ]
    cells[("demo/merge|pipe", "parallel")].runs = [
        _run(1, "error", "../outside.jsonl", error=ErrorInfo("ReadTimeout", "no byte in 5 s"))
    ]
    return MatrixResult(None, rows, cols, cells, REPLICAS, "2026-12-02T02:00:00Z", 3.2,
                        {"runs": 3, "validation": "structural"})  # fmt: skip


def test_markdown_is_one_table_row_per_target_with_scenarios_then_clients() -> None:
    md = to_markdown(sample_result())
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table) == 2 + 2  # header, rule, one row per target
    head = table[0]
    assert head == (
        "| target | clients | weather | parallel | trip | client: openai-python | client: litellm |"
    )
    assert table[1] == "|---|---|---|---|---|---|---|"
    widths = {len(line.replace("\\|", "").split("|")) for line in table}
    assert widths == {9}, table  # every row has as many cells as the header
    first, second = table[2], table[3]
    assert first.startswith("| demo/clean | no client breaks |")
    assert "| breaks litellm |" in second
    assert "Which clients break: litellm on 1 of 2 (demo/merge|pipe)" in md
    assert "| ✖ INVALID 2/3 |" in first  # worst word, passing runs over runs
    assert "| ✔ pass 1/1 |" in first and "| … pending |" in first
    assert "demo/merge\\|pipe" in second  # a pipe in a name does not split the row
    assert "| ✗ breaks clients 0/1 |" in second and "| ✖ error 0/1 |" in second
    assert "| ✓ agrees 2/2 | ✗ merged 1/2 |" in second  # litellm merged one run's calls
    assert "| ✓ agrees 4/4 |" in first
    legend = md.split(table[-1], 1)[1]
    for word in (
        "✔ pass",
        "◐ quirk",
        "✗ breaks clients",
        "↻ retried",
        "∅ no call",
        "≠ wrong calls",
        "⊘ skipped",
    ):
        assert f"- **{word}**: " in legend, word
    assert "2 targets × 3 scenarios, 3 runs per cell, validation structural" in md


def _parse(text: str) -> object:
    parser = html5lib.HTMLParser(strict=True)  # a parse error raises
    return parser.parse(text)


def test_html_parses_and_refers_to_nothing_outside_the_matrix_folder(tmp_path: Path) -> None:
    md, html = write_exports(sample_result(), tmp_path / "out")
    assert md.read_text(encoding="utf-8").startswith("## Compatibility matrix")
    text = html.read_text(encoding="utf-8")
    doc = _parse(text)
    assert (
        "http://" not in text
        and "https://" not in text
        and "//" not in text.replace("://", "").split("<style>")[0]
    )
    assert "@import" not in text and "url(" not in text
    tags = [el.tag.removeprefix(NS) for el in doc.iter()]  # type: ignore[attr-defined]
    for banned in ("script", "link", "img", "iframe", "object", "embed", "base"):
        assert banned not in tags, banned
    refs = [
        (el.tag.removeprefix(NS), attr, el.get(attr))
        for el in doc.iter()  # type: ignore[attr-defined]
        for attr in ("src", "href")
        if el.get(attr) is not None
    ]
    assert refs, "no cell links to its capture"
    out = (tmp_path / "out").resolve()
    for _tag, _attr, value in refs:
        assert "://" not in value and not value.startswith("/"), value
        assert (out / value.replace("%20", " ")).resolve().is_relative_to(out), value
    hrefs = [v for _t, _a, v in refs]
    assert "captures/clean%20weather%201.jsonl" in hrefs
    assert not any("outside" in h for h in hrefs)  # the path that leaves the folder: no link


def test_html_cells_carry_words_colours_and_each_runs_capture() -> None:
    doc = _parse(to_html(sample_result()))
    cells = [el for el in doc.iter() if el.tag == NS + "td"]  # type: ignore[attr-defined]
    classes = {"".join(el.itertext()): el.get("class") for el in cells}
    flaky = next(t for t in classes if t.startswith("✖ INVALID"))
    assert classes[flaky] == "w-invalid" and "2/3" in flaky and "runs 1 2 3" in flaky
    assert classes["✔ pass 1/1"] == "w-pass"
    assert classes["… pending"] == "w-pending"  # a cell not run yet is never blank
    assert classes["✓ 4/4agrees"].endswith("w-agrees")  # symbol, rate, then the word
    assert "client first-client w-agrees" in classes.values()  # the group's first column
    titled = [el for el in doc.iter() if el.get("title")]  # type: ignore[attr-defined]
    assert any("ReadTimeout: no byte in 5 s" in el.get("title") for el in titled)
    headers = ["".join(el.itertext()) for el in doc.iter() if el.tag == NS + "th"]  # type: ignore[attr-defined]
    assert headers[:3] == ["target", "scenarios", "clients"]


def test_client_column_and_links() -> None:
    r = sample_result()
    assert client_column(r, "demo/clean", "litellm").text == "✓ agrees 4/4"
    assert client_column(r, "demo/merge|pipe", "litellm").word == "merged"
    assert local_href("captures/a b.jsonl") == "captures/a%20b.jsonl"
    for bad in ("/etc/passwd", "../x.jsonl", "https://x/y", "c:\\x", None, ""):
        assert local_href(bad) is None, bad


def test_html_structure_keeps_header_and_targets_in_sight_with_a_key_above() -> None:
    """The structure a browser needs to keep the matrix readable on a laptop screen: the table
    in its own scrolling box, the header rows and the target column sticky, a key of every
    word before the table, and every row as wide as the header."""
    result = sample_result()
    text = to_html(result)
    doc = _parse(text)
    body = next(el for el in doc.iter() if el.tag == NS + "body")  # type: ignore[attr-defined]
    order = [el for el in body.iter() if el.get("class") in ("legend-top", "scroll")]
    assert [el.get("class") for el in order] == ["legend-top", "scroll"]  # key, then table
    key = "".join(order[0].itertext())
    for word in ("✔ pass", "◐ quirk", "✗ breaks clients", "≠ wrong calls", "✖ error"):
        assert word in key, word
    scroll = order[1]
    (table,) = [el for el in scroll if el.tag == NS + "table"]
    assert table.get("class") == "matrix"
    style = next(el for el in doc.iter() if el.tag == NS + "style").text  # type: ignore[attr-defined]
    assert "div.scroll{overflow:auto;" in style
    assert "table.matrix thead{position:sticky;top:0" in style
    assert "table.matrix th[scope=row],table.matrix th.corner{position:sticky;left:0" in style
    assert "border-collapse:separate" in style  # sticky cells keep their borders
    thead, tbody = [el for el in table if el.tag in (NS + "thead", NS + "tbody")]
    head_rows = [el for el in thead if el.tag == NS + "tr"]
    assert len(head_rows) == 2
    assert head_rows[0][0].get("class") == "corner" and head_rows[0][0].get("rowspan") == "2"
    width = len(result.scenarios) + len(result.replicas)
    assert len(head_rows[1]) == width
    rows = [el for el in tbody if el.tag == NS + "tr"]
    assert len(rows) == len(result.rows)
    for row in rows:
        assert row[0].tag == NS + "th" and row[0].get("scope") == "row"
        assert len(row) == 1 + width, "".join(row.itertext())
