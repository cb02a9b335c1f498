"""Obsidian's syntax on a built site (issue 34, "Syntax"): raw HTML through
the allow-list, custom task states, ``strictLineBreaks``, ``cssclasses``,
mermaid diagrams only where a page has one, and ``%% comments %%`` in no
output file.  Two small vaults, each built once through the CLI (in this
process)."""
from __future__ import annotations

import html
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path

import pytest

from site_fixtures import XSS_RECORD, assert_no_injected_markup, crawl

SECRET = "zebraquartz"          # written only in comments: in no output file

KEYS = """---
cssclasses: [wide-page, rk-record-page, "bad class!", cards]
---
Press <kbd>Ctrl</kbd> + <kbd>C</kbd>.<br>Then<sup>2</sup> <mark>marked</mark> <u>under</u>
<span style="color:red" onclick="alert(1)">red</span> <a href="javascript:alert(1)">js</a> <a href="https://example.org/">ok</a>
<img src="https://example.org/x.png" onerror="alert(1)"> <iframe src="https://example.org/"></iframe>
</div></article> closes nothing <b id="rk-q" class="rk-verdict-box">bold</b>

<details>
<summary>More</summary>

Inside **bold**, a link to [[Diagram]].

</details>

<script>window.__bad = 1</script>

- [?] a question
- [/] half done
- [-] dropped
- [>] moved
- [!] important
- [ ] open
- [x] done

First line
second line
"""

DIAGRAM = """A flowchart:

```mermaid
flowchart LR
  A[Start] --> B{Is it?}
  B -->|Yes| C[OK]
```
"""

SECRET_NOTE = f"""---
description: the public summary
---
Public words %%{SECRET} inline%% stay.

%%
a block comment, {SECRET} in it
%%

## Part

Shown part %%{SECRET} in the part%% here.
<!-- {SECRET} in an html comment -->
"""

EMBEDDER = f"""# The embedder %%{SECRET} in its title%%

Links to [[Secret]] %%{SECRET} beside the link%% and embeds its part:

![[Secret#Part]]

- a list item with [[Secret]] %%{SECRET} in an item%%

![[Diagram]]
"""


def _write(base: Path, files: dict) -> None:
    for rel, text in files.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


@contextmanager
def _cwd(path: Path):
    here = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(here)


def _build(base: Path) -> Path:
    from click.testing import CliRunner
    from recordkit.cli import main
    with _cwd(base):
        res = CliRunner().invoke(main, ["build", "-o", "site", "-q", "-j", "1"], catch_exceptions=False,
                                env={"RECORDKIT_CLEAN_EXIT": "1"})
    assert res.exit_code == 0, res.output
    return base / "site"


def _page(site: Path, stem: str) -> str:
    (p,) = [p for p in site.rglob("*.html") if p.stem == stem or p.stem.lower() == stem.lower()]
    return p.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def vault_site(tmp_path_factory):
    """An Obsidian vault (.obsidian/ without app.json: Obsidian's defaults)."""
    base = tmp_path_factory.mktemp("syntax") / "vault"
    (base / ".obsidian").mkdir(parents=True)
    _write(base, {"recordkit.toml": 'root = "."\nschema = "preset:obsidian"\nsite_url = "https://example.org/v/"\n',
                  "Keys.md": KEYS, "Diagram.md": DIAGRAM, "Secret.md": SECRET_NOTE, "Embedder.md": EMBEDDER,
                  "CLAIM-666.md": XSS_RECORD})
    return _build(base)


@pytest.fixture(scope="module")
def strict_site(tmp_path_factory):
    """The same notes but the diagram, with the vault's "Strict line breaks"
    on and the site's configuration keeping raw HTML as text."""
    base = tmp_path_factory.mktemp("strict") / "vault"
    (base / ".obsidian").mkdir(parents=True)
    (base / ".obsidian" / "app.json").write_text(json.dumps({"strictLineBreaks": True}))
    _write(base, {"recordkit.toml": 'root = "."\nschema = "preset:obsidian"\n\n[site]\nraw_html = "escape"\n',
                  "Keys.md": KEYS})
    return _build(base)


def test_raw_html_renders_through_the_allow_list(vault_site):
    page = _page(vault_site, "Keys")
    body = page[page.index('<div class="rk-body'):] if '<div class="rk-body' in page else page
    for shown in ("<kbd>Ctrl</kbd>", "<kbd>C</kbd>", "<br>", "<sup>2</sup>", "<mark>marked</mark>", "<u>under</u>",
                  "<span>red</span>", "<details>", "<summary>More</summary>", "<strong>bold</strong>",
                  '<a href="https://example.org/" rel="noopener noreferrer">ok</a>', "<b>bold</b>"):
        assert shown in body, shown
    # Markdown after a blank line inside <details> is Markdown (CommonMark), its link resolved
    details = body[body.index("<details>"):body.index("</details>")]
    assert "<p>Inside <strong>bold</strong>" in details and 'data-id="Diagram"' in details
    for gone in ("onclick", "onerror", "javascript:", "<img", "<iframe", "style=", "window.__bad = 1</script>",
                 'id="rk-q"', 'class="rk-verdict-box"', "example.org/x.png"):
        assert gone not in body, gone
    assert "<script>window.__bad" not in page
    # a raw </div></article> closes nothing of the page
    assert page.count("<article") == page.count("</article>") == 1
    assert "closes nothing" in page[page.index("<article"):page.index("</article>")]


