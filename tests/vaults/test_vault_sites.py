"""Each fixture vault published with its preset: every link the native
tool resolves is a link from the source's page to the target's page,
whatever its form (wikilink by title or alias, label-first, embed, heading
link, relative Markdown link); attachments are the site's own copies,
unresolved links are text;
and no internal link of the built site is broken."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from test_vaults import NAMES, copy_vault, expected

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "emit" / "site"))
from site_fixtures import crawl  # noqa: E402


def _pages(folder: Path) -> dict:
    """root-relative path of each record's file -> (id, its page's URL, its
    page's file), where the site's URL style puts them (a Quartz vault's
    pages where Quartz puts them)."""
    from recordkit.common.order import id_sort_key
    from recordkit.config import load_config
    from recordkit.corpus import load
    from recordkit.emit.site.options import site_options
    from recordkit.emit.site.urls import site_pages
    cfg = load_config(folder)
    corpus = load(cfg.root, config=cfg)
    root = Path(cfg.root).resolve()
    base = root.relative_to(folder.resolve()).as_posix()
    pages = site_pages(corpus, sorted(corpus.records, key=id_sort_key), site_options(cfg))
    out = {}
    for rid, rec in corpus.records.items():
        rel = rec.relpath if base in ("", ".") else f"{base}/{rec.relpath}"
        out[rel] = (rid, pages.url(rid), pages.path(rid))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_native_link_is_a_link_between_pages(tmp_path, name):
    folder = copy_vault(name, tmp_path / name)
    site = tmp_path / "site"        # a vault's root is its folder: the site goes beside it
    proc = run_cli("build", "-o", str(site), cwd=folder)
    assert proc.returncode == 0, proc.stderr
    pages = _pages(folder)
    missing = []
    body_edges = [e for e in expected(name)["edges"] if e["relation"] in ("link", "link-up", "links")]
    assert body_edges
    for e in body_edges:
        if e["source"] not in pages or e["target"] not in pages:
            continue
        from recordkit.emit.site.urls import root_of
        src_path = pages[e["source"]][2]
        tid, turl, _ = pages[e["target"]]
        html = (site / src_path).read_text(encoding="utf-8")
        body = html[html.find('class="rk-body"'):html.find('class="rk-aside"')]
        href = root_of(src_path) + turl
        # a heading or block link keeps its anchor (``#slug``, ``#^id``); the
        # crawl below checks that the anchor exists on the target page
        if not re.search(rf'<a class="rk-ref[^"]*"[^>]* href="{re.escape(href)}(#[^"]*)?" data-id="{re.escape(tid)}"', body):
            missing.append((e["source"], e["target"]))
    assert missing == []
    found = crawl(site)
    assert found["broken"] == []
    # an attachment is shown or linked from the site's own copy (files/,
    # which the crawl found), never from where it lies in the vault
    for page in found["pages"]:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'(?:href|src)="(?!(?:\.\./)*files/)[^"]*\.(png|jpg|pdf|svg)"', text), page
    if name == "obsidian":      # its one figure, embedded by name, lives in its attachment folder
        shown = "".join(p.read_text(encoding="utf-8") for p in found["pages"])
        assert '<img class="rk-image" src="../files/attachments/spindle-figure.png"' in shown
        assert (site / "files" / "attachments" / "spindle-figure.png").read_bytes() == (
            folder / "attachments" / "spindle-figure.png").read_bytes()


def test_label_first_wikilinks_read_as_their_label_in_texts_and_sentences(tmp_path):
    """Dendron writes ``[[label|target]]``: the page shows the label, and so
    must the search text, the hover preview and the backlink sentence (they
    showed the target's name, as if the link were target-first)."""
    folder = copy_vault("dendron", tmp_path / "dendron")
    site = tmp_path / "site"
    proc = run_cli("build", "-o", str(site), cwd=folder)
    assert proc.returncode == 0, proc.stderr
    pages = {rel.rsplit("/", 1)[-1]: v for rel, v in _pages(folder).items()}
    texts = "".join(p.read_text(encoding="utf-8") for p in sorted((site / "assets" / "text").glob("*.js")))
    assert "Back to the benchmarks note." in texts
    assert "Back to eval.benchmarks" not in texts
    target = (site / pages["eval.benchmarks.md"][1]).read_text(encoding="utf-8")
    backlinks = target[target.find('id="rk-backlinks-h"'):]
    assert "Back to the benchmarks note." in backlinks, backlinks[:2000]
    previews = "".join(p.read_text(encoding="utf-8") for p in sorted((site / "assets" / "preview").glob("*.js")))
    assert "|eval." not in previews and "|eval." not in texts
