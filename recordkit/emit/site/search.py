"""The offline search index and the hover previews, as ``.js`` files that
define data through a global call (``RK.searchIndex({...})``), so that they
load by a ``<script>`` element from ``file://`` as well as from a server
(``fetch`` of a local file is refused by browsers).

* ``assets/search-index.js``: every published record's id, title, kind,
  status and URL, and an inverted index of the words of ids, titles, tags
  and bodies: a sorted list of terms and, for each, its postings (record
  numbers, delta-encoded in base 36, each with a weight when above 1).  The
  page searches prefixes by binary search in the sorted terms and ranks by
  a TF-IDF score in which title and id words weigh more.
* ``assets/text/NN.js``: the bodies as plain text, in buckets by a hash of
  the id, loaded for the results shown (highlighted snippets).
* ``assets/preview/NN.js``: kind, status, title and first paragraph of each
  record, bucketed the same way, loaded when a link is first hovered.

The bucket of an id is ``fnv1a32(id) % buckets``, computed the same way in
``site.js``.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter


def _word_class() -> str:
    """A character class of every letter, combining mark and number (the
    Unicode categories L*, M* and N*): what ``[\\p{L}\\p{M}\\p{N}]`` is in the
    page's tokenizer (site.js).  Python's ``\\w`` leaves out the marks, which
    would cut ``हिन्दी`` or a decomposed ``é`` into pieces."""
    ranges, start, prev = [], None, None
    span = list(range(0x32400)) + list(range(0xE0000, 0xE0200))   # nothing in L, M, N lies elsewhere
    for cp in span:
        if unicodedata.category(chr(cp))[0] in "LMN":
            if start is None or cp != prev + 1:
                if start is not None:
                    ranges.append((start, prev))
                start = cp
            prev = cp
    ranges.append((start, prev))

    def esc(cp):
        return "\\u%04x" % cp if cp < 0x10000 else "\\U%08x" % cp
    return "[" + "".join(esc(a) if a == b else esc(a) + "-" + esc(b) for a, b in ranges) + "]"


_WORD = _word_class()
#: the words of a text, as site.js's ``TOKEN`` takes them (keep the two alike)
TOKEN_RE = re.compile(_WORD + r"+(?:[-']" + _WORD + "+)*")
#: a longer word is not indexed (a hyphenated one is, by its parts)
MAX_TERM = 40
TITLE_WEIGHT = 5
ID_WEIGHT = 20
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def fnv1a32(text: str) -> int:
    """FNV-1a over the UTF-16 code units of ``text`` (as JavaScript sees a string)."""
    h = 0x811C9DC5
    data = text.encode("utf-16-le", "surrogatepass")
    for k in range(0, len(data), 2):
        h ^= data[k] | (data[k + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def bucket_count(n: int) -> int:
    b = 1
    while b * 48 < n:
        b *= 2
    return b


def bucket_of(rid: str, buckets: int) -> int:
    return fnv1a32(rid) % buckets


def normalize(text: str) -> str:
    """``text`` lower-cased and in Unicode's composed form (NFC), as the
    page reads a query (``q.toLowerCase().normalize("NFC")``)."""
    text = text.lower()
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def terms(text: str) -> Counter:
    """Lower-cased, NFC words of ``text`` (hyphenated words also split into
    parts); a word over :data:`MAX_TERM` characters is left out, but not
    the parts of a hyphenated one."""
    c = Counter(TOKEN_RE.findall(normalize(text)))
    for w in [w for w in c if "-" in w or "'" in w or len(w) > MAX_TERM]:
        n = c[w]
        if "-" in w or "'" in w:
            for part in _SPLIT_RE.split(w):
                if part and len(part) <= MAX_TERM:
                    c[part] += n
        if len(w) > MAX_TERM:
            del c[w]
    return c


_SPLIT_RE = re.compile(r"[-']")


def doc_terms(rid: str, title: str, tags: list, text: str) -> dict:
    """The weighted terms of one record (body words once each time they
    occur, title and tag words :data:`TITLE_WEIGHT` times, id words
    :data:`ID_WEIGHT` times)."""
    c = terms(text)
    for w, n in terms(title + " " + " ".join(tags)).items():
        c[w] += n * TITLE_WEIGHT
    for w in terms(rid):
        c[w] += ID_WEIGHT
    c[normalize(rid)] += ID_WEIGHT
    return c


_B36_TABLE: list = []


def _b36(n: int) -> str:
    if n < 46656:
        if not _B36_TABLE:
            _B36_TABLE.extend(_b36_slow(k) for k in range(46656))
        return _B36_TABLE[n]
    return _b36_slow(n)


def _b36_slow(n: int) -> str:
    if n == 0:
        return "0"
    out = []
    while n:
        n, r = divmod(n, 36)
        out.append(_B36[r])
    return "".join(reversed(out))


def json_js(value) -> str:
    """:func:`_js`, for callers that join fragments of one object."""
    return _js(value)


def _js(value) -> str:
    """JSON that is safe inside a .js file loaded by a script element (and
    inside an HTML script element): ``<`` and the line separators escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def encode_postings(flat: list) -> str:
    """``[doc, weight, doc, weight, ...]`` (ascending docs) as text: the
    first doc absolute, then deltas, in base 36; ``.w`` after a doc whose
    weight is above 1."""
    out = []
    last = 0
    for k in range(0, len(flat), 2):
        d, w = flat[k], flat[k + 1]
        out.append(_b36(d - last) + ("." + _b36(w) if w > 1 else ""))
        last = d
    return ",".join(out)