def test_raw_html_is_text_where_the_configuration_says_escape(strict_site):
    page = _page(strict_site, "Keys")
    assert "&lt;kbd&gt;Ctrl&lt;/kbd&gt;" in page and "<kbd>" not in page and "<details>" not in page


def test_custom_task_states(vault_site):
    page = _page(vault_site, "Keys")
    box = '<input class="task-list-item-checkbox" checked="checked" disabled="disabled" type="checkbox">'
    for state, text in (("?", "a question"), ("/", "half done"), ("-", "dropped"), ("&gt;", "moved"),
                        ("!", "important")):
        assert f'<li class="task-list-item" data-task="{state}">{box} {text}</li>' in page, state
    assert "[?]" not in page and "[/]" not in page
    assert '<ul class="contains-task-list">' in page
    assert '<li class="task-list-item"><input class="task-list-item-checkbox" disabled="disabled" ' \
           'type="checkbox"> open</li>' in page


def test_line_breaks_follow_the_vaults_strict_line_breaks(vault_site, strict_site):
    assert "<p>First line<br />\nsecond line</p>" in _page(vault_site, "Keys")
    assert "<p>First line\nsecond line</p>" in _page(strict_site, "Keys")


def test_cssclasses_are_classes_of_the_page(vault_site):
    page = _page(vault_site, "Keys")
    body_tag = re.search(r"<body class=\"([^\"]*)\"", page).group(1).split()
    article = re.search(r"<article class=\"([^\"]*)\"", page).group(1).split()
    for classes in (body_tag, article):
        assert "wide-page" in classes and "cards" in classes
        assert "bad" not in classes and "class!" not in classes
    assert "rk-record-page" not in article        # (the site's own names are not a note's to give)
    assert "Cssclasses" not in page and "wide-page</" not in page      # not a property shown


def test_mermaid_only_where_a_page_has_a_diagram(vault_site, strict_site):
    page = _page(vault_site, "Diagram")
    assert '<pre class="mermaid rk-diagram">flowchart LR\n  A[Start] --&gt; B{Is it?}' in page
    assert '<script src="../assets/mermaid/mermaid.min.js" defer></script>' in page
    csp = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1))
    assert "style-src 'self' 'unsafe-inline'" in csp and "script-src 'self';" in csp
    embedder = _page(vault_site, "Embedder")       # a page that embeds a diagram draws it too
    assert '<pre class="mermaid rk-diagram">' in embedder and "assets/mermaid/mermaid.min.js" in embedder
    other = _page(vault_site, "Keys")
    assert "mermaid" not in other and "'unsafe-inline'" not in other
    assert (vault_site / "assets" / "mermaid" / "mermaid.min.js").stat().st_size > 1_000_000
    assert "MIT" in (vault_site / "assets" / "mermaid" / "LICENSE").read_text()
    assert not (strict_site / "assets" / "mermaid").exists()      # no diagram: no mermaid in the site


def test_percent_comments_are_in_no_output_file(vault_site):
    assert "Public words" in _page(vault_site, "Secret")
    assert "Shown part" in _page(vault_site, "Embedder")          # the embedded section
    leaks = [p.relative_to(vault_site).as_posix() for p in vault_site.rglob("*") if p.is_file()
             and SECRET.encode() in p.read_bytes()]
    assert leaks == []


def test_the_xss_record_injects_nothing_through_the_sanitizer(vault_site):
    """The record of every script payload (site_fixtures.XSS_RECORD), built
    with raw HTML rendered: no handler, no script but the site's files, no
    unsafe URL, no loading tag; its words still there."""
    page = _page(vault_site, "CLAIM-666")
    assert "a link</a>" in page and "Raw HTML is not markup here" in page
    assert_no_injected_markup(vault_site, scripts=r"(\.\./)*assets/(mermaid/)?[a-z.-]+\.js")
    assert crawl(vault_site)["broken"] == []


def test_a_changed_strict_line_breaks_renders_the_pages_again(tmp_path):
    """The vault's setting is no file of the record: an incremental build
    after it changed renders the pages again (it is in the build's salt)."""
    base = tmp_path / "vault"
    (base / ".obsidian").mkdir(parents=True)
    _write(base, {"recordkit.toml": 'root = "."\nschema = "preset:obsidian"\n', "Lines.md": "one\ntwo\n"})
    assert "<p>one<br />\ntwo</p>" in _page(_build(base), "Lines")
    (base / ".obsidian" / "app.json").write_text('{"strictLineBreaks": true}')
    assert "<p>one\ntwo</p>" in _page(_build(base), "Lines")


def test_raw_tags_are_no_words_of_the_search_index_or_previews(vault_site):
    """The search index and the hover previews read a body's text: a raw
    tag is none of its words (its text is)."""
    texts = [p for p in (vault_site / "assets").rglob("*.js") if "mermaid" not in p.parts
             and p.name not in ("site.js", "theme.js")]
    assert texts and any("Ctrl" in p.read_text(encoding="utf-8") for p in texts)
    for p in texts:
        t = p.read_text(encoding="utf-8")
        assert "kbd" not in t and "summary" not in t, p
