"""Tests for bench/generate.py, the synthetic record generator."""
from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import (  # noqa: E402
    DEFECTS, EXPECTED_CODE, KINDS, REL_FROM, REL_TARGETS, STATUSES, generate)

ID_RE = re.compile(r"\b(LIT|NOTE|THEORY|CLAIM|QUESTION)-\d{3,}\b")
WIKI_RE = re.compile(r"\[\[([^\]|]+)(?:\|[^\]]*)?\]\]")
FENCE_RE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
SPAN_RE = re.compile(r"`[^`\n]*`")
KEBAB_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\Z")
N = 200


def split(path: Path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), path
    end = text.index("\n---\n", 3)
    return text[4:end], text[end + 5:]


def targets(value):
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def load(root: Path):
    recs = {}
    for path in sorted(root.glob("*/*.md")):
        head, body = split(path)
        fm = yaml.safe_load(head)
        recs[fm["id"]] = (path, fm, body)
    return recs


def prose_only(body: str) -> str:
    return SPAN_RE.sub("", FENCE_RE.sub("", body))


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    out = tmp_path_factory.mktemp("clean")
    stats = generate(out, N, seed=3)
    return out, stats, load(out)


def test_files_and_counts(clean):
    out, stats, recs = clean
    files = sorted(out.glob("*/*.md"))
    assert len(files) == N == stats["count"] == len(recs)
    assert sum(stats["per_kind"].values()) == N
    assert all(stats["per_kind"][k] >= 1 for k in KINDS)
    assert stats["per_kind"]["LIT"] > stats["per_kind"]["NOTE"] > stats["per_kind"]["QUESTION"]
    for rid, (path, fm, _) in recs.items():
        kind = rid.split("-")[0]
        assert re.fullmatch(r"[A-Z]+-\d{3,}", rid)
        assert path.stem == rid
        assert path.parent.name == kind.lower()
    assert stats["defect_total"] == 0 and stats["defect_list"] == []


def test_front_matter_valid(clean):
    _, _, recs = clean
    arxiv = []
    for rid, (path, fm, _) in recs.items():
        kind = rid.split("-")[0]
        assert isinstance(fm["title"], str) and fm["title"].strip(), path
        assert fm["status"] in STATUSES[kind], path
        for tag in fm.get("tags") or []:
            assert KEBAB_RE.match(tag), (path, tag)
        for key in ("created", "updated", "date", "read"):
            if key in fm:
                assert isinstance(fm[key], dt.date), (path, key)
        if kind == "LIT":
            assert fm["authors"] and all(isinstance(a, str) for a in fm["authors"])
            assert isinstance(fm["year"], int)
            assert "arxiv" in fm or "doi" in fm
            if "arxiv" in fm:
                assert re.fullmatch(r"\d{4}\.\d{4,5}", fm["arxiv"]), fm["arxiv"]
                arxiv.append(fm["arxiv"])
            assert all(isinstance(x, str) for x in fm.get("references", []))
        if kind == "CLAIM":
            assert fm["strength"] in ("strong", "moderate", "weak")
        if kind == "THEORY" and fm["status"] in ("proposed", "active"):
            assert fm["promote_when"]["summary"]
    assert len(arxiv) == len(set(arxiv))
    # some references resolve to another LIT, so `cites` edges derive
    known = set(arxiv)
    hits = sum(ref in known for _, fm, _ in recs.values() for ref in fm.get("references", []))
    assert hits > 0


def test_relations_resolve_and_acyclic(clean):
    _, _, recs = clean
    for rid, (path, fm, _) in recs.items():
        kind = rid.split("-")[0]
        for key in fm:
            assert key not in REL_TARGETS or key in REL_FROM[kind], (path, key)
        for rel in REL_FROM[kind]:
            ts = targets(fm.get(rel))
            if rel in ("paper", "promoted_by"):
                assert len(ts) <= 1
            for t in ts:
                assert t in recs, (path, rel, t)
                assert t.split("-")[0] in REL_TARGETS[rel], (path, rel, t)
                assert t != rid
                if rel in ("extends", "grounds") and t.split("-")[0] == kind:
                    assert int(t.split("-")[1]) < int(rid.split("-")[1])  # acyclic
        if kind == "THEORY":
            assert targets(fm.get("source"))
        if kind == "CLAIM":
            assert targets(fm.get("grounds"))
        if kind == "QUESTION" and fm["status"] == "answered":
            assert targets(fm.get("answered_by"))


def test_lifecycle_requirements_hold(clean):
    _, _, recs = clean
    check_ids = set()
    for _, _, body in recs.values():
        check_ids.update(re.findall(r"^```python check id=(\S+)", body, re.M))
    for _, fm, _ in recs.values():
        for c in fm.get("checks") or []:
            assert c in check_ids
    final_bears = {}
    for rid, (_, fm, _) in recs.items():
        if rid.startswith("NOTE-") and fm["status"] == "final":
            for t in targets(fm.get("bears_on")):
                final_bears.setdefault(t, []).append(rid)
    for rid, (path, fm, _) in recs.items():
        if not rid.startswith("THEORY-"):
            continue
        for req in (fm.get("promote_when") or {}).get("requires") or []:
            if "check" in req:
                assert req["check"] in check_ids
            if "claim" in req:
                assert req["claim"] in recs
        if fm["status"] != "active":
            continue
        assert targets(fm.get("promoted_by")), path
        for req in fm["promote_when"]["requires"]:
            if "record" in req:
                assert req["record"] == {"kind": "NOTE", "relation": "bears_on", "status": "final"}
                assert final_bears.get(rid), path
            if "claim" in req:
                assert recs[req["claim"]][1]["status"] == "supported"


