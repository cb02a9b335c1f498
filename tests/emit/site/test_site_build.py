"""``recordkit build`` on real files: the example record's site crawled,
privacy, security of the output, incremental builds, the renderer."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from conftest import run_cli, write
from site_fixtures import XSS_ID, XSS_RECORD, copy_example, crawl

EXCLUDED = "NOTE-811"
EXCLUDED_PHRASE = "marsupial lantern"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = copy_example(tmp_path_factory.mktemp("example"), extra={"claim/CLAIM-666.md": XSS_RECORD})
    proc = run_cli("build", "-o", str(base / "site"), cwd=base)
    assert proc.returncode == 0, proc.stderr
    return base


@pytest.mark.slow
def test_every_link_and_asset_resolves(built):
    c = crawl(built / "site")
    assert len(c["pages"]) > 60
    assert c["broken"] == [], c["broken"][:10]


def test_every_published_record_has_a_page_with_what_the_seeds_show(built):
    import recordkit
    corpus = recordkit.load(built / "records")
    site = built / "site"
    for rid, rec in corpus.records.items():
        page = site / rec.kind.lower() / f"{rid}.html"
        if rec.get("publish") is False:
            assert not page.exists()
            continue
        assert page.is_file(), rid
    t = (site / "theory" / "THEORY-798.html").read_text()
    # title, reading time, properties with a count, typed relations with titles
    assert "THEORY-798</span>: Encoders trained separately" in t
    assert re.search(r"\d+ min read", t)
    assert re.search(r'Properties <span class="rk-count">\d+</span>', t)
    assert re.search(r"<dt>Source</dt>.*LIT-849</a> — <span class=\"rk-reftitle\">Relative representations", t, re.S)
    assert re.search(r"<dt>Extends</dt>.*THEORY-175</a>", t, re.S)
    # the lifecycle: standing and each requirement with its mark and reason
    assert 'rk-standing st-blocked' in t
    assert re.search(r'rq-unmet"><span class="rk-mark" title="unmet">✗</span> a NOTE pointing here by bears_on', t)
    # body mentions as links, the local graph data, backlinks with their sentence
    assert 'href="../note/NOTE-652.html" data-id="NOTE-652"' in t
    assert 'id="rk-graph-data"' in t
    assert re.search(r'<blockquote class="rk-sentence">[^<]*<mark>THEORY-798</mark>', t)
    lit = (site / "lit" / "LIT-849.html").read_text()
    assert "<dt>Cited as &#34;source&#34; by</dt>" in lit or '<dt>Cited as "source" by</dt>' in lit
    assert re.search(r"<dt>Cited as (&#34;|\")paper(&#34;|\") by</dt>.*NOTE-652", lit, re.S)
    assert "— <span class=\"rk-note\">Read in full on 2026-10-09, see <a class=\"rk-ref k-NOTE\"" in lit
    assert "arXiv:2209.15430" in lit


def test_checks_claims_and_check_blocks(built):
    site = built / "site"
    note = (site / "note" / "NOTE-738.html").read_text()
    assert 'class="rk-claims"' in note and "rk-s-strong" in note
    # the fenced check block carries its verdict beside the code
    holder = next(p for p in (built / "records").rglob("*.md") if "```python check" in p.read_text())
    page = (site / holder.parent.name / (holder.stem + ".html")).read_text()
    assert re.search(r'rk-verdict-box v-pass"><span class="rk-mark">✓</span> check <code>[^<]+</code>: '
                     r'<b>pass</b> — [0-9.e+-]+ ≤ [0-9.e+-]+ · ran ', page)
    t8 = (site / "theory" / "THEORY-008.html").read_text()
    assert "st-ready" in t8 and re.search(r'<span class="rk-verdict v-pass">pass</span>', t8)
    assert "THEORY-008" in (site / "ready.html").read_text()


@pytest.mark.slow
def test_dangling_mention_is_marked_text(tmp_path):
    base = copy_example(tmp_path, with_results=False, extra={"question/QUESTION-299.md": (
        "---\nid: QUESTION-299\ntitle: Does a dangling mention render?\nstatus: open\n---\n\n"
        "It names THEORY-999, which no record has, and [[LIT-849]].\n")})
    assert run_cli("build", "-o", str(base / "out"), cwd=base).returncode == 0
    page = (base / "out" / "question" / "QUESTION-299.html").read_text()
    assert '<span class="rk-dangling" title="No record THEORY-999 in this record">THEORY-999</span>' in page
    assert 'href="../theory/THEORY-999.html"' not in page


@pytest.mark.slow
def test_nothing_of_an_excluded_record_reaches_any_output(built):
    site = built / "site"
    files = [p for p in site.rglob("*") if p.is_file()]
    assert len(files) > 60
    for p in files:
        data = p.read_bytes()
        assert EXCLUDED.encode() not in data, p
        assert EXCLUDED_PHRASE.encode() not in data, p
        assert b"whitening the anchors" not in data, p


@pytest.mark.slow
@pytest.mark.parametrize("how", ["status", "glob"])
def test_exclusion_by_status_and_glob(tmp_path, how):
    base = copy_example(tmp_path, with_results=False)
    conf = base / "recordkit.toml"
    rule = 'exclude_statuses = ["draft"]' if how == "status" else 'exclude = ["note/NOTE-804.md"]'
    conf.write_text(conf.read_text() + f"\n[site]\n{rule}\n")
    assert run_cli("build", "-o", str(base / "out"), cwd=base).returncode == 0, "build failed"
    for p in (base / "out").rglob("*"):
        if p.is_file() and p.suffix in (".html", ".js", ".xml"):
            assert _only_plain_mentions(p), p
    assert not (base / "out" / "note" / "NOTE-804.html").exists()


def _only_plain_mentions(p: Path) -> bool:
    """NOTE-804 is named in other records' prose: there it stays plain text,
    never a link, a preview or a backlink."""
    t = p.read_text()
    return ('data-id="NOTE-804"' not in t and "NOTE-804.html" not in t and '"NOTE-804"' not in t
            and "Plan: conformal versus linear fits" not in t)


def test_record_text_cannot_inject_markup(built):
    site = built / "site"
    page = (site / "claim" / f"{XSS_ID}.html").read_text()
    from site_fixtures import assert_no_injected_markup
    assert_no_injected_markup(site)
    assert "&lt;script&gt;window.__xss = &#39;body&#39;&lt;/script&gt;" in page or "&lt;script&gt;" in page
    # JSON data cannot close its element
    for p in list(site.rglob("*.html")) + list(site.rglob("*.js")):
        t = p.read_text()
        for m in re.finditer(r'<script type="application/json"[^>]*>(.*?)</script>', t, re.S):
            assert "<" not in m.group(1)
        if p.suffix == ".js" and "assets/" in p.as_posix() and p.name not in ("site.js", "theme.js"):
            assert "</script" not in t.lower()
    import html
    csp = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1))
    assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp


def test_feed_and_sitemap(built):
    site = built / "site"
    import xml.etree.ElementTree as ET
    feed = ET.parse(site / "feed.xml").getroot()
    entries = feed.findall("{http://www.w3.org/2005/Atom}entry")
    assert entries and all(e.find("{http://www.w3.org/2005/Atom}id").text.startswith("https://example.org/nucleation/")
                           for e in entries)
    sm = ET.parse(site / "sitemap.xml").getroot()
    locs = [u.find("{http://www.sitemaps.org/schemas/sitemap/0.9}loc").text for u in sm]
    assert "https://example.org/nucleation/theory/THEORY-798.html" in locs
    assert not any(EXCLUDED in l for l in locs)


# -- incremental builds -----------------------------------------------------------

def _snapshot(site: Path) -> dict:
    return {p.relative_to(site).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
            for p in site.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_incremental_rebuilds_only_what_changed(tmp_path):
    base = copy_example(tmp_path, with_results=False)
    out = base / "out"
    assert run_cli("build", "-o", str(out), cwd=base).returncode == 0
    first = _snapshot(out)
    time.sleep(0.05)
    proc = run_cli("build", "-o", str(out), cwd=base)
    assert proc.returncode == 0
    assert "0 files written" in proc.stderr or "(0 rendered)" in proc.stderr, proc.stderr
    second = _snapshot(out)
    changed = [k for k in first if first[k] != second.get(k)]
    assert changed == [".recordkit-site.json"] or changed == [], changed

    # edit one record's title: its page, the pages that show its title, the
    # indexes and the search data change; an unrelated page keeps its mtime
    rec = base / "records" / "question" / "QUESTION-215.md"
    text = rec.read_text()
    new_title = "A question retitled for the incremental test"
    rec.write_text(re.sub(r"^title: .*$", f"title: {new_title}", text, count=1, flags=re.M))
    proc = run_cli("build", "-o", str(out), cwd=base)
    assert proc.returncode == 0, proc.stderr
    third = _snapshot(out)
    rewritten = {k for k in third if first.get(k) != third[k]}
    assert "question/QUESTION-215.html" in rewritten
    assert "assets/search-index.js" in rewritten
    assert "theory/THEORY-798.html" not in rewritten
    assert "lit/LIT-849.html" not in rewritten
    assert len(rewritten) < len(third) / 2, sorted(rewritten)
    for k in rewritten:
        if k.endswith(".html") and k.count("/") == 1 and k.split("/")[0] in ("lit", "note", "theory", "claim"):
            assert "QUESTION-215" in third[k][1].decode(), k   # a page rewritten because it shows the record

    # the incremental result is byte for byte what a cold build makes
    assert run_cli("build", "-o", str(base / "cold"), cwd=base).returncode == 0
    cold = _snapshot(base / "cold")
    assert {k: v[1] for k, v in third.items() if k != ".recordkit-site.json"} == \
        {k: v[1] for k, v in cold.items() if k != ".recordkit-site.json"}

    # delete a record: its page goes
    rec.unlink()
    assert run_cli("build", "-o", str(out), cwd=base).returncode == 0
    assert not (out / "question" / "QUESTION-215.html").exists()


@pytest.mark.slow
def test_refuses_a_folder_it_did_not_write(tmp_path):
    base = copy_example(tmp_path, with_results=False)
    (base / "out").mkdir()
    (base / "out" / "precious.txt").write_text("keep me")
    proc = run_cli("build", "-o", str(base / "out"), cwd=base)
    assert proc.returncode == 2 and "--force" in proc.stderr
    assert (base / "out" / "precious.txt").read_text() == "keep me"
    # serve -o refuses it too (it wrote over such a folder unasked)
    (base / "out" / "index.html").write_text("mine")
    proc = run_cli("serve", "-o", str(base / "out"), "--port", "0", cwd=base)
    assert proc.returncode == 2 and "--force" in proc.stderr
    assert (base / "out" / "index.html").read_text() == "mine"
    # --force writes the site there and says which of the folder's files it replaced
    proc = run_cli("build", "-o", str(base / "out"), "--force", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert "1 file(s) the folder held before were replaced: index.html" in proc.stderr
    assert (base / "out" / "precious.txt").read_text() == "keep me"
    proc = run_cli("build", "-o", str(base / "out"), cwd=base)      # now a site: no --force, no note
    assert proc.returncode == 0 and "replaced" not in proc.stderr


# -- the renderer -----------------------------------------------------------------

def _renderer(ids=("LIT-849", "NOTE-652"), hidden=("NOTE-811",)):
    from recordkit.emit.site.markdown import BodyRenderer
    from recordkit.schema import load_schema

    def resolve(rid):
        if rid in ids:
            return ("link", f"{rid.split('-')[0].lower()}/{rid}.html", rid.split("-")[0])
        return ("hidden",) if rid in hidden else ("dangling",)
    return BodyRenderer(load_schema().mention_re, resolve)


def test_renderer_mentions_code_math_footnotes_tasks():
    r = _renderer()
    out = r.render("See LIT-849, [[NOTE-652|the note]], NOTE-811 and QUESTION-404.\n\n"
                   "`LIT-849` stays code.\n\n```\nLIT-849\n```\n\n"
                   "$x^2$ and $$\\frac{a}{b}$$\n\n- [x] done\n- [ ] open\n\nA note[^1].\n\n[^1]: Here.\n\n"
                   "| a | b |\n|---|---|\n| 1 | 2 |\n\n# One\n\n# One\n").html
    assert out.count('class="rk-ref') == 2
    assert ">the note</a>" in out
    assert "NOTE-811" in out and 'data-id="NOTE-811"' not in out and "rk-dangling" in out
    assert "<code>LIT-849</code>" in out
    # MathML made at build time (a fraction is an mfrac in MathML; latex2mathml's exact markup is its own)
    assert re.search(r"<math\b[^>]*>", out) and re.search(r"<mfrac\b", out)
    assert 'type="checkbox"' in out and "footnote" in out and "<table>" in out
    assert 'id="one"' in out and 'id="one-1"' in out


def _highlighted(out: str, word: str) -> bool:
    """``word`` is in a span of its own whose class the site's stylesheet
    colours: highlighted, whatever Pygments' class names and span shape."""
    from recordkit.emit.site.markdown import pygments_css
    css = pygments_css()
    return any(re.search(r"\.rk-code \." + re.escape(cls) + r" \{[^}]*color", css)
               for cls in re.findall(r'<span class="([\w-]+)">' + re.escape(word) + "</span>", out))


