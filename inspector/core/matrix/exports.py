"""A matrix's readable exports: ``matrix.md`` (a GitHub table with a legend, for a README or an
issue) and ``matrix.html`` (one self-contained page), beside ``matrix.json``.

Both show the same table: one row per target, one column per scenario, then the client-replica
column group (one column per replica: over the row's runs, how often that client got the right
calls). A cell says its word with its symbol and its pass rate (``✔ pass 3/3``). Above the
table, which clients break (overall); beside each target's name, the clients it breaks; a
client column ``n/a`` on every row is left out of ``matrix.md`` and hidden in ``matrix.html``
behind a "show them" checkbox (CSS only), both named (:mod:`.audience`).

Invariants:
- Colour is never alone: every cell carries its word and symbol; the colours only repeat them.
- ``matrix.html`` stands alone: inline CSS, no script, no font, no image, no URL outside the
  matrix folder. A cell links to its capture by its relative path, and only when that path
  stays inside the folder (no absolute path, no ``..``, no scheme).
- ``matrix.html`` reads on a laptop's screen: its first screen is the title, a key of every
  word in its colours and the table's box (``div.scroll``, the rest of the window's height),
  in which the header rows and the target column are sticky, so every column is reachable at
  1280 wide with its name in sight; the full legend follows below
  (``make check-matrix-html`` renders it in Chromium and checks it).
- Pure: the exports are text from a :class:`~.result.MatrixResult`; :func:`write_exports` is
  the only function that writes, and it writes only the two files, each by rename
  (:func:`~.folder.write_file`).
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from pathlib import Path, PurePosixPath
from typing import Final
from urllib.parse import quote

from inspector.core.base.settings import DEFAULT_MODE
from inspector.core.matrix.audience import (
    ClientColumn,
    breaks_line,
    client_column,
    hidden_line,
    na_everywhere,
    row_line,
)
from inspector.core.matrix.cells import PRECEDENCE, Cell
from inspector.core.matrix.folder import write_file
from inspector.core.matrix.result import MatrixResult
from inspector.core.reports.words import MEANING, SYMBOL, label

__all__ = [
    "COLOURS",
    "HTML",
    "MARKDOWN",
    "ClientColumn",
    "cell_details",
    "cell_text",
    "client_column",
    "legend_words",
    "local_href",
    "summary",
    "to_html",
    "to_markdown",
    "write_exports",
]
"""``ClientColumn`` and ``client_column`` live in :mod:`.audience`, and are read here too."""

MARKDOWN: Final = "matrix.md"
HTML: Final = "matrix.html"

COLOURS: Final[dict[str, tuple[str, str, str, str]]] = {
    "pass": ("#1b5e20", "#e8f5e9", "#a5d6a7", "#1e3a23"),
    "not checked": ("#424242", "#f5f5f5", "#bdbdbd", "#2e2e2e"),
    "quirk": ("#5d4300", "#fff8e1", "#ffe082", "#3d3419"),
    "breaks clients": ("#8a3a00", "#ffe0b2", "#ffb74d", "#4a2c12"),
    "retried": ("#6a1b9a", "#f3e5f5", "#ce93d8", "#3b2142"),
    "invalid": ("#b71c1c", "#ffebee", "#ef9a9a", "#4a1f1f"),
    "no call": ("#880e4f", "#fce4ec", "#f48fb1", "#47202f"),
    "wrong calls": ("#4e342e", "#efe3dc", "#d7b8a8", "#3e2a22"),
    "error": ("#ffffff", "#c62828", "#ffffff", "#8e1c1c"),
    "skipped": ("#616161", "#e0e0e0", "#9e9e9e", "#333333"),
    "pending": ("#1565c0", "#e3f2fd", "#90caf9", "#1c2f45"),
    "agrees": ("#1b5e20", "#e8f5e9", "#a5d6a7", "#1e3a23"),
    "breaks": ("#8a3a00", "#ffe0b2", "#ffb74d", "#4a2c12"),
    "n/a": ("#616161", "#f5f5f5", "#9e9e9e", "#2e2e2e"),
}
"""Word -> (text, background) in light, then (text, background) in dark; ``breaks`` stands for
every client word that means a client would not get the calls."""


def cell_text(cell: Cell) -> str:
    """``✔ pass 3/3``: the cell's word with its symbol and its pass rate (``… pending``)."""
    text = label(cell.word)
    return text if cell.word == "pending" else f"{text} {cell.pass_rate}"


