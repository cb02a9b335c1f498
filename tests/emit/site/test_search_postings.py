"""The search index's postings: runs encoded apart and merged decode to
what one encoding of every document decodes to (the build encodes runs in helpers
and keeps them per shard; the merge joins them)."""
from hypothesis import given, settings
from hypothesis import strategies as st

from recordkit.emit.site.search import decode_postings, encode_postings, merge_postings

_doc = st.tuples(st.integers(min_value=1, max_value=3),       # gap to the previous document
                 st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.integers(min_value=1, max_value=40),
                                 min_size=1, max_size=4))


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
    bounds = sorted({min(c, len(numbered)) for c in cuts} | {0, len(numbered)})
    parts = []
    for a, b in zip(bounds, bounds[1:]):
        run: dict = {}
        for doc, terms in numbered[a:b]:
            for t, w in terms.items():
                run.setdefault(t, []).extend((doc, w))
        parts.append({t: (encode_postings(lst), lst[-2]) for t, lst in run.items()})
    merged = merge_postings(parts)
    assert set(merged) == set(whole)
    for t, lst in whole.items():
        assert decode_postings(merged[t]) == lst
        assert decode_postings(encode_postings(lst)) == lst
        assert merged[t].count(",") + 1 == len(lst) // 2      # the page counts documents by commas