def test_renderer_highlights_code_at_build_time():
    """Highlighted by Pygments at build time: the keywords are in spans the
    site's (Pygments-made) stylesheet colours, and the code reads as written.
    (Not Pygments' exact HTML: its class names and spans change between the
    versions pyproject allows.)"""
    import html as _html
    out = _renderer().render("```python\ndef f(x):\n    return x\n```\n").html
    code = re.search(r'<pre class="rk-code"><code class="language-python">(.*?)</code></pre>', out, re.S).group(1)
    assert _html.unescape(re.sub(r"<[^>]+>", "", code)) == "def f(x):\n    return x\n"
    assert _highlighted(code, "def") and _highlighted(code, "return"), out
    assert not _highlighted(_renderer().render("```\ndef f(x):\n```\n").html, "def")   # no language: plain


def test_an_unknown_fence_language_does_not_load_pygments_plugins(monkeypatch):
    """```dataview (or ```query, ```mermaid) is no lexer of Pygments': it is
    not looked for among plugged-in lexers (that imports IPython and the like
    in every process of a build, where installed), and is left as plain code."""
    import pygments.lexers
    from recordkit.emit.site import markdown

    looked = []

    def plugins(*a, **k):
        looked.append(1)
        return iter(())
    # (pygments.lexers replaces its module object with a copy: patch the
    # functions' own globals)
    monkeypatch.setitem(pygments.lexers.get_lexer_by_name.__globals__, "find_plugin_lexers", plugins)
    markdown._lexer.cache_clear()
    out = _renderer().render("```dataview\nTABLE x\n```\n\n```python\ndef f(x):\n    return x\n```\n").html
    assert "TABLE x" in out and _highlighted(out, "def")
    assert not looked, "Pygments' plugin lexers were looked up"


