"""The offline search index and the hover previews, as ``.js`` files that
define data through a global call (``RK.searchIndex({...})``), so that they
load by a ``<script>`` element from ``file://`` as well as from a server
(``fetch`` of a local file is refused by browsers).

* ``assets/search-index.js``: every published record's id, title, kind,
  status and URL, and an inverted index of the words of ids, titles, tags
  and bodies: a sorted list of terms and, for each, its postings (record
  numbers, delta-encoded in base 36, each with a weight when above 1: a
  body word's count saturated as BM25's, 1 to 3, plus 5 a title or tag
  word, plus 20 an id word, :func:`doc_terms`; a run of CJK characters is
  indexed by its pairs, :func:`cjk_terms`).  The page searches prefixes by
  binary search in the sorted terms and ranks by idf times weight.
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
from functools import lru_cache


#: the blocks of the scripts written without spaces between words (Han,
#: Hiragana, Katakana, Hangul, with their compatibility and halfwidth
#: forms): a run of their letters and numbers is indexed as overlapping
#: pairs of characters (site.js's ``CJK`` holds the same ranges)
CJK_RANGES = ((0x1100, 0x11FF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x3130, 0x318F),
              (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F),
              (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFF66, 0xFFDC), (0x1AFF0, 0x1B16F),
              (0x20000, 0x3FFFF))


def _classes() -> tuple:
    """Character classes, from the Unicode categories: every letter,
    combining mark and number (L*, M*, N*: what ``[\\p{L}\\p{M}\\p{N}]`` is in
    the page's tokenizer, site.js; Python's ``\\w`` leaves out the marks,
    which would cut ``हिन्दी`` or a decomposed ``é`` into pieces); the marks;
    the letters and numbers of :data:`CJK_RANGES`; and the other letters,
    numbers and every mark (what a word that is not CJK is made of)."""
    cat = unicodedata.category
    code = {"M": "1", "L": "3", "N": "3"}     # 1: a mark, 2: a CJK letter or number, 3: another one
    pieces = []
    for lo, hi in ((0, 0x32400), (0xE0000, 0xE0200)):     # nothing in L, M, N lies elsewhere
        text = "".join([code.get(cat(chr(cp))[0], "0") for cp in range(lo, hi)])
        for a, b in CJK_RANGES:
            a, b = max(a, lo) - lo, min(b + 1, hi) - lo
            if a < b:
                text = text[:a] + text[a:b].replace("3", "2") + text[b:]
        pieces.append((lo, text))

    def ranges(codes):
        return [(lo + m.start(), lo + m.end() - 1) for lo, text in pieces
                for m in re.finditer("[" + codes + "]+", text)]

    def esc(cp):
        return "\\u%04x" % cp if cp < 0x10000 else "\\U%08x" % cp

    def cls(spans):
        return "[" + "".join(esc(a) if a == b else esc(a) + "-" + esc(b) for a, b in spans) + "]"
    return tuple(cls(ranges(codes)) for codes in ("123", "1", "2", "13"))


@lru_cache(maxsize=1)
def _unicode_res() -> dict:
    """The classes of :func:`_classes` and the regexes made of them, made
    on first need (a text with a mark or a CJK character): the classes
    read the category of 200,000 characters, 0.17 s, which every process
    that imports this module paid (an edit build's import among them)."""
    word, mark, cjk, other = _classes()
    return {
        "_WORD": word, "_MARK": mark, "_CJK": cjk, "_OTHER": other,
        #: the words of a text, as site.js's ``TOKEN`` takes them (keep the two
        #: alike): a run of CJK letters and numbers (with the marks on them), or
        #: letters, numbers and marks of other scripts joined by ``-`` or ``'``
        "TOKEN_RE": re.compile(cjk + "(?:" + cjk + "|" + mark + ")*|" + other + r"+(?:[-']" + other + "+)*"),
        #: a CJK character with its marks (a run's pairs are of these)
        "_CJK_CHAR_RE": re.compile(cjk + mark + "*"),
        "_CJK_START_RE": re.compile(cjk),
    }


def __getattr__(name: str):
    """``TOKEN_RE``, ``_CJK_START_RE``, … (:func:`_unicode_res`) as the
    module's names."""
    res = _unicode_res() if name in _UNICODE_NAMES else None
    if res is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return res[name]


_UNICODE_NAMES = frozenset(("_WORD", "_MARK", "_CJK", "_OTHER", "TOKEN_RE", "_CJK_CHAR_RE", "_CJK_START_RE"))
#: TOKEN_RE on a text with no mark and no CJK character: the same words, 8x
#: faster (a class of categories, not of 12,000 characters of ranges)
_PLAIN_RE = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
#: the last code point :func:`_classes` reads below the tags block (CJK_RANGES
#: reach further, and hold no letter or number there)
_CLASSES_END = 0x32400


def _is_cjk_char(c: str) -> bool:
    """Whether ``c`` is in :data:`_CJK` (a letter or number of
    :data:`CJK_RANGES`), without making the class."""
    cp = ord(c)
    if cp < 0x1100 or cp >= _CLASSES_END or unicodedata.category(c)[0] not in "LN":
        return False
    for a, b in CJK_RANGES:
        if a <= cp <= b:
            return True
    return False


def words(text: str) -> list:
    """``TOKEN_RE.findall(text)``, the fast way when ``text`` holds no mark
    and no CJK character (most text: ASCII is told at C speed, the other
    characters are looked at once each)."""
    if not text.isascii():
        cat = unicodedata.category
        for c in set(_NON_ASCII_RE.findall(text)):
            if cat(c)[0] == "M" or _is_cjk_char(c):
                return _unicode_res()["TOKEN_RE"].findall(text)
    return _PLAIN_RE.findall(text)


#: the characters :func:`words` looks at (a set of the whole text took
#: longer than finding its few others)
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")


#: a longer word is not indexed (a hyphenated one is, by its parts)
MAX_TERM = 40
#: a title or tag word's weight, each time it is there (above any body word's)
TITLE_WEIGHT = 5
#: an id word's weight (and the whole id's)
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


def cjk_terms(run: str) -> list:
    """The terms of a run of CJK characters (a word of :data:`TOKEN_RE` that
    starts with one): each pair of neighbours (``東京大学`` is ``東京``,
    ``京大``, ``大学``), or the character of a run of one (a character is
    taken with the marks on it).  So a query of two characters or more
    finds them anywhere in a run, which has no spaces between its words."""
    chars = _unicode_res()["_CJK_CHAR_RE"].findall(run)
    if len(chars) < 2:
        return chars
    return [chars[k] + chars[k + 1] for k in range(len(chars) - 1)]


def is_cjk(word: str) -> bool:
    """Whether ``word`` (of :data:`TOKEN_RE`) is a run of CJK characters."""
    return word[0] >= "\u1100" and _is_cjk_char(word[0])


def terms(text: str) -> Counter:
    """Lower-cased, NFC words of ``text`` (hyphenated words also split into
    parts, a run of CJK characters in pairs: :func:`cjk_terms`), each with
    the number of times it occurs; a word over :data:`MAX_TERM` characters
    is left out, but not the parts of a hyphenated one."""
    c = Counter(words(normalize(text)))
    for w in [w for w in c if "-" in w or "'" in w or len(w) > MAX_TERM or w[0] >= "\u1100"]:
        n = c[w]
        if is_cjk(w):
            del c[w]
            for pair in cjk_terms(w):
                c[pair] += n
            continue
        if "-" in w or "'" in w:
            for part in _SPLIT_RE.split(w):
                if part and len(part) <= MAX_TERM:
                    c[part] += n
        if len(w) > MAX_TERM:
            del c[w]
    return c


def query_terms(text: str) -> list:
    """What the page searches for, in order, given ``text`` typed in the
    search box (site.js's ``tokens``: the tests hold the two alike): its
    words, a hyphenated word over :data:`MAX_TERM` characters by its parts
    (one up to that long is found by prefix), a run of CJK characters by
    its pairs (:func:`cjk_terms`)."""
    out = []
    for w in words(normalize(text)):
        if is_cjk(w):
            out += cjk_terms(w)
        elif len(w) <= MAX_TERM or ("-" not in w and "'" not in w):
            out.append(w)
        else:
            out += [p for p in _SPLIT_RE.split(w) if p and len(p) <= MAX_TERM]
    return out


_SPLIT_RE = re.compile(r"[-']")

#: the saturation of a body word's count, as BM25's: a word ``tf`` times in a
#: body of ``length`` words scores ``tf·(K1+1) / (tf + K1·(1 − B + B·length/AVG_LENGTH))``
#: (1 for a word once in a body of AVG_LENGTH words, never above K1+1)
BM25_K1 = 1.2
BM25_B = 0.75
#: the body length BM25 compares a body's with: a constant, not the
#: average of the site's bodies, so that a record's weights depend on its
#: own text only (an incremental build keeps the runs of the others)
AVG_LENGTH = 200
#: a body word's weight: 1 below a BM25 score of BODY_LEVELS[0], 2 below
#: BODY_LEVELS[1], else 3 (so at most 3, below one title word's weight)
BODY_LEVELS = (1.25, 1.75)
BODY_MAX = 3


def body_weight(tf: int, length: int) -> int:
    """The weight of a word ``tf`` times in a body of ``length`` words (1 to
    :data:`BODY_MAX`: the BM25 score, :data:`BM25_K1`, cut at
    :data:`BODY_LEVELS`)."""
    s = tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / AVG_LENGTH))
    return 1 if s < BODY_LEVELS[0] else 2 if s < BODY_LEVELS[1] else BODY_MAX


