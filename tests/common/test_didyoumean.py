"""'Did you mean' suggestions: the symmetric-delete index finds exactly the
ids one edit away, as generating every one-edit variant of the query does."""
import random

from hypothesis import given, settings, strategies as st

from recordkit.common.didyoumean import IdIndex, one_edit

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_"


def variants(t: str) -> set[str]:
    """Every string one edit from ``t`` over ALPHABET (the brute force)."""
    out = set()
    for i in range(len(t) + 1):
        for c in ALPHABET:
            if i < len(t) and c != t[i]:
                out.add(t[:i] + c + t[i + 1:])
            out.add(t[:i] + c + t[i:])
        if i < len(t):
            out.add(t[:i] + t[i + 1:])
        if i < len(t) - 1 and t[i] != t[i + 1]:
            out.add(t[:i] + t[i + 1] + t[i] + t[i + 2:])
    out.discard(t)
    return out


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="AB12-", min_size=0, max_size=7), st.text(alphabet="AB12-", min_size=0, max_size=7))
def test_one_edit_is_the_brute_force(a, b):
    assert one_edit(a, b) == (b in variants(a))


def test_closest_matches_the_brute_force_on_a_large_id_set():
    rng = random.Random(3)
    kinds = ["LIT", "NOTE", "THEORY", "CLAIM", "QUESTION"]
    ids = {f"{rng.choice(kinds)}-{rng.randint(1, 3000):03d}" for _ in range(4000)}
    index = IdIndex(ids)
    for _ in range(400):
        base = rng.choice(sorted(ids))
        q = rng.choice([base, base.lower(), base[:-1], base + "7", base.replace("-", "_"),
                        base[:-2] + base[-1] + base[-2], f"{rng.choice(kinds)}-{rng.randint(1, 3000):03d}"])
        near = variants(q.upper())
        want = {i for i in ids if i != q and (i == q.upper() or i in near)}
        got = index.closest(q)
        assert (got is None) == (not want)
        if got is not None:
            assert got in want
            same_kind = [w for w in want if w.rpartition("-")[0] == q.rpartition("-")[0]]
            assert not same_kind or got in same_kind


def test_typical_typos():
    index = IdIndex(["THEORY-175", "THEORY-798", "LIT-849", "NOTE-738"])
    assert index.closest("THEORY-715") == "THEORY-175"      # two digits swapped
    assert index.closest("LIT-894") == "LIT-849"
    assert index.closest("lit-849") == "LIT-849"            # case only
    assert index.closest("NOTE-7380") == "NOTE-738"         # a digit added
    assert index.closest("THEORY-175", exclude="THEORY-175") is None
    assert index.closest("CLAIM-999") is None