def test_unsafe_urls_are_dropped():
    from recordkit.markdown.anchors import safe_url
    for bad in ("javascript:alert(1)", " JavaScript:x", "java\tscript:x", "vbscript:x", "data:text/html,x",
                "file:///etc/passwd", "//evil.example/x"):
        assert not safe_url(bad), bad
    for good in ("https://arxiv.org/abs/2209.15430", "../lit/LIT-849.html", "#claims", "mailto:a@b.c"):
        assert safe_url(good), good


@pytest.mark.parametrize("body, words", [
    ("{{ no_such_thing.x }}", "the template uses a value that is not defined"),
    ("{% if %}", "not valid template syntax"),
])
def test_a_broken_user_template_is_recordkits_words_not_a_traceback(tmp_path, body, words):
    """The message is recordkit's (the file and line, what went wrong, the
    page) with Jinja2's message, in its own wording, as the detail."""
    base = copy_example(tmp_path, with_results=False)
    (base / "mytemplates").mkdir()
    (base / "mytemplates" / "404.html.j2").write_text(
        '{% extends "base.html.j2" %}{% block main %}\n' + body + '\n{% endblock %}\n')
    conf = base / "recordkit.toml"
    conf.write_text(conf.read_text() + '\n[site]\ntemplates = "mytemplates"\n')
    proc = run_cli("build", "-o", str(base / "out"), cwd=base)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert re.search(r"recordkit: template error: \S*404\.html\.j2:2: " + words + r": \S.* \(rendering [^)]+\)",
                     proc.stderr), proc.stderr


