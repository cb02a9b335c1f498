"""The search index's postings: runs encoded apart and merged decode to
what one encoding of every document decodes to (the build encodes runs in helpers
and keeps them per shard; the merge joins them)."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recordkit.emit.site.search import decode_postings, encode_postings, merge_postings

_doc = st.tuples(st.integers(min_value=1, max_value=3),       # gap to the previous document
                 st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.integers(min_value=1, max_value=40),
                                 min_size=1, max_size=4))


def _runs(numbered: list, cuts: list) -> list:
    """The documents cut into runs at ``cuts``, each run's postings encoded
    as the build keeps them (term -> (encoded, last document))."""
    bounds = sorted({min(c, len(numbered)) for c in cuts} | {0, len(numbered)})
    parts = []
    for a, b in zip(bounds, bounds[1:]):
        run: dict = {}
        for doc, terms in numbered[a:b]:
            for t, w in terms.items():
                run.setdefault(t, []).extend((doc, w))
        parts.append({t: (encode_postings(lst), lst[-2]) for t, lst in run.items()})
    return parts


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(_doc, min_size=1, max_size=80), st.lists(st.integers(min_value=1, max_value=30), max_size=6))
def test_merged_runs_equal_one_encoding(docs, cuts):
    numbered, n = [], -1
    for gap, terms in docs:
        n += gap * 700     # large gaps: several base-36 digits
        numbered.append((n, terms))
    whole: dict = {}
    for doc, terms in numbered:
        for t, w in terms.items():
            whole.setdefault(t, []).extend((doc, w))
    merged = merge_postings(_runs(numbered, cuts))
    assert set(merged) == set(whole)
    for t, lst in whole.items():
        assert decode_postings(merged[t]) == lst
        assert decode_postings(encode_postings(lst)) == lst
        assert merged[t].count(",") + 1 == len(lst) // 2      # the page counts documents by commas


@settings(max_examples=100, deadline=None)
@given(st.lists(_doc, min_size=0, max_size=300), st.lists(st.integers(min_value=1, max_value=300), max_size=6))
def test_the_index_file_is_the_json_of_its_parts(docs, cuts):
    """search_index_js joins the postings texts without a JSON encoder and
    counts only terms long enough to be common: the file is what
    ``json.dumps`` of the same object gives, with the same common terms."""
    import json

    from recordkit.emit.site.search import search_index_js
    numbered, n = [], -1
    for gap, terms in docs:
        n += gap
        numbered.append((n, terms))
    postings = merge_postings(_runs(numbered, cuts))
    meta = [{"id": f"R-{i}", "title": f"<b>{i}</b>\u2028", "kind": "K", "status": None, "url": f"r/{i}.html"}
            for i in range(n + 1)]
    got = b"".join(search_index_js(meta, postings)).decode("utf-8")
    assert got.startswith("RK.searchIndex(") and got.endswith(");\n")
    data = json.loads(got[len("RK.searchIndex("):-3])
    total = len(meta)
    common = sorted(w for w, enc in postings.items() if total >= 200 and enc.count(",") + 1 > total // 2)
    assert data["common"] == common
    assert data["terms"] == sorted(set(postings) - set(common))
    assert data["postings"] == [postings[w] for w in data["terms"]]
    assert data["docs"] == [[d["id"], d["title"], d["kind"], "", d["url"]] for d in meta]
    assert "<" not in got and "\u2028" not in got
