"""Checks of the built documentation site, and screenshots of its pages in a headless browser.

    mkdocs build --strict                                    # the site, into target/site
    python ci/render_docs.py target/site                     # static checks of every page
    python ci/render_docs.py target/site --png /tmp/docs-png index svc api "api#kernelkit.SVC"

Static checks (every page, no browser; .ci/run runs them): no script, stylesheet, font or image
is loaded from another host (the site must work offline: MathJax is served by the site itself,
Material's web fonts are off), no ``$`` of a formula is left in the text outside code
(math that pymdownx.arithmatex did not recognise, such as ``$x $`` with a space before the
closing ``$``, or a ``$$`` block not set off by blank lines), and no code fence (one whose
info string the Markdown extensions do not read). In the API reference, every class rendered
with a signature (its constructor's, which for an estimator are the parameters of
``get_params()``) lists exactly the signature's parameters, in its order, in its Parameters
table, and no placeholder of the shared docstring entries (``{{kernel, degree}}``, see
``python/kernelkit/_docstrings.py``) is left in the text: the docstrings read statically must
have been filled as they are at import time.

With ``--png OUT PAGE...``, each PAGE (a page of the site without ``.html``, optionally with an
``#anchor`` to scroll to) is also rendered by Debian's headless Chromium
(``apt-get install chromium-headless-shell``, or ``chromium``) into ``OUT/PAGE.png`` (the top
``--height`` pixels at ``--width``). The site is served from 127.0.0.1 by Python's HTTP server
(MathJax loads its fonts by URL, which ``file://`` pages may not), and the browser resolves no
other host. In the page's DOM after its scripts ran, MathJax must have typeset every
``arithmatex`` span, with no TeX delimiter left in the text and no formula in error.
The script exits non-zero when a check fails.
"""

from __future__ import annotations

import argparse
import ast
import functools
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")


def find_browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no headless Chromium: apt-get install chromium-headless-shell")


#: Injected into a page asked for as ``page.html?from=ID``: removes the article's content before
#: element ID (its earlier siblings, and those of each of its ancestors inside the article), so
#: that the screenshot starts there. (Headless Chromium's screenshot of a page scrolled to an
#: anchor comes out blank.)
_FROM_ANCHOR = """<script>
document.addEventListener("DOMContentLoaded", () => {
  let node = document.getElementById(%s);
  while (node && node.parentElement && !node.classList.contains("md-typeset")) {
    while (node.previousElementSibling) node.previousElementSibling.remove();
    node = node.parentElement;
  }
});
</script>"""


class _Handler(SimpleHTTPRequestHandler):
    """Serves the site quietly; ``?from=ID`` trims a page to start at element ID."""

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        anchor = urllib.parse.parse_qs(query).get("from")
        if not anchor or not path.endswith(".html"):
            super().do_GET()
            return
        page = Path(self.translate_path(path)).read_text(encoding="utf-8")
        script = _FROM_ANCHOR % json.dumps(anchor[0])
        body = page.replace("</head>", script + "</head>", 1).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _browser_args(browser: str, profile: Path, width: int, height: int) -> list[str]:
    return [
        browser,
        "--headless",
        "--no-sandbox",  # root in CI's containers
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={profile}",
        # Offline: only the local server resolves.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        f"--window-size={width},{height}",
        "--virtual-time-budget=15000",  # lets MathJax typeset before the capture
    ]