@pytest.mark.slow
def test_a_user_template_overrides_the_package_one(tmp_path):
    base = copy_example(tmp_path, with_results=False)
    (base / "mytemplates").mkdir()
    (base / "mytemplates" / "404.html.j2").write_text(
        '{% extends "base.html.j2" %}{% block main %}<h1>Lost in {{ site_title }}</h1>{% endblock %}\n')
    (base / "mytemplates" / "assets").mkdir()
    (base / "mytemplates" / "assets" / "theme.js").write_text("/* my theme script */\n")
    conf = base / "recordkit.toml"
    conf.write_text(conf.read_text() + '\n[site]\ntemplates = "mytemplates"\n')
    assert run_cli("build", "-o", str(base / "out"), cwd=base).returncode == 0
    assert "<h1>Lost in nucleation</h1>" in (base / "out" / "404.html").read_text()
    assert (base / "out" / "assets" / "theme.js").read_text() == "/* my theme script */\n"
    assert "rk-props" in (base / "out" / "theory" / "THEORY-798.html").read_text()   # the rest as shipped


@pytest.mark.slow
def test_the_general_templates_folder_reaches_the_site_and_its_graph_page(tmp_path):
    """One template environment for every page: ``templates =`` (the folder
    of ``recordkit graph --html``) overrides the site's pages under ``site/``
    and the site's graph page as it does the standalone one; a site page
    can extend the package's own (the site's graph page ignored the folder
    before)."""
    base = copy_example(tmp_path, with_results=False)
    tpl = base / "tpl"
    (tpl / "site" / "assets").mkdir(parents=True)
    (tpl / "graph.html.j2").write_text(
        '{% extends "recordkit/graph.html.j2" %}{% block head %}<meta name="x-mine" content="graph">{% endblock %}\n')
    (tpl / "site" / "record.html.j2").write_text(
        '{% extends "recordkit/site/record.html.j2" %}{% block title %}MINE {{ r.id }}{% endblock %}\n')
    (tpl / "site" / "assets" / "theme.js").write_text("/* general folder */\n")
    conf = base / "recordkit.toml"
    conf.write_text('templates = "tpl"\n' + conf.read_text())
    proc = run_cli("build", "-o", str(base / "out"), cwd=base)
    assert proc.returncode == 0, proc.stderr
    page = (base / "out" / "theory" / "THEORY-798.html").read_text()
    assert "<title>MINE THEORY-798</title>" in page and "rk-props" in page
    assert '<meta name="x-mine" content="graph">' in (base / "out" / "graph.html").read_text()
    assert (base / "out" / "assets" / "theme.js").read_text() == "/* general folder */\n"
    # an edit to a template of that folder renders the pages again
    (tpl / "site" / "record.html.j2").write_text(
        '{% extends "recordkit/site/record.html.j2" %}{% block title %}OURS {{ r.id }}{% endblock %}\n')
    assert run_cli("build", "-o", str(base / "out"), cwd=base).returncode == 0
    assert "<title>OURS THEORY-798</title>" in (base / "out" / "theory" / "THEORY-798.html").read_text()


@pytest.mark.slow
def test_dates_from_one_git_log(tmp_path):
    import subprocess
    base = copy_example(tmp_path, with_results=False)
    env = dict(os.environ, GIT_AUTHOR_DATE="2031-05-06T12:00:00Z", GIT_COMMITTER_DATE="2031-05-06T12:00:00Z",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org")
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "all"]):
        subprocess.run(cmd, cwd=base, env=env, check=True, capture_output=True)
    env2 = dict(env, GIT_AUTHOR_DATE="2032-01-02T12:00:00Z", GIT_COMMITTER_DATE="2032-01-02T12:00:00Z")
    p = base / "records" / "lit" / "LIT-849.md"
    p.write_text(p.read_text() + "\nOne more line.\n")
    subprocess.run(["git", "commit", "-qam", "edit"], cwd=base, env=env2, check=True, capture_output=True)
    assert run_cli("build", "-o", str(base / "out"), "--dates", "git", cwd=base).returncode == 0
    home = (base / "out" / "index.html").read_text()
    first = re.search(r'data-id="([A-Z]+-\d+)"[^<]*</a></td>\s*<td>[^<]*</td><td>.*?</td>\s*<td class="rk-nowrap">'
                      r'(\d{4}-\d\d-\d\d)</td>', home, re.S)
    assert first and first.groups() == ("LIT-849", "2032-01-02"), first and first.groups()
    assert "2031-05-06" in (base / "out" / "theory" / "THEORY-798.html").read_text()


def _cold_reference(base: Path, out: Path) -> dict:
    """The site a cold build makes of ``base`` now, in this process, from
    records loaded without the site's record cache, into an empty folder."""
    from recordkit.config import load_config
    from recordkit.corpus import load
    from recordkit.emit.site import build_site
    cfg = load_config(base)
    build_site(cfg, out, corpus=load(cfg.root, config=cfg), jobs=1)
    return {k: v[1] for k, v in _snapshot(out).items() if k != ".recordkit-site.json"}


