"""Inputs that made `recordkit build` quadratic (a defect hunt of time on
adversarial input): many tags on one record, one record embedded many
times.  Each is built at two sizes; the bound is generous (the machine is
shared), the quadratic code was far past it."""
import pytest
import subprocess
import sys
from conftest import child_cpu


def _build(tmp_path, name, files: dict) -> float:
    base = tmp_path / name
    for rel, text in files.items():
        p = base / "v" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    (base / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    t0 = child_cpu()
    out = subprocess.run([sys.executable, "-m", "recordkit", "build", "-o", str(base / "site"), "-q"],
                         capture_output=True, text=True, cwd=base, timeout=300)
    took = child_cpu() - t0
    assert out.returncode == 0, out.stderr
    return took


@pytest.mark.slow
def test_a_record_of_many_tags_builds_in_linear_time(tmp_path):
    # every list row carried its record's tags, and each tag page's key was
    # made from its rows: 20,000 tags took 27 s (now 4.7 s), 40,000 81 s
    times = [_build(tmp_path, f"t{n}", {"Hub.md": "# Hub\n\n" + " ".join(f"#t{i}" for i in range(n)) + "\n"})
             for n in (3000, 12000)]
    assert times[1] < 3.5 * times[0] + 1, times     # (quadratic: 2.7 s, 12.2 s; now 2.8 s, 5.6 s)
    assert (tmp_path / "t12000" / "site" / "tag" / "t11999.html").exists()


@pytest.mark.slow
def test_a_note_embedded_many_times_makes_a_page_of_bounded_size(tmp_path):
    # each embed rendered the embedded body again: a note embedding a 200 KB
    # note 2,000 times made a 375 MB page in 60 s and 1.9 GB.  A page shows
    # at most EMBED_BUDGET (a million) characters of embedded text
    big = ("word " * 15 + "\n") * 2500                      # 200 KB
    files = {"Big.md": big, "Host.md": "![[Big]]\n\n" * 2000}
    took = _build(tmp_path, "e", files)
    page = (tmp_path / "e" / "site" / "note" / "Host.html").read_text(encoding="utf-8")
    assert len(page) < 3_000_000 and took < 30, (len(page), took)
    assert page.count('class="rk-embed-block"') == 5, page.count('class="rk-embed-block"')   # 5 x 200 KB
    assert page.count('data-id="Big"') >= 2000     # the others: links
    # past the budget: five notes of 300,000 characters, three are shown
    files = {f"N{i}.md": "x " * 150_000 + "\n" for i in range(5)}
    files["Host.md"] = "".join(f"![[N{i}]]\n\n" for i in range(5))
    _build(tmp_path, "b", files)
    page = (tmp_path / "b" / "site" / "note" / "Host.html").read_text(encoding="utf-8")
    assert page.count('class="rk-embed-block"') == 3


@pytest.mark.slow
def test_an_incremental_build_follows_a_change_of_tags(tmp_path):
    # 55d34f0 took the tags out of the list rows, and the list pages'
    # signature was made of the rows: a changed tag left tag pages stale
    # (no page for a new tag, a record missing from one it gained)
    root = tmp_path / "records"
    root.mkdir()
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    one = root / "NOTE-001.md"
    one.write_text("---\nid: NOTE-001\ntitle: One\nstatus: draft\ntags: [alpha]\n---\nBody NOTE-002\n")
    (root / "NOTE-002.md").write_text("---\nid: NOTE-002\ntitle: Two\nstatus: draft\ntags: [beta]\n---\nBody NOTE-001\n")
    build = [sys.executable, "-m", "recordkit", "build", "-o", "site", "-q"]
    subprocess.run(build, cwd=tmp_path, check=True, timeout=300)
    one.write_text(one.read_text().replace("tags: [alpha]", "tags: [alpha, beta, gamma]"))
    subprocess.run(build, cwd=tmp_path, check=True, timeout=300)
    site = tmp_path / "site"
    assert (site / "tag" / "gamma.html").exists()
    assert "NOTE-001" in (site / "tag" / "beta.html").read_text()
    subprocess.run([*build[:-2], "fresh", "-q"], cwd=tmp_path, check=True, timeout=300)
    for page in ("tags.html", "index.html", "tag/beta.html", "tag/gamma.html"):
        assert (site / page).read_bytes() == (tmp_path / "fresh" / page).read_bytes(), page
