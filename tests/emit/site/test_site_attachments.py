"""Attachments on the site, through ``recordkit build`` (click's runner, in
this process) on a small Obsidian vault: every file a published page embeds
or links is copied once into ``files/`` and shown as an ``<img>``,
``<video>``, ``<audio>`` or a link; what only an unpublished page names is
not copied; a hostile path (out of the root, absolute, a symbolic link out,
hidden, ``.git/``, over the size cap) copies nothing, is a warning with its
file, line and column, and a plain name on the page; an SVG's copy runs no
script (docs/site.md, "Attachments")."""
from __future__ import annotations

import base64
import html
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_fixtures import crawl

#: a 2x1 PNG (red, blue)
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAAEElEQVR4nGP4z8DAwMDAAAAKBAEA"
                       "tR1C0gAAAABJRU5ErkJggg==")
EVIL_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            'onload="alert(1)" viewBox="0 0 10 10"><script>alert(2)</script>'
            '<a xlink:href="javascript:alert(3)"><rect width="10" height="10" fill="red" onclick="alert(4)"/></a>'
            '<image href="https://evil.example/x.png"/><foreignObject><div>x</div></foreignObject></svg>')

NOTE = """---
title: Figures
---
# Figures

Inline ![[fig.png]] in a sentence, then ![[deepfig.png|300]] and ![[fig.png|320x200]] and ![[fig.png|A caption]].

![my alt](my%20fig.png) and ![angle](<my fig.png>) and ![beside](./beside.png)

![[clip.mp4]]

![[song.mp3]]

![[paper.pdf]]

![[data.zip]]

See [the license](LICENSE.txt) and [[paper.pdf]].

![[drawing.svg]] ![[laughs.svg]]

![[fig.png]] ^fig1

Hostile: ![[../../secret.png]] and ![x](/etc/hostname) and ![[escape.png]] and ![[.hidden.png]] and
[cfg](.git/config) and ![[big.png]].

```
![[incode.png]]
```
"""

PRIVATE = """---
title: Private
publish: false
---
Only here: ![[private.png]]
"""