@pytest.mark.slow
def test_fresh_builds_after_each_kind_of_edit_equal_a_cold_build(tmp_path):
    """Through the CLI, each build a fresh process with the record cache and
    the manifest of the last one: after a body edit, a title edit, a new
    record that a dangling mention names, a status change that moves a
    standing, a derived link and a deletion, the site is byte for byte what a
    cold build makes, and every file whose bytes did not change kept its
    mtime (it was not written)."""
    base = copy_example(tmp_path, with_results=False)
    out = base / "out"
    assert run_cli("build", "-o", str(out), cwd=base).returncode == 0
    before = _snapshot(out)
    recs = base / "records"

    def edit(rel, fn):
        p = recs / rel
        p.write_text(fn(p.read_text(encoding="utf-8")), encoding="utf-8")

    steps = [
        ("body", lambda: edit("note/NOTE-652.md", lambda t: t.rstrip("\n") +
                              "\n\nA late remark on THEORY-798, and on CLAIM-300, which does not exist yet.\n")),
        ("title", lambda: edit("lit/LIT-849.md", lambda t: re.sub(r"^title: .*$", "title: Retitled source",
                                                                   t, count=1, flags=re.M))),
        ("new record", lambda: (recs / "claim" / "CLAIM-300.md").write_text(
            "---\nid: CLAIM-300\ntitle: A claim made later\nstatus: open\ngrounds: [THEORY-798]\n---\n\n"
            "It rests on LIT-849.\n", encoding="utf-8")),
        ("status", lambda: edit("claim/CLAIM-082.md", lambda t: re.sub(r"^status: .*$", "status: refuted",
                                                                        t, count=1, flags=re.M))),
        ("derived", lambda: edit("lit/LIT-874.md", lambda t: t.replace("---\n", "---\nreferences: [\"2209.15430\"]\n", 1)
                                 if "references:" not in t else t)),
        ("delete", lambda: (recs / "question" / "QUESTION-215.md").unlink()),
        # the schema: a relation's label shows on pages no record edit changes
        ("schema", lambda: ((base / "schema.yaml").write_text("relations:\n  extends:\n    label: Built upon by\n"),
                            (base / "recordkit.toml").write_text((base / "recordkit.toml").read_text()
                                                                 + 'schema = "schema.yaml"\n'))),
        ("schema label", lambda: (base / "schema.yaml").write_text("relations:\n  extends:\n    label: Grown from\n")),
    ]
    for n, (what, step) in enumerate(steps):
        step()
        proc = run_cli("build", "-o", str(out), cwd=base)
        assert proc.returncode == 0, (what, proc.stderr)
        after = _snapshot(out)
        cold = _cold_reference(base, tmp_path / f"cold-{n}")
        assert {k: v[1] for k, v in after.items() if k != ".recordkit-site.json"} == cold, what
        for k, (mtime, data) in after.items():
            if k in before and before[k][1] == data:
                assert before[k][0] == mtime, (what, k)      # unchanged bytes: not written again
        before = after
    assert not (out / "question" / "QUESTION-215.html").exists()
    assert "CLAIM-300.html" in (out / "note" / "NOTE-652.html").read_text(encoding="utf-8")
    assert any("Grown from" in p.read_text(encoding="utf-8") for p in (out / "theory").glob("*.html"))


# -- query blocks -------------------------------------------------------------------

QUERY_NOTE = """---
id: NOTE-900
title: Every note the site shows
status: draft
about: [LIT-849]
---

Notes, by a query:

```query
SELECT id, title FROM records WHERE kind = 'NOTE' ORDER BY id
```

Mentions of notes, with their targets:

```query
SELECT record, target FROM mentions WHERE target LIKE 'NOTE-%' ORDER BY record, target
```

A query that fails:

```query
SELECT title FROM no_such_table
```
"""


@pytest.mark.slow
def test_query_blocks_on_the_site_privacy_errors_and_incremental(tmp_path):
    """A query runs against the published records only: the private NOTE-811
    (and its unique phrase) is in no table; a failing query is an error box
    and the build succeeds; editing a record the query reads updates the
    query page in the next (incremental) build, and only then."""
    base = copy_example(tmp_path, with_results=False, extra={"note/NOTE-900.md": QUERY_NOTE})
    out = base / "out"
    proc = run_cli("build", "-o", str(out), cwd=base)
    assert proc.returncode == 0, proc.stderr
    page = (out / "note" / "NOTE-900.html").read_text(encoding="utf-8")
    notes = sorted(p.stem for p in (base / "records" / "note").glob("NOTE-*.md") if p.stem != EXCLUDED)
    assert len(re.findall(r'<table class="rk-query-table">', page)) == 2
    first = page[page.index('<table class="rk-query-table">'):page.index("</table>")]
    assert re.findall(r'data-id="(NOTE-\d+)"', first) == notes       # NOTE-811 is kept out
    assert EXCLUDED not in page and EXCLUDED_PHRASE not in page
    # the failing query's box: recordkit's words, then SQLite's message (its own wording)
    assert re.search(r'rk-query-error" role="alert"><strong>query failed</strong> \(line \d+\): \S[^<]*</div>', page)

    before = _snapshot(out)
    proc = run_cli("build", "-o", str(out), cwd=base)
    assert "(0 rendered)" in proc.stderr, proc.stderr
    rec = base / "records" / "note" / "NOTE-302.md"
    rec.write_text(re.sub(r"^title: .*$", "title: A retitled reading", rec.read_text(encoding="utf-8"),
                          count=1, flags=re.M), encoding="utf-8")
    assert run_cli("build", "-o", str(out), cwd=base).returncode == 0
    after = _snapshot(out)
    assert after["note/NOTE-900.html"] != before["note/NOTE-900.html"]
    assert "A retitled reading" in after["note/NOTE-900.html"][1].decode()
    assert after["lit/LIT-874.html"] == before["lit/LIT-874.html"]       # unrelated: not written


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_build_that_fails_half_way_leaves_no_scratch_files(tmp_path, jobs):
    """A record page template that fails on one record: the build exits
    with a message, not a traceback, and the site folder holds none of the
    build's scratch files (the texts' fragments go to ``.recordkit-tmp``)."""
    base = copy_example(tmp_path, with_results=False)
    src = Path(__file__).resolve().parents[3] / "recordkit" / "templates" / "site" / "record.html.j2"
    (base / "mytemplates").mkdir()
    (base / "mytemplates" / "record.html.j2").write_text(
        src.read_text(encoding="utf-8").replace("{% block main %}",
                                                '{% block main %}{% if r.id == "THEORY-798" %}{{ 1 // 0 }}{% endif %}', 1),
        encoding="utf-8")
    conf = base / "recordkit.toml"
    conf.write_text(conf.read_text() + '\n[site]\ntemplates = "mytemplates"\n')
    proc = run_cli("build", "-o", str(base / "out"), "--jobs", jobs, cwd=base)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "record.html.j2:" in proc.stderr and "ZeroDivisionError" in proc.stderr and "THEORY-798" in proc.stderr
    assert not (base / "out" / ".recordkit-tmp").exists()
    assert not [p for p in (base / "out").rglob("*") if p.name.endswith(".tmp") or p.suffix == ".part"]