def test_bodies(clean):
    _, stats, recs = clean
    mentions = 0
    code_ids = 0
    total = 0
    for rid, (path, fm, body) in recs.items():
        size = len(body.encode("utf-8"))
        total += size
        assert 1536 <= size <= 16384, (path, size)
        assert body.count("\n## ") + body.startswith("## ") >= 3
        prose = prose_only(body)
        for m in ID_RE.finditer(prose):
            assert m.group(0) in recs, (path, m.group(0))
            mentions += 1
        for m in WIKI_RE.finditer(prose):
            assert m.group(1) in recs, (path, m.group(1))
        code_ids += len(ID_RE.findall(body)) - len(ID_RE.findall(prose))
        if rid.startswith("NOTE-"):
            assert "\n## Claims\n\n| id | claim | strength | support |\n" in body
            rows = re.findall(r"^\| C\d+ \|.*\| (\S+) \| [^|]* \|$", body, re.M)
            assert rows and set(rows) <= {"strong", "moderate", "weak"}, path
        if rid.startswith("THEORY-"):
            assert "## What is asserted" in body and "## What would confirm or reject it" in body
        if rid.startswith("LIT-") and fm["status"] == "active":
            assert "## Key takeaways" in body
    assert code_ids > 0  # ids inside code exist, to catch linters that count them
    per_kb = mentions / (total / 1024)
    assert 1 < per_kb < 6, per_kb
    assert 4000 < total / N < 12000  # 10k records ≈ 85 MB
    assert stats["body_min"] >= 1536 and stats["body_max"] <= 16384


def test_deterministic(tmp_path, clean):
    out, _, _ = clean
    generate(tmp_path / "again", N, seed=3)
    a = {p.relative_to(out): p.read_bytes() for p in out.glob("*/*.md")}
    b = {p.relative_to(tmp_path / "again"): p.read_bytes() for p in (tmp_path / "again").glob("*/*.md")}
    assert a == b
    generate(tmp_path / "other", N, seed=4)
    c = {p.relative_to(tmp_path / "other"): p.read_bytes() for p in (tmp_path / "other").glob("*/*.md")}
    assert a != c


def test_refuses_non_empty_dir(clean):
    out, _, _ = clean
    with pytest.raises(FileExistsError):
        generate(out, 10)


def test_defects_planted(tmp_path):
    out = tmp_path / "bad"
    stats = generate(out, N, seed=3, defects=0.5)
    assert 60 < stats["defect_total"] < 140
    assert sum(stats["defects"].values()) == stats["defect_total"] == len(stats["defect_list"])
    assert sum(1 for v in stats["defects"].values() if v) >= 7
    good = tmp_path / "good"
    generate(good, N, seed=3)
    bad_ids = {d["id"] for d in stats["defect_list"]}
    for d in stats["defect_list"]:
        assert d["code"] == EXPECTED_CODE[d["defect"]] and d["defect"] in DEFECTS
        path = out / d["path"]
        head, body = split(path)
        if d["defect"] == "broken_yaml":
            with pytest.raises(yaml.YAMLError):
                yaml.safe_load(head)
            continue
        if d["defect"] == "invalid_date":
            try:
                fm = yaml.safe_load(head)
            except ValueError:  # e.g. an unquoted 2024-02-30: PyYAML raises
                continue
            assert any(k in fm and not isinstance(fm[k], dt.date)
                       for k in ("created", "updated", "date", "read"))
            continue
        fm = yaml.safe_load(head)
        kind = d["id"].split("-")[0]
        if d["defect"] == "id_mismatch":
            assert path.stem != fm["id"] == d["id"]
        elif d["defect"] == "bad_status":
            assert fm["status"] not in STATUSES[kind]
        elif d["defect"] == "missing_title":
            assert not fm.get("title")
        elif d["defect"] == "bad_tag":
            assert not all(KEBAB_RE.match(t) for t in fm["tags"])
        elif d["defect"] == "bad_strength":
            rows = re.findall(r"^\| C\d+ \|.*\| ([^|]+) \| [^|]* \|$", body, re.M)
            assert not set(rows) <= {"strong", "moderate", "weak"}
        elif d["defect"] == "dangling_relation":
            ts = [t for rel in REL_FROM[kind] for t in targets(fm.get(rel))]
            assert any(not (good / t.split("-")[0].lower() / f"{t}.md").exists() for t in ts)
        elif d["defect"] == "unknown_field":
            known = {"id", "title", "status", "status_note", "tags", "created", "updated",
                     "aliases", "authors", "year", "venue", "arxiv", "doi", "url", "read",
                     "references", "date", "promote_when", "strength", "checks", *REL_TARGETS}
            assert set(fm) - known
    # records without a defect are byte-identical to the defect-free run
    for path in good.glob("*/*.md"):
        if path.stem not in bad_ids:
            assert (out / path.relative_to(good)).read_bytes() == path.read_bytes()


def test_tiny_counts(tmp_path):
    for n in (0, 1, 3, 7):
        stats = generate(tmp_path / str(n), n, seed=1)
        assert len(list((tmp_path / str(n)).glob("*/*.md"))) == n == stats["count"]