def _text_outside_code(page: str) -> str:
    """The visible text of an HTML page, without code, scripts and styles."""
    page = re.sub(r"<(script|style|code|pre)\b.*?</\1>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def check_page(name: str, page: str) -> list[str]:
    """What is wrong with a built page's HTML (empty: nothing)."""
    problems = []
    for tag in re.findall(r"<(?:script|link|img|source|iframe)\b[^>]*>", page):
        if re.search(r'\b(?:src|href)="(?:https?:)?//', tag) and not re.search(
            r'rel="(?:canonical|alternate)"', tag
        ):
            problems.append(f"{name}: loads from another host: {tag}")
    for css_url in re.findall(r"url\((?:'|\")?((?:https?:)?//[^)'\"]+)", page):
        problems.append(f"{name}: loads from another host: {css_url}")
    without_math = re.sub(r'<(span|div) class="arithmatex">.*?</\1>', "", page, flags=re.S)
    text = _text_outside_code(without_math)
    for left in re.findall(r".{0,30}\$.{0,30}", text):
        problems.append(f"{name}: a $ left in the text (math not recognised): {left!r}")
    for left in re.findall(r".{0,30}```.{0,30}", text):
        problems.append(f"{name}: a ``` left in the text (fence not recognised): {left!r}")
    return problems


#: The heading of an object of the API reference (mkdocstrings): its id is its import path.
_OBJECT_HEADING = re.compile(r'<h\d id="([\w.]+)" class="doc doc-heading">\s*<code class="([^"]*)"')
_SIGNATURE = re.compile(r'<div class="doc-signature highlight">.*?<code>(.*?)</code>', re.S)
_PARAMETERS = re.compile(
    r'<span class="doc-section-title">Parameters:</span>.*?<tbody>(.*?)</tbody>', re.S
)
_FIRST_CELL = re.compile(r'<tr class="doc-section-item">\s*<td>(.*?)</td>', re.S)


def _plain(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def _signature_parameters(signature: str) -> list[str]:
    """The parameter names of a rendered signature such as ``SVC(*, C=1.0, kernel="rbf")``."""
    text = _plain(signature)
    function = ast.parse(f"def f{text[text.index('(') :]}: pass").body[0]
    assert isinstance(function, ast.FunctionDef)
    arguments = function.args
    names = [a.arg for a in arguments.posonlyargs + arguments.args]
    names += [f"*{arguments.vararg.arg}"] if arguments.vararg else []
    names += [a.arg for a in arguments.kwonlyargs]
    names += [f"**{arguments.kwarg.arg}"] if arguments.kwarg else []
    return names


def check_api_parameters(name: str, page: str) -> list[str]:
    """What is wrong with the Parameters tables of a page of the API reference: each class
    with a signature (its constructor's; for an estimator, the parameters of ``get_params()``)
    must list the signature's parameters, and only them, in their order."""
    problems = []
    headings = list(_OBJECT_HEADING.finditer(page))
    for number, heading in enumerate(headings):
        end = headings[number + 1].start() if number + 1 < len(headings) else len(page)
        section = page[heading.end() : end]
        signature = _SIGNATURE.search(section)
        if "doc-symbol-class" not in heading.group(2) or signature is None:
            continue  # not a class, or one without a signature (a class of the Rust extension)
        expected = _signature_parameters(signature.group(1))
        table = _PARAMETERS.search(section)
        listed = [_plain(cell) for cell in _FIRST_CELL.findall(table.group(1))] if table else []
        if listed != expected:
            problems.append(
                f"{name}: {heading.group(1)} takes {expected} but its Parameters table lists "
                f"{listed}"
            )
    for left in re.findall(r".{0,30}\{\{[^{}]*\}\}.{0,30}", _text_outside_code(page)):
        problems.append(f"{name}: a shared docstring entry left unfilled: {left!r}")
    return problems


def check_site(site: Path) -> list[str]:
    pages = sorted(site.glob("*.html"))
    if not pages:
        return [f"{site} holds no page: build it first (mkdocs build --strict)"]
    problems = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        problems += check_page(page.name, text) + check_api_parameters(page.name, text)
    for css in sorted(site.rglob("*.css")):
        for url in re.findall(r"url\((?:'|\")?((?:https?:)?//[^)'\"]+)", css.read_text("utf-8")):
            problems.append(f"{css.relative_to(site)}: loads from another host: {url}")
    print(f"{site}: {len(pages)} pages checked, {len(problems)} problems")
    return problems


def check_math(page: str, dom: str) -> list[str]:
    """What is wrong with the typeset math of a page's DOM after its scripts ran."""
    problems = []
    spans = len(re.findall(r'class="arithmatex"', dom))
    typeset = len(re.findall(r"<mjx-container", dom))
    if spans and typeset < spans:
        problems.append(f"{page}: {spans} math spans, only {typeset} typeset by MathJax")
    if re.search(r"\\\(|\\\[", _text_outside_code(dom)):
        problems.append(f"{page}: TeX delimiters left in the text (math not typeset)")
    if "<mjx-merror" in dom:
        problems.append(f"{page}: MathJax reports an error in a formula")
    return problems


def render(site: Path, out: Path, pages: list[str], width: int, height: int) -> list[str]:
    browser = find_browser()
    out.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(_Handler, directory=str(site.resolve()))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    problems: list[str] = []
    try:
        for spec in pages:
            name, _, anchor = spec.partition("#")
            if not (site / f"{name}.html").is_file():
                problems.append(f"{name}.html is not in {site}")
                continue
            url = f"http://127.0.0.1:{server.server_port}/{name}.html"
            shot_url = f"{url}?{urllib.parse.urlencode({'from': anchor})}" if anchor else url
            png = out / (f"{name}-{anchor}.png" if anchor else f"{name}.png")
            with tempfile.TemporaryDirectory() as profile:
                args = _browser_args(browser, Path(profile), width, height)
                subprocess.run(
                    [*args, f"--screenshot={png.resolve()}", shot_url],
                    check=True,
                    capture_output=True,
                    timeout=120,
                )
            with tempfile.TemporaryDirectory() as profile:
                args = _browser_args(browser, Path(profile), width, height)
                dom = subprocess.run(
                    [*args, "--dump-dom", url],
                    check=True,
                    capture_output=True,
                    text=True,
                    timeout=120,
                ).stdout
            found = check_math(name, dom)
            problems += found
            spans = len(re.findall(r'class="arithmatex"', dom))
            typeset = len(re.findall(r"<mjx-container", dom))
            print(f"{png}: {spans} math spans, {typeset} typeset, {len(found)} problems")
    finally:
        server.shutdown()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the built site (mkdocs's site_dir)")
    parser.add_argument("--png", type=Path, metavar="OUT", help="render PAGES into OUT")
    parser.add_argument("pages", nargs="*", help="pages to render: index, svc, api#kernelkit.SVC")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=2000)
    options = parser.parse_intermixed_args()
    if options.pages and not options.png:
        parser.error("pages are rendered with --png OUT")

    problems = check_site(options.site)
    if options.png:
        problems += render(
            options.site, options.png, options.pages or ["index"], options.width, options.height
        )
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