def cell_details(cell: Cell) -> str:
    """One line per run: its word, and what explains it (error, skip reason, expectation
    missed, quirks, retry), for a tooltip or a title attribute."""
    lines = [f"{cell.target} × {cell.scenario}: {cell.word} ({cell.pass_rate} passed)"]
    for run in cell.runs:
        why = [run.error.type + ": " + run.error.message] if run.error else []
        why += [run.skipped] if run.skipped else []
        why += list(run.expect_failures)
        if run.text_calls:
            n = run.text_calls
            why.append(f"{n} call{'s' if n != 1 else ''} written as text (no client's calls)")
        why += [f"retried: {run.retry_reason}"] if run.retried and run.retry_reason else []
        why += ["quirks: " + ", ".join(run.quirks)] if run.quirks else []
        lines.append(f"run {run.run}: {run.word}" + (" — " + "; ".join(why) if why else ""))
    return "\n".join(lines)


def local_href(path: str | None) -> str | None:
    """``path`` as a link relative to the matrix folder, or None when it would leave it."""
    if not path or "\\" in path or ":" in path:
        return None
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts:
        return None
    return quote(str(p))


def summary(result: MatrixResult) -> str:
    """``3 targets × 7 scenarios, 1 run per cell, validation structural · 18/21 cells pass``."""
    spec = result.spec_json
    runs = spec.get("runs", 1)
    cells = list(result)
    passing = sum(1 for c in cells if c.runs and c.passed == len(c.runs))
    parts = [
        f"{len(result.rows)} targets × {len(result.scenarios)} scenarios",
        f"{runs} run{'s' if runs != 1 else ''} per cell",
        f"validation {spec.get('validation', DEFAULT_MODE)}",
    ]
    line = ", ".join(parts) + f" · {passing}/{len(cells)} cells pass every run"
    if result.started:
        line += f" · started {result.started}, took {result.duration:.1f} s"
    return line


def legend_words(result: MatrixResult) -> list[str]:
    """The cell words the legend explains, in precedence order (all of them, so a reader of
    one matrix learns the whole vocabulary)."""
    return [w for w in PRECEDENCE if w != "pending" or any(c.word == "pending" for c in result)]


# -- Markdown ----------------------------------------------------------------------------


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(result: MatrixResult) -> str:
    """``matrix.md``: a heading, the summary and which-clients-break lines, the table (a
    target's breaking clients beside its name; the client columns ``n/a`` on every row left
    out, and named) and its legend."""
    hidden = na_everywhere(result)
    shown = [r for r in result.replicas if r not in hidden]
    head = ["target", "clients", *result.scenarios, *(f"client: {r}" for r in shown)]
    lines = ["## Compatibility matrix", "", summary(result), "", breaks_line(result), ""]
    if hidden:
        lines += [hidden_line(hidden) + ".", ""]
    lines += [
        "| " + " | ".join(_md(h) for h in head) + " |",
        "|" + "|".join("---" for _ in head) + "|",
    ]
    for row in result.rows:
        cells = [row_line(result, row.name)]
        cells += [cell_text(result.cell(row.name, col)) for col in result.scenarios]
        cells += [client_column(result, row.name, r).text for r in shown]
        lines.append("| " + " | ".join(_md(c) for c in [row.name, *cells]) + " |")
    lines += ["", "Each cell: its worst run's word, then the runs that passed over the runs made."]
    lines += ["A `client:` column: what that client library made of the row's runs "]
    lines[-1] += "(its worst word; runs it got the right calls for / runs it was judged on)."
    lines += [""] + [f"- **{label(w)}**: {MEANING.get(w, '')}" for w in legend_words(result)]
    return "\n".join(lines) + "\n"


# -- HTML --------------------------------------------------------------------------------

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#212121;background:#fff}
main.screen{display:flex;flex-direction:column;box-sizing:border-box;height:100vh;
 padding:1em 1.5em}