@pytest.mark.slow
def test_an_incremental_build_whose_helper_fails_is_still_whole(tmp_path, monkeypatch):
    """The helper of an incremental build (the search index) fails in its
    process: this process does its part, and the site is what
    a cold build makes, each file counted once."""
    from recordkit.config import load_config
    from recordkit.emit.site import build_site
    from recordkit.emit.site.emitters import search as search_emitter
    base = copy_example(tmp_path, with_results=False)
    out = base / "out"
    cfg = load_config(base)
    build_site(cfg, out, jobs=1)
    p = base / "records" / "lit" / "LIT-849.md"       # a new title: list pages change too
    p.write_text(re.sub(r"^title: .*$", "title: Retitled source", p.read_text(encoding="utf-8"), count=1,
                        flags=re.M) + "\nA new remark on THEORY-798.\n", encoding="utf-8")
    me = os.getpid()
    search_index = search_emitter.partial

    def failing_in_a_helper(ctx, changes, state=None):
        if os.getpid() != me:
            raise RuntimeError("the helper fails")
        return search_index(ctx, changes, state)
    monkeypatch.setattr(search_emitter, "partial", failing_in_a_helper)
    report = build_site(load_config(base), out, jobs=1)
    assert report.rendered >= 1
    assert "kind/lit.html" in report.written
    assert len(report.written) == len(set(report.written))
    import json
    manifest = json.loads((out / ".recordkit-site.json").read_text(encoding="utf-8"))
    assert report.kept + len(report.written) == len(manifest["files"])
    after = {k: v[1] for k, v in _snapshot(out).items() if k != ".recordkit-site.json"}
    assert after == _cold_reference(base, tmp_path / "cold")


@pytest.mark.slow
def test_the_site_is_the_same_whatever_the_number_of_helpers(tmp_path, monkeypatch):
    """210 generated records (seven search runs of 32) built in one process and
    with two forked helpers give the same files, byte for byte: each helper
    renders whole runs, writes them to the cache folder and sends them back
    joined; the index joins them in document order.  A fresh build after an
    edit then goes on from the runs the helpers wrote."""
    import sys

    from recordkit.config import load_config
    from recordkit.emit.site import build_site
    from recordkit.emit.site.emitters import search as search_emitter
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    from generate import generate
    monkeypatch.setattr(search_emitter, "SHARD", 32)       # several runs a helper, at a size a test can build
    recs = tmp_path / "records"
    generate(recs, 210, seed=3)
    (tmp_path / "recordkit.toml").write_text('root = "records"\n', encoding="utf-8")
    built = {}
    for jobs in (1, 2):
        cfg = load_config(tmp_path)
        cfg.cache_dir = tmp_path / f"cache-{jobs}"
        build_site(cfg, tmp_path / f"site-{jobs}", jobs=jobs)
        built[jobs] = _bytes(tmp_path / f"site-{jobs}")
        assert len(list((cfg.cache_dir / "site-search").rglob("[0-9]*.pickle"))) == 7
    assert built[1].keys() == built[2].keys()
    assert [k for k in built[1] if built[1][k] != built[2][k]] == []
    for folder in sorted(recs.iterdir()):        # a record in the first run of each part, and in others
        p = sorted(folder.glob("*.md"))[0]
        p.write_text(p.read_text(encoding="utf-8") + "\nZygomorphic quokkas.\n", encoding="utf-8")
    cfg = load_config(tmp_path)
    cfg.cache_dir = tmp_path / "cache-2"
    build_site(cfg, tmp_path / "site-2", jobs=2)
    cfg.cache_dir = tmp_path / "cache-cold"
    build_site(cfg, tmp_path / "site-cold", jobs=1)
    after, cold = _bytes(tmp_path / "site-2"), _bytes(tmp_path / "site-cold")
    assert b"zygomorphic" in after["assets/search-index.js"]
    del after[".recordkit-site.json"], cold[".recordkit-site.json"]
    assert after == cold


