"""``recordkit rename`` in a vault whose ids are paths or file names (the
Obsidian, Foam, Dendron and MADR presets): the note's file moves, and every
link that named it is rewritten to name it again, in the form it was
written.

A link is rewritten only when it would no longer reach the note: a link by
an alias or a ``title:`` field still does, and is left as it is.  Otherwise
its target (only the target: a ``#heading``, a ``|label``, the ``!`` of an
embed, the quotes of a front-matter value stay) becomes the note's new name
as the link named it before: a file name stays a file name (or the shortest
path that tells the note apart, when the new file name is another note's
too), a path stays a path of as many parts, a Markdown link's relative path
is worked out again from the linking file, URL-encoded when it was.

Before anything is written the record is read again as it would be after
the rename, and every link of every note must name what it named before
(the old note read as the new one); a link that named no note may now name
the renamed one (said in a note).  Anything else refuses the rename, with
nothing written.
"""
from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path
from urllib.parse import quote, unquote

from ..common.text import some_of
from ..common.textpos import Positions
from ..corpus.parse import parse_text
from ..corpus.resolve import Resolver, resolver_for
from ..markdown.blocks import code_ranges
from ..markdown.links import (MD_DEF_AT_RE, WIKI_LABEL_FIRST_RE, WIKI_RE, link_form, link_spans, markdown_destination,
                              markdown_target, strip_md, value_link)
from .plan import PLACES_SHOWN, AuthorError, Change, Plan


#: the longest file name a rename or new note gets: 255 bytes less room for
#: the temporary names of an atomic write (``.NAME.rk-1234abcd.new``)
MAX_NAME_BYTES = 255 - 16


def vault_naming(rec, schema) -> str | None:
    """How ``rec``'s id comes from its file, by the schema's ``id_from``:
    ``"path"`` (the path without ``.md``), ``"stem"`` (the file name), or
    None (a front-matter field, or nothing that matches)."""
    for source, name in schema.id_from:
        if source == "field":
            value = (rec.meta or {}).get(name)
            if value is not None and str(value) == rec.id:
                return None
        elif source == "stem" and rec.id == rec.path.stem:
            return "stem"
        elif source == "path" and rec.id == strip_md(rec.relpath):
            return "path"
    return None


def _new_location(corpus, rec, new: str) -> tuple[Path, str]:
    """The file and root-relative path ``rec`` moves to for the name
    ``new`` (a path within the root when the ids are paths and it holds a
    ``/``, else a file name in the note's folder)."""
    root = Path(corpus.root).resolve()
    new = new.strip()
    if new.lower().endswith(".md"):
        new = new[:-3]
    parts = new.split("/")
    if not new or any(p in ("", ".", "..") for p in parts) or "\\" in new or "\x00" in new:
        raise AuthorError(f"{new!r} is not a name for a note (a file name, or a path inside the vault)", usage=True)
    from .new import _NOT_IN_NAME, vault_file_name
    bad = sorted({c for p in parts for c in "".join(_NOT_IN_NAME.findall(p))})
    if bad:
        # (the name new gives a note: a file name Obsidian and Windows take,
        # and one a link can name: [[a#b]] is a heading of a, [[a^b]] a block)
        shown = " ".join(repr(c)[1:-1] for c in bad)
        better = "/".join(vault_file_name(p) for p in parts)
        raise AuthorError(f"{new}: a note's name may not hold {shown} (Obsidian and Windows refuse * \" \\ < > : | ? "
                          f"in file names, and a link cannot name # ^ [ ]); "
                          f"{'try ' + better if better else 'choose another name'}", usage=True)
    if "/" in new:
        if vault_naming(rec, corpus.schema) != "path":
            raise AuthorError(f"{new}: the ids of this record are file names; give a file name (a rename keeps "
                              "the folder)", usage=True)
        relpath = new + ".md"
    else:
        folder = posixpath.dirname(rec.relpath)
        relpath = posixpath.join(folder, new + ".md") if folder else new + ".md"
    path = root / relpath
    if len(os.fsencode(posixpath.basename(relpath))) > MAX_NAME_BYTES:
        shown = new if len(new) <= 60 else new[:57] + "…"
        raise AuthorError(f"{shown}: a file name of at most {MAX_NAME_BYTES - 3} bytes, please (file systems allow "
                          "255, and a safe write needs room for a temporary name beside it)", usage=True)
    config = getattr(corpus, "config", None)
    from ..corpus.loader import would_walk
    if not would_walk(root, relpath, getattr(config, "exclude", None), getattr(config, "skip_dirs", None)):
        raise AuthorError(f"{relpath} would not be read (a hidden file or folder, or one the configuration's "
                          "exclude or skip_dirs leaves out): every link to the note would break", usage=True)
    if not path.parent.is_dir():
        raise AuthorError(f"{posixpath.dirname(relpath)}/ is not a folder of the vault: make it first")
    if relpath == rec.relpath:
        raise AuthorError(f"{rec.id} is named {new} already", usage=True)
    if os.path.lexists(path) and not (path.exists() and os.path.samefile(path, rec.path)):
        raise AuthorError(f"{relpath} exists already")
    return path, relpath