def doc_terms(rid: str, title: str, tags: list, text: str) -> dict:
    """The weighted terms of one record: a body word :func:`body_weight`
    (1 to :data:`BODY_MAX`, however often it occurs), plus
    :data:`TITLE_WEIGHT` for each time it is in the title or a tag, plus
    :data:`ID_WEIGHT` for a word of the id (and for the whole id)."""
    c = terms(text)
    if c:
        # tf at which the score reaches each level: tf·(K1+1) >= level·(tf + k)
        k = BM25_K1 * (1 - BM25_B + BM25_B * sum(c.values()) / AVG_LENGTH)
        t2 = BODY_LEVELS[0] * k / (BM25_K1 + 1 - BODY_LEVELS[0])
        t3 = BODY_LEVELS[1] * k / (BM25_K1 + 1 - BODY_LEVELS[1])
        if t2 > 1:           # most words: once, weight 1 (as they are)
            for w, n in c.items():
                if n > 1:
                    c[w] = 1 if n < t2 else 2 if n < t3 else BODY_MAX
        else:
            for w, n in c.items():
                c[w] = 1 if n < t2 else 2 if n < t3 else BODY_MAX
    for w, n in terms(title + " " + " ".join(tags)).items():
        c[w] += n * TITLE_WEIGHT
    for w in terms(rid):
        c[w] += ID_WEIGHT
    c[normalize(rid)] += ID_WEIGHT
    return c


#: the base-36 form of each number below 36**2 (most deltas between two
#: documents' numbers are), made once at import; a number below 36**3 is
#: one of them and a digit
_B36_TABLE = tuple(_B36) + tuple(a + b for a in _B36[1:] for b in _B36)


def _b36(n: int) -> str:
    if n < 1296:
        return _B36_TABLE[n]
    if n < 46656:
        q, r = divmod(n, 36)
        return _B36_TABLE[q] + _B36[r]
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
    # (a sixth element, 1: the record is named by its title alone)
    docs_js = _js([[d["id"], d["title"], d["kind"], d["status"] or "", d["url"]] + ([1] if d.get("bare") else [])
                   for d in docs])
    return [b'RK.searchIndex({"docs":', docs_js.encode("utf-8", "surrogatepass"),
            b',"terms":', _js(keep).encode("utf-8", "surrogatepass"),
            b',"postings":', _postings_js([postings[w] for w in keep]),
            b',"common":', _js(common).encode("utf-8", "surrogatepass"), b"});\n"]