main.screen>*{flex:none}
.after{padding:0 1.5em 1em}
h1{font-size:1.3em;margin:0 0 .3em}
p.summary{color:#555;margin:0 0 .5em}
div.scroll{overflow:auto;flex:1 1 auto;min-height:8em;max-width:100%;border:1px solid #ccc}
table{border-collapse:separate;border-spacing:0}
th,td{border:1px solid #ccc;border-width:0 1px 1px 0;padding:4px 8px;text-align:left;
 white-space:nowrap}
th{background:#f0f0f0;font-weight:600}
table.matrix thead{position:sticky;top:0;z-index:2}
table.matrix th[scope=row],table.matrix th.corner{position:sticky;left:0;z-index:1}
table.matrix th.corner{z-index:3}
table.matrix th[scope=row]{white-space:normal;overflow-wrap:anywhere;min-width:9em;
 max-width:14em}
.legend-top{margin:0 0 .6em;line-height:1.9}
.legend-top span{padding:1px 6px;margin-right:.3em;border-radius:3px;white-space:nowrap}
th.group{text-align:left}
td.client,th.client{border-left-width:1px}
td.first-client,th.first-client{border-left:3px solid #888}
td a{color:inherit;text-decoration:none}
td a:hover{text-decoration:underline}
.cw{font-size:.85em}
th.client{white-space:normal;min-width:4.5em}
.rate{font-variant-numeric:tabular-nums;opacity:.85}
.runs{font-size:.8em}
.legend td{white-space:normal}
p.breaks{margin:0 0 .5em;font-weight:600}
.rowbreaks{display:block;font-weight:400;font-size:.8em;opacity:.85}
.na{display:none}
main:has(#show-na:checked) .na{display:table-cell}
p.show-na{margin:0 0 .5em;color:#555}
@media (prefers-color-scheme:dark){
 body{color:#dfe1e5;background:#1e1f22}
 th{background:#2b2d30}
 th,td{border-color:#444}
 p.summary{color:#aaa}
}
"""


def _word_css() -> str:
    light = [f".w-{_slug(w)}{{color:{c[0]};background:{c[1]}}}" for w, c in COLOURS.items()]
    dark = [f".w-{_slug(w)}{{color:{c[2]};background:{c[3]}}}" for w, c in COLOURS.items()]
    return "\n".join(light) + "\n@media (prefers-color-scheme:dark){" + "".join(dark) + "}\n"


def _slug(word: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in word)


def _link(text: str, href: str | None, title: str = "") -> str:
    t = f' title="{escape(title)}"' if title else ""
    if href is None:
        return f"<span{t}>{escape(text)}</span>"
    return f'<a href="{escape(href)}"{t}>{escape(text)}</a>'


def _html_cell(cell: Cell) -> str:
    runs = [r for r in cell.runs]
    first = next((local_href(r.capture) for r in runs if local_href(r.capture)), None)
    body = _link(label(cell.word), first, cell_details(cell))
    if runs:
        body += f' <span class="rate">{escape(cell.pass_rate)}</span>'
    if len(runs) > 1:  # each run's capture, by number
        links = [_link(str(r.run), local_href(r.capture), r.word) for r in runs]
        body += ' <span class="runs">runs ' + " ".join(links) + "</span>"
    return f'<td class="w-{_slug(cell.word)}">{body}</td>'


def _client_html(cc: ClientColumn) -> str:
    """Narrow: ``✓ 6/6`` over ``agrees`` (``n/a`` alone)."""
    if not cc.judged:
        return escape(label(cc.word))
    symbol = SYMBOL.get(cc.word, "")
    return f'{escape(symbol)} {cc.right}/{cc.judged}<br><span class="cw">{escape(cc.word)}</span>'


def _client_order(result: MatrixResult) -> tuple[list[str], list[str]]:
    """(the client columns shown, those hidden: ``n/a`` on every row), shown ones first."""
    hidden = na_everywhere(result)
    return [r for r in result.replicas if r not in hidden], hidden


def _rows_html(result: MatrixResult) -> Iterable[str]:
    shown, hidden = _client_order(result)
    for row in result.rows:
        tip = f"{row.profile} · {row.dialect} · {row.model}"
        said = f'<span class="rowbreaks">{escape(row_line(result, row.name))}</span>'
        out = [f'<tr><th scope="row" title="{escape(tip)}">{escape(row.name)}{said}</th>']
        out += [_html_cell(result.cell(row.name, col)) for col in result.scenarios]
        for i, replica in enumerate([*shown, *hidden]):
            cc = client_column(result, row.name, replica)
            first = " first-client" if i == 0 else ""
            na = " na" if replica in hidden else ""
            cls = f"client{first}{na} w-{_slug(cc.colour_key)}"
            out.append(f'<td class="{cls}">{_client_html(cc)}</td>')
        yield "".join(out) + "</tr>"


def _key_html(result: MatrixResult) -> str:
    """The key above the table: every cell word (and a client's agree / break) in its colours,
    its meaning in its title; the full legend table follows the matrix."""
    chips = [
        f'<span class="w-{_slug(w)}" title="{escape(MEANING.get(w, ""))}">{escape(label(w))}</span>'
        for w in legend_words(result)
    ]
    chips += [
        f'<span class="w-agrees" title="{escape(MEANING.get("agrees", ""))}">client '
        f"{escape(label('agrees'))}</span>",
        '<span class="w-breaks" title="the client would not get the calls">client ✗ breaks '
        "(merged, cut arguments, …)</span>",
    ]
    return "<b>Key</b> " + " ".join(chips)  # spaces: the key wraps between its words


def to_html(result: MatrixResult) -> str:
    """``matrix.html``: one self-contained page (see the module docstring)."""
    shown, hidden = _client_order(result)
    n_s = len(result.scenarios)
    group = f'<th colspan="{n_s}" class="group">scenarios</th>'
    if shown:
        group += f'<th colspan="{len(shown)}" class="group first-client">clients</th>'
    if hidden:
        group += f'<th colspan="{len(hidden)}" class="group na">clients n/a on every row</th>'
    names = [f'<th scope="col">{escape(s)}</th>' for s in result.scenarios]
    names += [
        f'<th scope="col" class="client{" first-client" if i == 0 else ""}'
        f'{" na" if r in hidden else ""}">{escape(r).replace("-", "-<wbr>")}</th>'
        for i, r in enumerate([*shown, *hidden])
    ]
    toggle = []
    if hidden:
        toggle = [
            f'<p class="show-na"><label><input type="checkbox" id="show-na"> show them: '
            f"{escape(hidden_line(hidden))}</label></p>",
        ]
    legend = "".join(
        f'<tr><td class="w-{_slug(w)}">{escape(label(w))}</td><td>{escape(MEANING.get(w, ""))}'
        "</td></tr>"
        for w in legend_words(result)
    )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            "<title>Compatibility matrix</title>",
            f"<style>{_CSS}{_word_css()}</style></head><body>",
            '<main class="screen">',  # the first screen: title, key and the table's box
            "<h1>Compatibility matrix</h1>",
            f'<p class="summary">{escape(summary(result))}</p>',
            f'<p class="breaks">{escape(breaks_line(result))}</p>',
            f'<p class="legend-top">{_key_html(result)}</p>',
            *toggle,
            '<div class="scroll"><table class="matrix"><thead>',
            f'<tr><th rowspan="2" scope="col" class="corner">target</th>{group}</tr>',
            f"<tr>{''.join(names)}</tr></thead><tbody>",
            *_rows_html(result),
            "</tbody></table></div></main>",
            '<div class="after">',
            "<p>Each cell: its worst run's word, then the runs that passed over the runs made; "
            "click it for its capture. A client column: that library's worst word over the "
            "row's runs, and the runs it got the right calls for.</p>",
            f'<table class="legend"><tbody>{legend}</tbody></table></div>',
            "</body></html>",
            "",
        ]
    )


def write_exports(result: MatrixResult, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``matrix.md`` and ``matrix.html`` into ``out_dir`` (created if missing); return
    their paths. OSError propagates (the caller says it in one line)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md, html = out / MARKDOWN, out / HTML
    write_file(md, to_markdown(result).encode("utf-8"))
    write_file(html, to_html(result).encode("utf-8"))
    return md, html