def _vault(base: Path) -> Path:
    v = base / "vault"
    for d in (".obsidian", "attachments", "sub/deep", "notes", ".git"):
        (v / d).mkdir(parents=True, exist_ok=True)
    (v / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n\n[site]\nattachment_max_size = 4000\n')
    (v / ".obsidian" / "app.json").write_text('{"attachmentFolderPath": "attachments"}')
    (v / "notes" / "Figures.md").write_text(NOTE, encoding="utf-8")
    (v / "notes" / "Private.md").write_text(PRIVATE, encoding="utf-8")
    for rel in ("attachments/fig.png", "sub/deep/deepfig.png", "my fig.png", "notes/beside.png",
                "attachments/private.png", ".hidden.png", "incode.png"):
        (v / rel).write_bytes(PNG)
    (v / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    (v / "song.mp3").write_bytes(b"ID3\x03")
    (v / "paper.pdf").write_bytes(b"%PDF-1.4\n")
    (v / "data.zip").write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    (v / "LICENSE.txt").write_text("MIT\n")
    (v / "drawing.svg").write_text(EVIL_SVG)
    (v / "laughs.svg").write_text('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">'
                                  '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
                                  '<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text>'
                                  '<script>alert(1)</script></svg>')
    (v / ".git" / "config").write_text("[core]\n")
    (v / "big.png").write_bytes(PNG + b"\x00" * 5000)
    (base / "secret.png").write_bytes(b"SECRET-BYTES")
    (base / "outside.png").write_bytes(b"OUTSIDE-BYTES")
    os.symlink(base / "outside.png", v / "escape.png")
    return v


def build(vault: Path, out: Path):
    from recordkit.cli import main
    here = os.getcwd()
    os.chdir(vault)
    try:
        res = CliRunner().invoke(main, ["build", "-o", str(out)], catch_exceptions=False,
                                 env={"RECORDKIT_CLEAN_EXIT": "1"})
    finally:
        os.chdir(here)
    assert res.exit_code == 0, res.output
    return res


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("attach")
    v = _vault(base)
    res = build(v, base / "out")
    page = _page(base / "out").read_text(encoding="utf-8")
    body = page.split('<div class="rk-body">', 1)[1].split('<aside class="rk-aside">', 1)[0]
    return {"base": base, "vault": v, "out": base / "out", "page": page, "body": body, "res": res}


def _page(out: Path) -> Path:
    return next(p for p in out.rglob("*.html") if "figures" in p.name.lower())


def _files(out: Path) -> set:
    return {p.relative_to(out / "files").as_posix() for p in (out / "files").rglob("*") if p.is_file()}


def test_images_are_found_as_obsidian_finds_them_and_copied_once(built):
    out, body = built["out"], built["body"]
    # by wikilink, through the attachment folder; anywhere in a paragraph
    assert re.search(r'Inline <img class="rk-image" src="\.\./files/attachments/fig\.png" alt="fig\.png"', body), body
    # by name alone in a subfolder (Obsidian's shortest-path rule), with a width
    assert '<img class="rk-image" src="../files/sub/deep/deepfig.png" alt="deepfig.png" width="300"' in body
    assert 'src="../files/attachments/fig.png" alt="fig.png" width="320" height="200"' in body
    assert 'src="../files/attachments/fig.png" alt="A caption"' in body
    # a Markdown image with %20 and in <angle brackets>, and one beside the note
    assert '<img class="rk-image" src="../files/my%20fig.png" alt="my alt"' in body
    assert '<img class="rk-image" src="../files/my%20fig.png" alt="angle"' in body
    assert '<img class="rk-image" src="../files/notes/beside.png" alt="beside"' in body
    assert (out / "files" / "attachments" / "fig.png").read_bytes() == PNG
    assert (out / "files" / "my fig.png").read_bytes() == PNG


def test_media_pdf_and_other_files(built):
    body = built["body"]
    assert '<video class="rk-video" controls preload="metadata" src="../files/clip.mp4"' in body
    assert '<audio class="rk-audio" controls preload="metadata" src="../files/song.mp3"' in body
    assert '<a class="rk-file rk-file-pdf" href="../files/paper.pdf">paper.pdf</a>' in body
    assert '<a class="rk-file rk-file-zip" href="../files/data.zip">data.zip</a>' in body
    assert '<a class="rk-file" href="../files/LICENSE.txt">the license</a>' in body
    assert '<a class="rk-file" href="../files/paper.pdf">paper.pdf</a>' in body
    assert (built["out"] / "files" / "LICENSE.txt").read_text() == "MIT\n"


def test_a_block_id_on_an_image_line_names_its_block(built):
    assert re.search(r'<p id="\^?fig1"><img class="rk-image" src="\.\./files/attachments/fig\.png"', built["body"])


def test_what_is_copied_is_exactly_what_published_pages_name(built):
    assert _files(built["out"]) == {
        "attachments/fig.png", "sub/deep/deepfig.png", "my fig.png", "notes/beside.png", "clip.mp4", "song.mp3",
        "paper.pdf", "data.zip", "LICENSE.txt", "drawing.svg", "laughs.svg"}
    # (private.png: only an unpublished page names it; incode.png: only code does)


def test_hostile_paths_copy_nothing_and_are_located_warnings(built):
    out, body, said = built["out"], built["body"], built["res"].output
    everything = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert b"SECRET-BYTES" not in everything and b"OUTSIDE-BYTES" not in everything
    assert not any("hostname" in p.name or "config" == p.name or p.name.startswith(".hidden") or p.name == "big.png"
                   or p.name == "escape.png" for p in out.rglob("*"))
    line = NOTE.splitlines().index("Hostile: ![[../../secret.png]] and ![x](/etc/hostname) and ![[escape.png]] and "
                                   "![[.hidden.png]] and") + 1
    for col, target, why in ((10, "../../secret.png", "leaves the record root"),
                             (36, "/etc/hostname", "absolute path"),
                             (60, "escape.png", "symbolic link to a file outside"),
                             (80, ".hidden.png", "hidden")):
        assert re.search(rf"warning: notes/Figures\.md:{line}:{col}: attachment {re.escape(target)} not published: "
                         rf"[^\n]*{why}", said), (target, said)
    assert re.search(rf"notes/Figures\.md:{line + 1}:1: attachment \.git/config not published: [^\n]*hidden", said)
    assert re.search(rf"notes/Figures\.md:{line + 1}:24: attachment big\.png not published: [^\n]*larger than", said)
    for name in ("secret.png", "escape.png", ".hidden.png", "big.png"):
        assert re.search(rf'<span class="rk-attachment" title="attachment not published: [^"]*">{re.escape(name)}<',
                         body), (name, body)
    assert '<span class="rk-attachment"' in body.split("/etc/hostname")[0] or "hostname" not in body
    assert "incode.png" in body and "files/incode.png" not in body


def test_an_svg_copy_runs_no_script(built):
    svg = (built["out"] / "files" / "drawing.svg").read_text(encoding="utf-8")
    low = svg.lower()
    for bad in ("<script", "onload", "onclick", "javascript:", "evil.example", "foreignobject"):
        assert bad not in low, (bad, svg)
    assert "<rect" in svg and 'viewBox="0 0 10 10"' in svg
    # a document type (entities: "billion laughs") is not read: an empty drawing
    laughs = (built["out"] / "files" / "laughs.svg").read_text(encoding="utf-8")
    assert "aaaa" not in laughs and "script" not in laughs and "ENTITY" not in laughs and "<svg" in laughs


def test_the_site_has_no_broken_link_and_allows_same_origin_media_only(built):
    assert crawl(built["out"])["broken"] == []
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', built["page"]).group(1)
    csp = html.unescape(csp)
    assert "img-src 'self' data:;" in csp and "media-src 'self';" in csp and "http" not in csp


def test_attachments_are_not_records(built):
    """A PNG, an SVG, a PDF beside the notes are no notes: not linted."""
    from recordkit.cli import main
    here = os.getcwd()
    os.chdir(built["vault"])
    try:
        res = CliRunner().invoke(main, ["lint", "--format", "json", "--exit-zero", "--no-cache"],
                                 env={"RECORDKIT_CLEAN_EXIT": "1"})
    finally:
        os.chdir(here)
    assert res.exit_code == 0, res.output
    import json
    names = {d["filename"] for d in json.loads(res.stdout)}
    assert all(n.endswith(".md") for n in names), names


def test_incremental_builds_keep_copy_and_remove_attachments(tmp_path):
    v = _vault(tmp_path)
    out = tmp_path / "out"
    build(v, out)
    kept = out / "files" / "attachments" / "fig.png"
    os.utime(kept, ns=(1_000_000_000, 1_000_000_000))
    wav = out / "files" / "song.mp3"
    build(v, out)
    assert kept.stat().st_mtime_ns == 1_000_000_000          # unchanged: not written again
    # changed, removed, newly named
    (v / "attachments" / "fig.png").write_bytes(PNG + b"\x00")
    (v / "song.mp3").unlink()
    note = v / "notes" / "Figures.md"
    note.write_text(note.read_text(encoding="utf-8").replace("![[data.zip]]", "![[data.zip]] ![[private.png]]"),
                    encoding="utf-8")
    # a page naming a file not there yet, then there: rendered again
    (v / "notes" / "Later.md").write_text("Soon: ![[later.png]]\n", encoding="utf-8")
    build(v, out)
    later = next(p for p in out.rglob("*.html") if "later" in p.name.lower())
    assert 'title="attachment not found">later.png<' in later.read_text(encoding="utf-8")
    (v / "sub" / "later.png").write_bytes(PNG)
    build(v, out)
    assert '<img class="rk-image" src="../files/sub/later.png"' in later.read_text(encoding="utf-8")
    # the incremental site is the cold build's, page for page
    build(v, tmp_path / "cold")
    for page in (later, _page(out)):
        assert page.read_bytes() == (tmp_path / "cold" / page.relative_to(out)).read_bytes(), page
    assert kept.read_bytes() == PNG + b"\x00"
    assert not wav.exists()
    assert (out / "files" / "attachments" / "private.png").read_bytes() == PNG
    page = _page(out).read_text(encoding="utf-8")
    assert 'title="attachment not found">song.mp3<' in page
    assert crawl(out)["broken"] == []


def test_serve_copies_an_edited_attachment(tmp_path):
    from recordkit.config import load_config
    from recordkit.emit.site.serve import SiteServer
    v = _vault(tmp_path)
    here = os.getcwd()
    os.chdir(v)
    try:
        srv = SiteServer(load_config(v), tmp_path / "out", log=lambda _line: None)
        srv.first_build()
        copy = tmp_path / "out" / "files" / "attachments" / "fig.png"
        assert copy.read_bytes() == PNG
        edited = v / "attachments" / "fig.png"
        edited.write_bytes(PNG + b"edited")
        assert str(edited) in srv.snapshot()           # watched
        result = srv.build_once({str(edited)})
    finally:
        os.chdir(here)
    assert result["ok"], result
    assert copy.read_bytes() == PNG + b"edited"


def test_ties_are_broken_as_obsidian_breaks_them(tmp_path):
    """Several files of one name: a wikilink's exact path from the root wins
    over the file beside the note, a Markdown link's path reads from the
    note; by name alone, the note's own folder, then the shortest path
    string (``a/b/`` before ``zzzz/``)."""
    v = tmp_path / "vault"
    for rel, mark in (("x.png", b"root"), ("notes/x.png", b"beside"), ("notes/y.png", b"own"),
                      ("a/y.png", b"a"), ("a/b/z.png", b"ab"), ("zzzz/z.png", b"zzzz")):
        (v / rel).parent.mkdir(parents=True, exist_ok=True)
        (v / rel).write_bytes(PNG + mark)
    (v / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    (v / "notes" / "Ties.md").write_text("W ![[x.png]] M ![m](x.png) Y ![[y.png]] Z ![[z.png]]\n", encoding="utf-8")
    build(v, tmp_path / "out")
    body = next(p for p in (tmp_path / "out").rglob("*.html") if "ties" in p.name.lower()).read_text(encoding="utf-8")
    srcs = re.findall(r'<img class="rk-image" src="\.\./files/([^"]+)"', body)
    assert srcs == ["x.png", "notes/x.png", "notes/y.png", "a/b/z.png"], srcs


def test_a_path_from_the_top_is_a_file_of_the_record_root(tmp_path):
    """``![x](/assets/fig.png)`` names the vault's ``assets/fig.png`` (as
    Obsidian, Quartz and Dendron read a leading ``/``), never the disk's;
    one the record root does not have is a located warning."""
    v = tmp_path / "vault"
    (v / "assets").mkdir(parents=True)
    (v / "assets" / "fig one.png").write_bytes(PNG + b"top")
    (v / "notes").mkdir()
    (v / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    (v / "notes" / "Top.md").write_text("A ![a](/assets/fig%20one.png) B ![b](/etc/hostname)\n", encoding="utf-8")
    res = build(v, tmp_path / "out")
    body = next(p for p in (tmp_path / "out").rglob("*.html") if "top" in p.name.lower()).read_text(encoding="utf-8")
    assert re.findall(r'<img class="rk-image" src="\.\./files/([^"]+)"', body) == ["assets/fig%20one.png"]
    assert (tmp_path / "out" / "files" / "assets" / "fig one.png").read_bytes().endswith(b"top")
    assert re.search(r"warning: notes/Top\.md:1:\d+: attachment /etc/hostname not published: [^\n]*absolute path",
                     res.output), res.output
    assert not [p for p in (tmp_path / "out").rglob("*") if "hostname" in p.name]


@pytest.mark.browser
def test_an_image_loads_from_file_urls(built):
    from browser import Tab, launch_chromium
    page = _page(built["out"])
    with launch_chromium() as b, Tab(b) as t:
        t.page.goto(page.as_uri())
        t.page.wait_for_load_state("load")
        widths = t.page.eval_on_selector_all(
            "img.rk-image", "imgs => imgs.map(i => [i.getAttribute('src'), i.complete && i.naturalWidth])")
    assert widths and all(w and w > 0 for _, w in widths), widths


def test_a_link_to_a_folder_goes_to_its_own_note(tmp_path):
    """``[decisions](decisions/)`` (Quartz, GitHub and MADR's own docs
    write them) is a link to the folder's index.md or README.md page, not
    "attachment not found"; a folder with neither stays text."""
    v = tmp_path / "vault"
    (v / "decisions").mkdir(parents=True)
    (v / "guide").mkdir()
    (v / "empty").mkdir()
    (v / "decisions" / "index.md").write_text("# Decisions\n\nThe log.\n", encoding="utf-8")
    (v / "guide" / "README.md").write_text("# Guide\n\nRead me.\n", encoding="utf-8")
    (v / "empty" / "x.txt").write_text("x")
    (v / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    (v / "Start.md").write_text("See [the log](decisions/), [the guide](./guide/#read) and [nothing](empty/).\n",
                                encoding="utf-8")
    build(v, tmp_path / "out")
    page = next(p for p in (tmp_path / "out").rglob("*.html") if p.name.lower() == "start.html")
    body = page.read_text(encoding="utf-8").split('<div class="rk-body">', 1)[1]
    links = dict((text, href) for href, text in re.findall(r'<a class="rk-ref[^"]*" href="([^"]+)"[^>]*>([^<]+)</a>',
                                                           body))
    assert set(links) >= {"the log", "the guide"}, body[:800]
    for text, href in links.items():
        assert (page.parent / href.split("#")[0]).is_file(), (text, href)
    assert "nothing" not in links