def _bytes(site: Path) -> dict:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_a_control_character_in_a_title_leaves_the_feed_well_formed(tmp_path):
    """A title holding a control character (YAML "\\x01", "\\e") made
    feed.xml no XML at all, so every feed reader dropped the whole feed."""
    import xml.etree.ElementTree as ET
    base = copy_example(tmp_path, with_results=False, extra={
        "lit/LIT-990.md": '---\nid: LIT-990\ntitle: "Ctl \\x01 esc \\e end \\uFFFE"\nstatus: queued\n'
                          'authors: [A. Author]\nyear: 2020\nupdated: 2099-01-01\n---\nText.\n'})
    proc = run_cli("build", "-o", str(base / "site"), cwd=base)
    assert proc.returncode == 0, proc.stderr
    feed = ET.parse(base / "site" / "feed.xml").getroot()      # well-formed
    titles = [e.find("{http://www.w3.org/2005/Atom}title").text
              for e in feed.findall("{http://www.w3.org/2005/Atom}entry")]
    assert titles[0] == "LIT-990: Ctl \\x01 esc \\x1b end \\ufffe"
    ET.parse(base / "site" / "sitemap.xml")


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_template_override_that_is_no_file_is_named_and_passed_over(tmp_path):
    """A named pipe, a link to /dev/zero and a dangling link in the site's
    templates folder are never read (the pipe would hang the build, the
    device never end): the package's template or asset of the name is used,
    and the build says which it passed over."""
    base = copy_example(tmp_path, with_results=False)
    tpl = base / "mytemplates"
    (tpl / "assets").mkdir(parents=True)
    os.mkfifo(tpl / "404.html.j2")
    os.symlink("/dev/zero", tpl / "assets" / "site.css")
    os.symlink(tpl / "nothing-here", tpl / "record.html.j2")
    conf = base / "recordkit.toml"
    conf.write_text(conf.read_text() + '\n[site]\ntemplates = "mytemplates"\n')
    t = time.monotonic()
    proc = run_cli("build", "-o", str(base / "site"), cwd=base)
    assert proc.returncode == 0 and time.monotonic() - t < 120, proc.stderr
    for name, what in (("404.html.j2", "a named pipe (FIFO)"), ("site.css", "a character device"),
                       ("record.html.j2", "a link to nothing")):
        assert re.search(rf"note: \S*{re.escape(name)} is {re.escape(what)}, not a file", proc.stderr), proc.stderr
    from recordkit.emit.templates import SITE_DIR
    css = (base / "site" / "assets" / "site.css").read_bytes()
    assert (SITE_DIR / "assets" / "site.css").read_bytes()[:2000] in css and b"\0" not in css
    assert "<!DOCTYPE html>" in (base / "site" / "404.html").read_text()


