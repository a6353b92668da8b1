"""``make check-matrix-html``: render a ``matrix.html`` in Debian's Chromium (headless) at a
presenter's screen sizes and check that an audience can read it: every column reachable by
scrolling the table's box (the client columns n/a on every row too, their "show them" box
ticked for the checks), its header cell in sight once scrolled to, never under the sticky
target column; the header rows and the target column still in sight when the table is
scrolled to its far corner; the table's box inside the window. A screenshot of each size is
written beside the page (``matrix-1280x800.png`` …) for a person to look at.

Usage: ``python scripts/matrix_chromium.py MATRIX_HTML [WxH ...]`` (default 1280x800).
Exit 0: every check held; 1: a check failed (each printed); 2: no Chromium or no page.

Chromium is driven over its DevTools protocol on a pipe (``--remote-debugging-pipe``: file
descriptors 3 and 4, NUL-terminated JSON), so nothing beyond the Debian package is needed (no
browser download, no driver, no websocket library). The page keeps its no-script rule: the
checks run as DevTools evaluations from outside it.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CHECK_JS = r"""
(() => {
  const box = document.querySelector('div.scroll');
  const table = document.querySelector('table.matrix');
  if (!box || !table) return {fail: ['no div.scroll holding table.matrix']};
  const fail = [];
  const W = window.innerWidth, H = window.innerHeight;
  const b = box.getBoundingClientRect();
  if (b.right > W + 0.5)
    fail.push(`the table's box ends at ${b.right}px, past the window's ${W}px`);
  if (document.documentElement.scrollWidth > W + 0.5)
    fail.push(`the page itself scrolls sideways (${document.documentElement.scrollWidth}px)`);
  const na = document.getElementById('show-na');  // columns n/a on every row: shown for the
  if (na) na.checked = true;                       // checks, hidden again after
  const corner = table.querySelector('thead th.corner');
  const heads = [...table.querySelectorAll('thead tr:nth-child(2) th')];
  let reached = 0;
  for (const th of heads) {
    box.scrollLeft = 0; box.scrollTop = 0;
    box.scrollLeft = Math.max(0, th.offsetLeft - corner.offsetWidth);
    const r = th.getBoundingClientRect(), c = corner.getBoundingClientRect();
    const inBox = r.left >= b.left - 0.5 && r.right <= b.right + 0.5;
    const clear = r.left >= c.right - 1.5;
    if (inBox && clear) reached++;
    else fail.push(`column "${th.textContent}" not reachable: [${r.left}, ${r.right}] in box ` +
                   `[${b.left}, ${b.right}], target column ends ${c.right}`);
  }
  box.scrollLeft = box.scrollWidth; box.scrollTop = box.scrollHeight;
  const t = table.querySelector('thead').getBoundingClientRect();
  if (Math.abs(t.top - b.top) > 2)
    fail.push(`header at ${t.top}px after scrolling, box top ${b.top}px`);
  const firstRow = table.querySelector('tbody th[scope=row]');
  if (firstRow) {
    const f = firstRow.getBoundingClientRect();
    if (Math.abs(f.left - b.left) > 2)
      fail.push(`target column at ${f.left}px after scrolling right`);
  }
  const rows = table.querySelectorAll('tbody tr');
  const last = rows[rows.length - 1].getBoundingClientRect();
  if (last.bottom > b.bottom + 0.5 || last.bottom > H + 0.5)
    fail.push(`last row not reachable (bottom ${last.bottom}px, box bottom ${b.bottom}px)`);
  const scrolled = box.scrollLeft > 0 || box.scrollWidth <= box.clientWidth;
  if (!scrolled) fail.push('the box did not scroll sideways');
  box.scrollLeft = 0; box.scrollTop = 0;
  const overflow = box.scrollWidth - box.clientWidth;
  if (na) na.checked = false;
  return {fail, columns: heads.length, reached, box: [b.width, b.height], overflow};
})()
"""


class Chromium:
    """One headless Chromium on a DevTools pipe (see the module docstring)."""

    def __init__(self, binary: str, profile: str) -> None:
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()

        def fds() -> None:  # the child's fd 3 reads our commands, fd 4 writes its answers
            a, b = os.dup(to_child_r), os.dup(from_child_w)  # above 4: no dup2 clobbers one
            os.dup2(a, 3, inheritable=True)
            os.dup2(b, 4, inheritable=True)

        args = [binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--hide-scrollbars=false", "--no-first-run",
                f"--user-data-dir={profile}", "about:blank"]  # fmt: skip
        self.proc = subprocess.Popen(
            args, preexec_fn=fds, close_fds=False,  # pass_fds would close 3 and 4 after fds()
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                chunk = os.read(self._r, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error'].get('message')}")
                return dict(answer.get("result", {}))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def check(page: Path, sizes: list[tuple[int, int]], binary: str) -> list[str]:
    """Every failure at every size (empty: all held); screenshots written beside ``page``."""
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as profile:
        chrome = Chromium(binary, profile)
        try:
            target = chrome.call("Target.createTarget", url="about:blank")["targetId"]
            s = chrome.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            for w, h in sizes:
                chrome.call("Emulation.setDeviceMetricsOverride", s, width=w, height=h,
                            deviceScaleFactor=1, mobile=False)  # fmt: skip
                chrome.call("Page.navigate", s, url=page.resolve().as_uri())
                for _ in range(200):
                    ready = chrome.call("Runtime.evaluate", s, expression="document.readyState")
                    if ready["result"].get("value") == "complete":
                        break
                out = chrome.call("Runtime.evaluate", s, expression=CHECK_JS, returnByValue=True)
                value = out["result"].get("value") or {"fail": [str(out)]}
                shot = chrome.call("Page.captureScreenshot", s, format="png")
                png = page.parent / f"matrix-{w}x{h}.png"
                png.write_bytes(base64.b64decode(shot["data"]))
                print(f"{w}x{h}: {value.get('reached')}/{value.get('columns')} columns "
                      f"reachable, box {value.get('box')}, overflow {value.get('overflow')} px "
                      f"-> {png}")  # fmt: skip
                failures += [f"{w}x{h}: {f}" for f in value["fail"]]
        finally:
            chrome.close()
    return failures


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: matrix_chromium.py MATRIX_HTML [WxH ...]", file=sys.stderr)
        return 2
    page = Path(argv[0])
    if not page.is_file():
        print(f"{page}: no such file (run the matrix first)", file=sys.stderr)
        return 2
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        print("no chromium on PATH: apt-get install -y chromium", file=sys.stderr)
        return 2
    sizes = [tuple(int(n) for n in a.split("x")) for a in argv[1:]] or [(1280, 800)]
    failures = check(page, sizes, binary)  # type: ignore[arg-type]
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