class _Namer:
    """The target text a link should be given to reach the renamed note,
    from the resolver of the record after the rename."""

    def __init__(self, after: Resolver, new_id: str, new_relpath: str):
        self.after, self.new_id = after, new_id
        self.parts = strip_md(new_relpath).split("/")
        self.new_relpath = new_relpath

    def reaches(self, text: str, from_path: str, form: str | None = None) -> bool:
        return self.after.resolve(text, from_path=from_path, form=form or link_form(text)).target == self.new_id

    def wikilink(self, written: str, from_path: str) -> str | None:
        """The new target of a ``[[link]]`` written ``written`` (None: it
        reaches the note as it is)."""
        if self.reaches(written, from_path):
            return None
        md = ".md" if written.lower().endswith(".md") else ""
        k = len(strip_md(written).strip("/").split("/"))
        n = len(self.parts)
        # a path from the vault's root (``[[/Sub/Alpha]]``) stays one
        lead = "/" if written.startswith("/") else ""
        # as many parts as the link had, then more (to tell the note apart), then fewer
        for size in [*range(min(k, n), n + 1), *range(min(k, n) - 1, 0, -1)]:
            for text in ([lead + "/".join(self.parts[n - size:]) + md] if not lead or size == n else []) + \
                    ["/".join(self.parts[n - size:]) + md]:
                if self.reaches(text, from_path):
                    return text
        raise AuthorError(f"{from_path}: no name of {self.new_id} reaches it from there (a link to it would be "
                          "ambiguous); rename it by hand")

    def exact(self, href: str, from_path: str, relpath: str) -> bool:
        """Whether Markdown link destination ``href`` read from
        ``from_path`` is the path of the file ``relpath`` (not a name the
        resolver falls back to)."""
        joined = href.lstrip("/") if href.startswith("/") else posixpath.join(posixpath.dirname(from_path), href)
        norm = self.after.norm
        return norm(posixpath.normpath(joined)) == norm(relpath)

    def markdown(self, raw: str, from_path: str, target: str | None = None,
                 target_relpath: str | None = None, was_exact: bool = True) -> str | None:
        """The new destination of a Markdown link read from ``from_path``
        whose destination is ``raw``, to reach the renamed note (or note
        ``target`` at ``target_relpath``: a link of the moved note itself);
        None: it reaches it as it is."""
        target = target or self.new_id
        target_relpath = target_relpath or self.new_relpath
        href = markdown_target(raw)
        # ``[a](Note%20One)``, without .md (Obsidian's): it stays so
        bare = href is None and markdown_target(raw, True) is not None
        if bare:
            href = markdown_target(raw, True)
        if href is not None and self.after.resolve(href, from_path=from_path, form="markdown").target == target \
                and (not was_exact or self.exact(href, from_path, target_relpath)):
            return None     # (a path that named the file keeps naming it, not only the note by its name)
        angle = raw.startswith("<") and raw.endswith(">")
        inner = raw[1:-1] if angle else raw
        cut = min([k for k in (inner.find("#"), inner.find("?")) if k >= 0], default=len(inner))
        path, rest = inner[:cut], inner[cut:]
        new = "/" + target_relpath if path.startswith("/") else \
            posixpath.relpath(target_relpath, posixpath.dirname(from_path) or ".")
        head = posixpath.dirname(unquote(path))
        if head and not path.startswith("/") and posixpath.normpath(
                posixpath.join(posixpath.dirname(from_path), head)) == (posixpath.dirname(target_relpath) or "."):
            # the note stays in the folder the link wrote (``./x.md``,
            # ``../notes/x.md``): only the file name changes
            new = head + "/" + posixpath.basename(target_relpath)
        if bare and new.lower().endswith(".md"):
            new = new[:-3]
        if angle:
            out = f"<{new}{rest}>"
        elif "%" in path or any(c in new for c in " ()<>"):
            out = quote(new, safe="/") + rest
        else:
            out = new + rest
        href = markdown_target(out, bare)
        if href is None or self.after.resolve(href, from_path=from_path, form="markdown").target != target:
            raise AuthorError(f"{from_path}: a Markdown link to {target} cannot be written to reach it; "
                              "rename it by hand")
        return out