def test_long_tags_ids_and_statuses_make_short_distinct_file_names(tmp_path):
    # a 5,000-character tag stopped the build ("File name too long"): a
    # page's file name is kept only when plain and at most 100 characters
    import json
    root = tmp_path / "records"
    (root / "note").mkdir(parents=True)
    tags = ["x" * 5000, "x" * 4999, "日本語" * 100, "a" * 100, "a" * 101, "A", "a"]
    for i, t in enumerate(tags):
        (root / "note" / f"NOTE-{i + 1:03d}.md").write_text(
            f"---\nid: NOTE-{i + 1:03d}\ntitle: T{i}\nstatus: draft\ntags: [{json.dumps(t)}]\n---\nBody.\n",
            encoding="utf-8")
    (root / "note" / "long.md").write_text("---\nid: NOTE-" + "1" * 400 + "\ntitle: L\nstatus: " + "s" * 400
                                          + "\n---\nBody.\n", encoding="utf-8")
    out = run_cli("--root", str(root), "build", "-o", str(tmp_path / "site"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    names = [p.name for p in (tmp_path / "site").rglob("*")]
    assert max(len(n.encode("utf-8")) for n in names) <= 120
    tag_pages = sorted(p.name for p in (tmp_path / "site" / "tag").iterdir())
    assert len(tag_pages) == len(tags), tag_pages
    assert "a" * 100 + ".html" in tag_pages and "a.html" in tag_pages
    for t in tags:
        assert f"Tag: {t}" in "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "site" / "tag").iterdir())


def test_a_huge_title_is_shown_whole_only_on_its_own_page(tmp_path):
    # a title of 100 KB was copied into every page that named its record
    # (1,000 notes citing it: 107 MB of site instead of 7); a title the
    # pages that name it show is cut at 1,000 characters (the example
    # record's longest is 480)
    root = tmp_path / "records"
    (root / "note").mkdir(parents=True)
    (root / "lit").mkdir()
    title = "word " * 20_000 + "zyzzyva"
    (root / "lit" / "LIT-001.md").write_text(f"---\nid: LIT-001\ntitle: {title}\nstatus: read\n---\nThe paper.\n",
                                            encoding="utf-8")
    for i in range(2, 22):
        (root / "note" / f"NOTE-{i:03d}.md").write_text(
            f"---\nid: NOTE-{i:03d}\ntitle: N{i}\nstatus: draft\nsource: [LIT-001]\n---\nSee LIT-001.\n",
            encoding="utf-8")
    out = run_cli("--root", str(root), "build", "-o", str(tmp_path / "site"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert title in (tmp_path / "site" / "lit" / "LIT-001.html").read_text(encoding="utf-8")
    for p in (tmp_path / "site" / "note").glob("NOTE-*.html"):
        page = p.read_text(encoding="utf-8")
        assert len(page) < 30_000 and "word word" in page and "zyzzyva" not in page, p.name


def test_a_backlink_sentence_is_the_bodys_and_marks_nothing_empty(tmp_path):
    """A mention in the body's first paragraph: the sentence took in the
    front matter above it (YAML comments included: published nowhere else).
    A labelled link's sentence shows the label: it ended with an empty
    <mark></mark>."""
    base = tmp_path / "p"
    write(base, "records/note/NOTE-001.md", "---\nid: NOTE-001\ntitle: First note\nstatus: draft\n"
          "tags: [a]   # reviewer comment SECRETCOMMENT\n---\nThis note relies on NOTE-002 for its claim.\n")
    write(base, "records/note/NOTE-003.md", "---\nid: NOTE-003\ntitle: Third\nstatus: draft\n---\n## Body\n\n"
          "See [[NOTE-002|the second]] here.\n")
    write(base, "records/note/NOTE-002.md", "---\nid: NOTE-002\ntitle: Second note\nstatus: draft\n---\nBody.\n")
    (base / "recordkit.toml").write_text('root = "records"\n')
    assert run_cli("build", "-o", str(base / "out"), "-q", cwd=base).returncode == 0
    page = (base / "out" / "note" / "NOTE-002.html").read_text(encoding="utf-8")
    assert '<blockquote class="rk-sentence">This note relies on <mark>NOTE-002</mark> for its claim.</blockquote>' in page
    assert '<blockquote class="rk-sentence">See the second here.</blockquote>' in page
    assert "<mark></mark>" not in page
    assert not [p for p in (base / "out").rglob("*") if p.is_file() and b"SECRETCOMMENT" in p.read_bytes()]


def test_html_comments_are_not_published(tmp_path):
    """With raw HTML escaped, ``<!-- a note to oneself -->`` showed on the
    page as text (and in the search index, the preview, a backlink's
    sentence); the lint reads no link in one.  Comments are left out of
    every output; one inside code is code, shown."""
    base = tmp_path / "p"
    write(base, "records/note/NOTE-001.md", "---\nid: NOTE-001\ntitle: One\nstatus: draft\n---\n"
          "See NOTE-002 <!-- PRIVATE1 --> here.\n\nPara <!-- PRIVATE2\nmulti [[NOTE-404]] line\n--> after.\n\n"
          "```\n<!-- kept in code -->\n```\n\n<!-- PRIVATE3 unclosed\n")
    write(base, "records/note/NOTE-002.md", "---\nid: NOTE-002\ntitle: Two\nstatus: draft\n---\n"
          "<!-- PRIVATE4 --> Body first.\n")
    (base / "recordkit.toml").write_text('root = "records"\n')
    assert run_cli("build", "-o", str(base / "out"), "-q", cwd=base).returncode == 0
    leaked = [p for p in (base / "out").rglob("*") if p.is_file() and b"PRIVATE" in p.read_bytes()]
    assert not leaked, leaked
    page = (base / "out" / "note" / "NOTE-001.html").read_text(encoding="utf-8")
    assert "<p>Para  after.</p>" in page and "&lt;!-- kept in code --&gt;" in page and "NOTE-404" not in page


def test_obsidian_callouts_are_boxes_with_their_title():
    """``> [!warning] Careful`` showed as a quote starting "[!warning]"."""
    r = _renderer()
    html = r.render("> [!warning] Careful here\n> Body.\n\n> [!TIP]\n> x\n\n> [!x] <b>t</b>\n\n> plain\n").html
    assert '<blockquote class="rk-callout rk-callout-warn" data-callout="warning">\n' \
           '<p class="rk-callout-title">Careful here</p>\n<p>Body.</p>' in html
    assert '<p class="rk-callout-title">Tip</p>' in html and "[!" not in html
    assert '<p class="rk-callout-title">&lt;b&gt;t&lt;/b&gt;</p>' in html      # (still text)
    assert "<blockquote>\n<p>plain</p>" in html


def test_foldable_callouts_are_details_the_reader_opens():
    """``> [!faq]- Why?`` (folded) and ``> [!tip]+`` (unfolded) were shown
    open, as a plain callout: a <details> with the title as <summary>."""
    r = _renderer()
    html = r.render("> [!faq]- Why?\n> Because.\n\n> [!tip]+\n> > nested\n> open one\n\n> [!note] plain\n").html
    assert ('<details class="rk-callout rk-callout-warn" data-callout="faq">\n'
            '<summary class="rk-callout-title">Why?</summary>\n<p>Because.</p>\n</details>') in html, html
    assert '<details class="rk-callout rk-callout-ok" data-callout="tip" open="">\n' \
           '<summary class="rk-callout-title">Tip</summary>\n<blockquote>\n<p>nested\nopen one</p>\n' \
           '</blockquote>\n</details>' in html, html
    assert '<blockquote class="rk-callout rk-callout-note" data-callout="note">\n' \
           '<p class="rk-callout-title">plain</p>\n</blockquote>' in html, html


def test_a_template_override_added_between_builds_of_one_process_is_used(tmp_path):
    """`serve` keeps its Jinja2 environment across rebuilds: a
    record.html.j2 added to the site's templates folder while it ran was
    never used (Jinja2 rechecks only the file a template was loaded from),
    the pages kept the package's."""
    from recordkit.config import load_config
    from recordkit.emit.site import build_site
    base = tmp_path / "p"
    write(base, "records/note/NOTE-001.md", "---\nid: NOTE-001\ntitle: One\nstatus: draft\n---\nBody.\n")
    (base / "tpl").mkdir()
    (base / "recordkit.toml").write_text('root = "records"\n[site]\ntemplates = "tpl"\n')
    cfg = load_config(base)
    build_site(cfg, base / "out")
    assert "RECMARK" not in (base / "out" / "note" / "NOTE-001.html").read_text(encoding="utf-8")
    from recordkit.emit.templates import PACKAGE_DIR
    package = (Path(PACKAGE_DIR) / "site" / "record.html.j2").read_text(encoding="utf-8")
    (base / "tpl" / "record.html.j2").write_text(package.replace("<article", '<article data-x="RECMARK"', 1))
    build_site(cfg, base / "out")
    assert 'data-x="RECMARK"' in (base / "out" / "note" / "NOTE-001.html").read_text(encoding="utf-8")