def merge_postings(parts: list[dict]) -> dict:
    """Postings of consecutive runs of documents joined into one.  Each
    part maps a term to (its encoded postings, whose first document number
    is absolute (:func:`encode_postings`), and its last document number).
    A later run is joined as it is, its first number marked absolute with
    ``=`` (the page's decoder sets the document there instead of adding):
    joining needs no decoding, which at 10,000 records and 50,000 terms was
    the slowest step of an incremental build.  A part may also map a term
    to the text of consecutive runs already joined (what this returns):
    joining is concatenation, so it joins the same way."""
    pieces: dict = {}
    for part in parts:
        for term, enc in part.items():
            if enc.__class__ is not str:      # a run: (text, last document); else runs already joined
                enc = enc[0]
            runs = pieces.get(term)
            if runs is None:
                pieces[term] = [enc]
            else:
                runs.append(enc)
    return {term: runs[0] if len(runs) == 1 else ",=".join(runs) for term, runs in pieces.items()}


def decode_postings(text: str) -> list:
    """``[doc, weight, ...]`` from :func:`encode_postings` or
    :func:`merge_postings` text (what the page's ``postings`` does)."""
    out, doc = [], 0
    for x in text.split(","):
        w = 1
        if "." in x:
            x, w = x.split(".", 1)
            w = int(w, 36)
        if x.startswith("="):
            doc = int(x[1:], 36)
        else:
            doc += int(x, 36)
        out += [doc, w]
    return out


def _postings_js(texts: list[str]) -> bytes:
    """``_js(texts)`` as bytes, for postings texts: they hold only base-36
    digits, ``,``, ``.`` and ``=`` (:func:`encode_postings`,
    :func:`merge_postings`), so each is its own JSON string body and none
    needs escaping (14 MB at 10,000 records: joined, not encoded)."""
    if not texts:
        return b"[]"
    return ('["' + '","'.join(texts) + '"]').encode("ascii")


def search_index_js(docs: list[dict], postings: dict) -> list[bytes]:
    """``docs``: [{id, title, kind, status, url}] in document-number order;
    ``postings``: term -> encoded postings (:func:`merge_postings`).
    Returns the file's bytes in pieces (the site's writer takes them).  Terms
    found in more than half of a large record's documents are left out
    (listed in ``common``; the page ignores them in a query)."""
    n = len(docs)
    words = sorted(postings)
    keep, common = [], []
    half = n // 2
    for w in words:
        enc = postings[w]
        # k documents take at least 2k - 1 characters: most terms are too
        # short to be counted
        if n >= 200 and len(enc) >= 2 * half + 1 and enc.count(",") + 1 > half:
            common.append(w)
        else:
            keep.append(w)
    # the file as UTF-8 pieces, one a key (the text of one json.dumps of
    # the object): no string of the whole index is made (at 10,000 records
    # 6 MB, twice that as a str once a title holds a character above U+00FF)
    docs_js = _js([[d["id"], d["title"], d["kind"], d["status"] or "", d["url"]] for d in docs])
    return [b'RK.searchIndex({"docs":', docs_js.encode("utf-8", "surrogatepass"),
            b',"terms":', _js(keep).encode("utf-8", "surrogatepass"),
            b',"postings":', _postings_js([postings[w] for w in keep]),
            b',"common":', _js(common).encode("utf-8", "surrogatepass"), b"});\n"]