#: a name Dendron's ``#`` / ``@`` takes (corpus.mentions.SIGIL_RE's, whole)
_SIGIL_NAME_RE = re.compile(r"(?=[\w.-]*[^\W\d])[\w-]+(?:\.[\w-]+)*")


def body_edits(rec, text: str, old: str, before: Resolver, namer: _Namer, settings,
                moved_to: str | None = None, records: dict | None = None) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of each link target in ``rec``'s body that
    names ``old`` and must change (offsets in ``text``).  ``moved_to``: the
    new path of ``rec`` when it is the note renamed (its links are read from
    there after the rename: a relative Markdown link to another note is
    worked out again when the note changes folder; ``records``: the corpus's)."""
    after_path = moved_to or rec.relpath
    body = text[rec.body_offset:]
    base = rec.body_offset
    code = code_ranges(body)
    out = []
    ci, last_end = 0, -1
    label_first = settings.wikilink_order == "label-first"
    for ws, we, target, _label, form in link_spans(body, settings):
        if ws < last_end:
            continue
        while ci < len(code) and code[ci][1] <= ws:
            ci += 1
        if ci < len(code) and code[ci][0] <= ws:
            continue
        last_end = we
        if form == "markdown":
            was = before.resolve(target, from_path=rec.relpath, form="markdown").target
            if was != old and (moved_to is None or was is None or was == rec.id):
                continue
            d = markdown_destination(body, ws, we)
            if d is None:                       # pragma: no cover - link_spans found it there
                continue
            raw = d.group(1)
            was_relpath = records[was].relpath
            exact = namer.exact(target, rec.relpath, was_relpath)
            new = namer.markdown(raw, after_path, was_exact=exact) if was == old else \
                namer.markdown(raw, after_path, was, was_relpath, was_exact=exact)
            if new is not None:
                out.append((base + d.start(1), base + d.end(1), new))
                if d.re is MD_DEF_AT_RE and was == old:
                    out.extend((base + s, base + e, *rest) for s, e, *rest in
                               _definition_label(body, ws, _label, rec.relpath, after_path, old, before, namer))
            continue
        if form == "tag":
            # Dendron's ``#foo`` (``[[tags.foo]]``) and ``@ana`` (``[[user.ana]]``):
            # the new name after the sigil when it is still under the sigil's
            # prefix and a name a sigil can take, else a wikilink to it
            if before.resolve(target, from_path=rec.relpath, form="wikilink").target == old:
                sig = body[ws]
                prefix = dict(settings.sigils).get(sig, "")
                rest = namer.new_id[len(prefix):] if prefix and namer.new_id.startswith(prefix) else None
                if rest and _SIGIL_NAME_RE.fullmatch(rest):
                    out.append((base + ws + 1, base + we, rest))
                else:
                    out.append((base + ws, base + we, f"[[{namer.new_id}]]"))
            continue
        if before.resolve(target, from_path=rec.relpath, form=link_form(target)).target != old:
            continue
        start = ws + 1 if body[ws] == "!" else ws
        m = (WIKI_LABEL_FIRST_RE if label_first else WIKI_RE).match(body, start)
        if m is None:                       # pragma: no cover - link_spans found it there
            continue
        g = 2 if label_first else 1
        s, e = m.span(g)
        seg = body[s:e]
        s += len(seg) - len(seg.lstrip())
        e -= len(seg) - len(seg.rstrip())
        if body[e - 1:e] == "\\" and not label_first:     # ``[[Note\|label]]`` in a table
            e -= 1
            while e > s and body[e - 1] in " \t":
                e -= 1
        new = namer.wikilink(body[s:e], after_path)
        if new is not None:
            out.append((base + s, base + e, new))
    if "]:" in body:
        out += _extensionless_definitions(body, base, code, old, rec.relpath, after_path, before, namer,
                                          rec.id if moved_to is not None else None, records)
    return out


def _extensionless_definitions(body: str, base: int, code: list, old: str, from_path: str, after_path: str,
                               before: Resolver, namer: _Namer, moved: str | None = None,
                               records: dict | None = None) -> list[tuple]:
    """The edits of the link reference definitions outside code whose
    destination names the renamed note without ``.md``, as Foam writes
    them by default (``[note-b]: note-b "Note B"``, one per wikilink, so
    that ``[[note-b]]`` works in other Markdown tools).  They are not links
    recordkit reads, but a rename that left them would break that link
    (and any ``[text][note-b]``): the destination is given the new path
    (still without ``.md``) and, when it is one of Foam's, the label the
    new name.  ``moved``: the id of the note whose text this is, when it
    moves (a rename to another folder, the merged text of a merge): its
    definitions of other notes are worked out again from its new place,
    as its Markdown links are, their labels as they were."""
    from urllib.parse import unquote
    from ..markdown.blocks import in_ranges
    from ..markdown.links import definitions
    out = []
    for ws, we, target, label, _form_ in definitions(body, md_only=False):
        if target is not None or (code and in_ranges(code, ws)):
            continue                    # a .md destination is a link, done above
        d = markdown_destination(body, ws, we)
        if d is None:                   # pragma: no cover - definitions found it there
            continue
        raw = d.group(1)
        angle = raw.startswith("<") and raw.endswith(">")
        inner = raw[1:-1] if angle else raw
        cut = min([k for k in (inner.find("#"), inner.find("?")) if k >= 0], default=len(inner))
        path, rest = inner[:cut], inner[cut:]
        if not path or posixpath.splitext(path)[1] or markdown_target(path + ".md") is None:
            continue                    # an extension of its own, an address, a same-page anchor
        with_md = f"<{path}.md{rest}>" if angle else f"{path}.md{rest}"
        was = before.resolve(unquote(path) + ".md", from_path=from_path, form="markdown").target
        if was != old:
            if moved is None or was is None or was == moved or after_path == from_path or records is None \
                    or was not in records:
                continue
            new = namer.markdown(with_md, after_path, was, records[was].relpath)
            k = -1 if new is None else new.rfind(".md", 0, len(new) - len(rest) - (1 if angle else 0))
            if k >= 0:
                # (not a link to the note renamed: not counted as one)
                out.append((base + d.start(1), base + d.end(1), new[:k] + new[k + 3:], "moved"))
            continue
        new = namer.markdown(with_md, after_path)
        if new is None:
            continue
        k = new.rfind(".md", 0, len(new) - len(rest) - (1 if angle else 0))
        if k < 0:                       # pragma: no cover - the new path is a .md file's
            continue
        out.append((base + d.start(1), base + d.end(1), new[:k] + new[k + 3:]))
        out.extend((base + s, base + e, *more) for s, e, *more in
                   _definition_label(body, ws, label, from_path, after_path, old, before, namer))
    return out


def _definition_label(body: str, ws: int, label: str, from_path: str, after_path: str, old: str,
                      before: Resolver, namer: _Namer) -> list[tuple[int, int, str]]:
    """The label of the link reference definition at ``body[ws:]`` whose
    destination a rename rewrites, given the note's new name when it is
    one of Foam's (``[note-b]: note-b.md "Note B"``, which lets
    ``[[note-b]]`` work in other Markdown tools: the wikilink is rewritten,
    so must its definition's label be) and no ``[text][label]`` link of
    the body uses it (that link would lose its definition)."""
    # (Foam labels a definition with the wikilink's whole inside: ``[note#Section]``, ``[note|Alias]``)
    name = re.split(r"[#^|]", label.strip(), maxsplit=1)[0].rstrip()
    if not name or before.resolve(name, from_path=from_path, form=link_form(name)).target != old:
        return []
    for m in re.finditer(re.escape("[" + label + "]"), body, re.I):
        s, e = m.span()
        if s == ws:
            continue                                    # the definition itself
        if body[s - 1:s] == "[" and body[e:e + 1] == "]":
            continue                                    # a wikilink, [[label]]
        return []
    new = namer.wikilink(name, after_path)
    if new is None:
        return []
    k = ws + 1 + (len(label) - len(label.lstrip()))
    return [(k, k + len(name), new, "label")]      # (not a link: not counted as one)


def front_matter_edits(rec, text: str, old: str, before: Resolver, namer: _Namer,
                        settings) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of each front-matter link value that names
    ``old`` and must change: the target inside the value's source."""
    out = []
    where = None     # the text's Positions, made at the first link found
    for targets in (rec.relations or {}).values():
        for t in targets:
            written = t.text if t.text is not None else t.id
            target, form = value_link(written, settings)
            if before.resolve(target, from_path=rec.relpath, form=form).target != old:
                continue
            if form == "markdown":
                raise AuthorError(f"{rec.relpath}:{t.pos[0]}: a Markdown link in the front matter names {old}; "
                                  "change it by hand first")
            new = namer.wikilink(target, rec.relpath)
            if new is None:
                continue
            where = where or Positions(text)
            out.append((*_target_span(where, t.pos, target, f"{rec.relpath}:{t.pos[0]}: the link to {old}"), new))
    return out


def _target_span(where, pos, target: str, what: str) -> tuple[int, int]:
    """Where ``target`` is inside the source of the front-matter value at
    ``pos`` (line, col, end line, end col) in ``where`` (the text's
    :class:`~recordkit.common.textpos.Positions`): written there once, as is;
    else a rename cannot rewrite it (``what`` names the link)."""
    text = where.text
    line, col, end_line, end_col = pos
    s = where.offset_of(line, col)
    e = where.offset_of(end_line, end_col) if end_line is not None else text.find("\n", s)
    raw = text[s:e]
    k = raw.find(target)
    if k < 0 or raw.find(target, k + 1) >= 0:
        raise AuthorError(f"{what} is written in a way a rename cannot rewrite (escaped, or its name twice); "
                          "change it by hand first")
    return s + k, s + k + len(target)


def property_edits(rec, text: str, old: str, before: Resolver, namer: _Namer,
                   settings, schema=None) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of each wikilink that names ``old`` as the
    whole value (or a list item) of a front-matter property that is no
    relation of the schema (``project: "[[Target]]"``): Obsidian reads a
    link in any property as a link, and updates it on a rename, so a rename
    that left it would break it.  The target inside the value's source."""
    out = []
    where = None     # the text's Positions, made at the first link found
    relations = set(rec.relations or ())
    derived = {r.field for r in getattr(schema, "derive_patterns", None) or ()} if schema is not None else set()
    for key, value in (rec.meta or {}).items():
        if key in relations or key in derived or not isinstance(key, str):
            continue
        items = [((key,), value)] if isinstance(value, str) else \
            [((key, i), v) for i, v in enumerate(value) if isinstance(v, str)] if isinstance(value, list) else []
        for path, v in items:
            if "[[" not in v:
                continue
            target, form = value_link(v, settings)
            if form != "wikilink" or before.resolve(target, from_path=rec.relpath, form="wikilink").target != old:
                continue
            new = namer.wikilink(target, rec.relpath)
            if new is None:
                continue
            pos = rec.value_pos(*path)
            where = where or Positions(text)
            out.append((*_target_span(where, pos, target, f"{rec.relpath}:{pos[0]}: the link to {old} in {key}"), new))
    return out


def derived_edits(rec, text: str, old: str, before: Resolver, namer: _Namer,
                  settings, schema) -> list[tuple[int, int, str]]:
    """(start, end, replacement) of each link that names ``old`` in a field
    a ``derive`` pattern reads (MADR's ``status: superseded by
    [ADR-0002](0002-use-duckdb.md)``): its target inside the value's source
    (a Markdown link's destination worked out again, a wikilink's or a
    name's text)."""
    from ..corpus.resolve import derived_refs
    out = []
    where = None     # the text's Positions, made at the first link found
    for rule, i, ref, target, form in derived_refs(rec, schema):
        if before.resolve(target, from_path=rec.relpath, form=form).target != old:
            continue
        if form == "markdown":
            d = markdown_destination(ref, 0, len(ref))
            new = namer.markdown(d.group(1), rec.relpath) if d is not None else None
            span = (d.start(1), d.end(1)) if d is not None else None
        else:
            new = namer.wikilink(target, rec.relpath)
            k = ref.find(target)
            span = (k, k + len(target)) if k >= 0 else None
        if new is None:
            continue
        line, col, end_line, end_col = rec.value_pos(*((rule.field,) if i is None else (rule.field, i)))
        where = where or Positions(text)
        vs = where.offset_of(line, col)
        ve = where.offset_of(end_line, end_col) if end_line is not None else text.find("\n", vs)
        raw = text[vs:ve]
        k = raw.find(ref)
        if span is None or k < 0 or raw.find(ref, k + 1) >= 0:
            raise AuthorError(f"{rec.relpath}:{line}: the link to {old} in {rule.field} is written in a way a "
                              "rename cannot rewrite (escaped, or twice); change it by hand first")
        out.append((vs + k + span[0], vs + k + span[1], new))
    return out


def spliced(text: str, edits: list[tuple]) -> str:
    """``text`` with each (start, end, replacement, ...) edit made."""
    pieces, pos = [], 0
    # (the same edit twice is made once: a YAML alias, ``down: *x``, reads
    # as a second link at the anchor's value)
    for s, e, new, *_ in sorted(set(edits)):
        if s < pos:
            raise AuthorError("overlapping edits; rename by hand")
        pieces += [text[pos:s], new]
        pos = e
    pieces.append(text[pos:])
    return "".join(pieces)


def relink_all(corpus, rec, namer: _Namer, moved_to: str | None = None, skip=()) -> tuple[dict, int]:
    """Every link of ``corpus`` that names ``rec`` rewritten to reach what
    ``namer`` names: (path -> new text of each file that changes, how many
    links).  ``moved_to``: where ``rec``'s own text will be read from (its
    relative links redone from there); ``skip``: records left out."""
    settings = corpus.schema.links
    before = resolver_for(corpus)
    records = corpus.records
    old = rec.id
    names = {n.casefold() for n in (rec.path.stem, strip_md(rec.relpath))}
    derive = bool(corpus.schema.derive_patterns)
    texts: dict = {}
    count = 0
    for r in corpus.files:
        if r in skip:
            continue
        if not r.ok:
            # its links are not read (its front matter does not parse): one
            # that may name the note would be left behind
            folded = (r.text or "").casefold()
            if any(n in folded for n in names):
                raise AuthorError(f"{r.relpath} cannot be read as a note (run `recordkit lint`) and may link to "
                                  f"{old}: fix it first")
            continue
        edits = front_matter_edits(r, r.text, old, before, namer, settings) + \
            property_edits(r, r.text, old, before, namer, settings, corpus.schema) + \
            body_edits(r, r.text, old, before, namer, settings, moved_to if r is rec else None, records)
        if derive:
            edits += derived_edits(r, r.text, old, before, namer, settings, corpus.schema)
        if edits:
            try:
                texts[r.path] = spliced(r.text, edits)
            except AuthorError as exc:
                raise AuthorError(f"{r.relpath}: {exc}") from None
            count += sum(len(e) == 3 for e in set(edits))
    return texts, count


def namer_for(corpus, gone: str, target, target_relpath: str | None = None) -> _Namer:
    """A namer of ``target`` (a record; ``target_relpath``: where it will
    be) in the corpus without ``gone`` (the record renamed or merged)."""
    after = {k: v for k, v in corpus.records.items() if k != gone}
    after[target.id] = target
    return _Namer(Resolver(after, corpus.schema.links, root=Path(corpus.root)), target.id,
                  target_relpath or target.relpath)


def plan_vault_rename(corpus, old: str, new: str) -> Plan:
    """The changes that give note ``old`` (an id of ``corpus``, a vault
    whose ids are paths or file names) the name ``new``, its links with it
    (raises :class:`AuthorError`)."""
    records = corpus.records
    rec = records.get(old)
    if rec is None:
        from ..common.didyoumean import IdIndex
        near = IdIndex(records).closest(old)
        raise AuthorError(f"no record {old} under {corpus.root}" + (f" (did you mean {near}?)" if near else ""),
                          usage=True)
    dup = [r.relpath for r in corpus.files if r.ok and r.id == old]
    if len(dup) > 1:
        raise AuthorError(f"{old} is the id of {len(dup)} files ({', '.join(dup)}); make it unique first (RK107)")
    if vault_naming(rec, corpus.schema) is None:
        raise AuthorError(f"{old}'s id is not its path or file name ({rec.relpath}): `recordkit rename` moves a "
                          "note of a vault, or renames a KIND-NNN id", usage=True)
    if os.path.islink(rec.path):
        raise AuthorError(f"{rec.relpath} is a symbolic link; rename its target by hand")
    schema = corpus.schema
    new_path, new_relpath = _new_location(corpus, rec, new)
    moved, _ = parse_text(rec.text, new_path, new_relpath, schema)
    new_id = moved.id
    if not moved.ok or new_id is None:
        raise AuthorError(f"{new_relpath} would not read as a note; rename it by hand")
    if new_id in records and new_id != old:
        raise AuthorError(f"{new_id} exists already: {records[new_id].relpath}")
    from .rename import check_schema_id
    check_schema_id(schema, new_id, new_relpath, [r for r in corpus.files if r is not rec])
    namer = namer_for(corpus, old, moved, new_relpath)
    texts, count = relink_all(corpus, rec, namer, moved_to=new_relpath)
    new_text = texts.pop(rec.path, rec.text)
    captured = _verify(corpus, rec, old, new_id, new_path, new_relpath, new_text, texts)

    plan = Plan(root=Path(corpus.root).resolve())
    for r in sorted(corpus.files, key=lambda r: r.relpath):
        if r.path in texts:
            plan.changes.append(Change(r.path, r.text, texts[r.path]))
    plan.changes.append(Change(rec.path, rec.text, None))
    plan.changes.append(Change(new_path, None, new_text, renamed_from=rec.path))
    plan.new_path = new_path
    plan.references = count
    files_n = len(texts)
    plan.summary = (f"{old} → {new_id}: {plan.rel(rec.path)} → {plan.rel(new_path)}, {count} link"
                    f"{'s' if count != 1 else ''} rewritten in {files_n} other file{'s' if files_n != 1 else ''}"
                    + (" and itself" if new_text != rec.text else ""))
    if captured:
        n = len(captured)
        plan.notes.append(f"{n} link{'s' if n != 1 else ''} that named no single note now name{'s' if n == 1 else ''} "
                          f"{new_id}: " + some_of(captured, shown=PLACES_SHOWN))
    return plan


def _verify(corpus, rec, old: str, new_id: str, new_path: Path, new_relpath: str, new_text: str,
            texts: dict) -> list[str]:
    """Read the record as it would be after the rename; raise unless every
    link of every note names what it named before (``old`` read as
    ``new_id``).  Returns the links (``file: text``) that named no note and
    now name ``new_id``."""
    from ..corpus.loader import with_texts
    schema = corpus.schema
    c = with_texts(corpus, {**texts, rec.path: new_text}, {rec.path: (new_path, new_relpath)})
    pairs = list(zip(corpus.files, c.files))
    for r, now in pairs:
        if r.ok and not now.ok:
            raise AuthorError(f"{r.relpath}: the edited front matter would not parse; rename by hand")
    records = corpus.records
    captured = []
    derived_fields = {rule.field for rule in schema.derive_patterns}

    before = resolver_for(corpus)

    def was(a: str, from_path: str) -> str:
        """A link target as written that named no single note, described."""
        res = before.resolve(a, from_path=from_path, form=link_form(a))
        return f"an ambiguous link ({a}: {' or '.join(res.candidates)})" if res.ambiguous \
            else f"a link to no note ({a})"

    after = None
    settings = schema.links

    def same_property(a, b, from_path: str, where: str) -> bool:
        """Whether a property that is no relation changed only by its links
        to the note renamed (property_edits): each such value now names the
        new note, every other value is as it was."""
        nonlocal after
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(same_property(x, y, from_path, where) for x, y in zip(a, b))
        if not (isinstance(a, str) and isinstance(b, str)) or "[[" not in a:
            return a == b
        ta, fa = value_link(a, settings)
        tb, fb = value_link(b, settings)
        if fa != "wikilink" or fb != "wikilink" or \
                before.resolve(ta, from_path=from_path, form="wikilink").target != old:
            return a == b
        if after is None:
            after = resolver_for(c)
        return after.resolve(tb, from_path=where, form="wikilink").target == new_id

    def same(a: str, b: str, where: str, from_path: str) -> None:
        if a != old and a not in records and b == new_id:
            # named no single note (kept as written, which may read as the new id)
            captured.append(f"{where} ({a})")
            return
        if b == (new_id if a == old else a):
            return
        if b in c.records:
            now_names = f"would name {b}"
        else:
            res = resolver_for(c).resolve(b, from_path=where, form=link_form(b))
            now_names = (f"would be ambiguous ({', '.join(res.candidates)})" if res.ambiguous
                         else "would name no note")
        raise AuthorError(f"{where}: {'a link to ' + a if a in records else was(a, from_path)} {now_names} after "
                          "the rename; rename by hand" + ("" if a in records else " (or make that link name one "
                                                            "note first)"))
    for r, now in pairs:
        if not r.ok:
            continue
        where = new_relpath if r is rec else r.relpath
        if len(r.mention_targets) != len(now.mention_targets):
            raise AuthorError(f"{where}: the edited body would not hold the same links; rename by hand")
        for a, b in zip(r.mention_targets, now.mention_targets):
            same(a, b, where, r.relpath)
        for key, targets in (r.relations or {}).items():
            got = (now.relations or {}).get(key, [])
            if len(got) != len(targets):
                raise AuthorError(f"{where}: {key} would not hold the same links; rename by hand")
            for a, b in zip(targets, got):
                same(a.id, b.id, where, r.relpath)
        for key, value in (r.meta or {}).items():
            if key not in schema.relations and key not in derived_fields and (now.meta or {}).get(key) != value \
                    and not same_property(value, (now.meta or {}).get(key), r.relpath, where):
                raise AuthorError(f"{where}: {key} would change; rename by hand")
    if derived_fields:
        from ..graph.edges import derived_by_pattern
        moved = {old: new_id}
        for rule in schema.derive_patterns:
            was_edges = sorted((moved.get(a, a), moved.get(b, b)) for a, b, *_ in derived_by_pattern(corpus, rule))
            now_edges = sorted((a, b) for a, b, *_ in derived_by_pattern(c, rule))
            if was_edges != now_edges:
                lost = sorted(set(was_edges) - set(now_edges))
                where = c.records[lost[0][0]].relpath if lost and lost[0][0] in c.records else rule.field
                raise AuthorError(f"{where}: the {rule.relation} link in {rule.field} would not name what it "
                                  "named; rename by hand")
    return captured


__all__ = ["plan_vault_rename", "relink_all", "namer_for", "body_edits", "front_matter_edits", "spliced", "vault_naming"]
