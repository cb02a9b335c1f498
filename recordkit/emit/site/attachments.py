"""Attachments on the site: every file a published page embeds or links
that is no note (an image, a video, a PDF, ``LICENSE.txt``) is copied once
into ``files/``, at its path in the record (docs/site.md, "Attachments").

* :func:`plan` (before the pages render): the attachment links of every
  published body (outside code), each found as the vault's tool finds it
  (:class:`recordkit.corpus.attachments.AttachmentFinder`); what a page
  links to is known before any page is rendered, so the page (in any
  helper process) only asks :meth:`Plan.lookup`;
* :func:`emit`: the files copied, each only when its size or mtime
  changed since the last build (an SVG sanitized: :mod:`.svgclean`); a file
  no published page names any more is removed with the last build's files;
* :func:`render_embed`, :func:`render_link`: what the page shows: ``<img>``,
  ``<video controls>``, ``<audio controls>``, or a link; a file refused
  (out of the root, hidden, too large) or not found: its name as text.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from ...common.textpos import Positions
from ...corpus.attachments import DEFAULT_MAX_ATTACHMENT, AttachmentFinder, Found
from ...markdown.blocks import code_ranges, in_ranges
from ...markdown.links import MD_DEST_RE, MD_TEXT_BACK, has_extension, is_attachment, wikilink_target
from ...markdown.native import escape

#: the site's folder of attachments (a file keeps its path in the record under it)
FOLDER = "files"
#: bumped when a copy's bytes are made otherwise (the SVG sanitizer)
COPY_VERSION = "1"
IMAGES = frozenset("png jpg jpeg gif svg webp bmp avif ico apng".split())
VIDEOS = frozenset("mp4 webm ogv mov m4v".split())
AUDIO = frozenset("mp3 wav ogg oga m4a flac opus aac".split())
#: files that would run script on the site's own origin when opened: never copied
PAGES = frozenset("html htm xhtml xht mht mhtml shtml js mjs".split())
_WIKI = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_SIZE = re.compile(r"(\d{1,5})(?:x(\d{1,5}))?")


def suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def _is_note(path: str) -> bool:
    return suffix(path.split("#", 1)[0]) in ("md", "markdown")


def _hidden_part(path: str) -> bool:
    return any(p[:1] == "." and p not in (".", "..") for p in unquote(path).split("/"))


def scan(body: str, order: str = "target-first", code: list | None = None) -> list[tuple]:
    """(offset, target, kind) of each attachment link in ``body`` outside
    code; ``kind``: "embed" (``![[x.png]]``), "wiki" (``[[x.pdf]]``),
    "image" (``![alt](x.png)``), "link" (``[t](LICENSE.txt)``)."""
    out: list = []
    if "[" not in body:
        return out
    if code is None:
        code = code_ranges(body)
    if "[[" in body:
        for m in _WIKI.finditer(body):
            inner = m.group(1)
            if "." not in inner:
                continue            # (no file name: most wikilinks, skipped first)
            at = m.start()
            if code and in_ranges(code, at):
                continue
            target = wikilink_target(inner, order).rstrip("\\").strip()
            embed = at > 0 and body[at - 1] == "!"
            if is_attachment(target) or (embed and has_extension(target) and not _is_note(target)):
                out.append((at - 1 if embed else at, target, "embed" if embed else "wiki"))
    if "](" in body:
        # from each destination back to its text's "[" (as links.address_ranges
        # does): a pattern from every "[" forward took 0.5 ms a body
        for m in MD_DEST_RE.finditer(body):
            s = m.start()
            k = body.rfind("[", max(0, s - MD_TEXT_BACK), s)
            if k < 0 or body.find("\n\n", k, s) >= 0 or (code and in_ranges(code, s)):
                continue
            dest = m.group(1)
            if dest.startswith("<"):
                dest = dest[1:-1].strip()
            if not dest or dest.startswith("#") or _SCHEME.match(dest):
                continue
            path = dest.split("#", 1)[0].split("?", 1)[0]
            if k > 0 and body[k - 1] == "!":
                out.append((k - 1, dest, "image"))
            elif (has_extension(unquote(path).rstrip("/")) and not _is_note(path)) or _hidden_part(path):
                out.append((k, dest, "link"))     # (a hidden path: refused, and said so)
    out.sort()
    return out


def key_of(target: str) -> str:
    """A target as both the scan and the page see it (the page's image
    URLs are percent-encoded)."""
    t = target.strip()
    if t.startswith("<") and t.endswith(">"):
        t = t[1:-1]
    return unquote(t)


@dataclass
class Plan:
    finder: AttachmentFinder
    #: (from relpath, target key, whether a wikilink) -> Found
    table: dict = field(default_factory=dict)
    #: root-relative path -> Found, of every file to copy
    files: dict = field(default_factory=dict)
    #: record id -> a digest of what its attachment links found (its page depends on it)
    signatures: dict = field(default_factory=dict)
    #: (relpath, line, col, target, why) of each link refused
    refused: list = field(default_factory=list)

    def lookup(self, target: str, from_path: str | None, wiki: bool = False) -> Found | None:
        """What the planned link ``target`` of the note at ``from_path``
        found (None: no such link was planned); ``wiki``: a wikilink or an
        embed (else a Markdown image or link)."""
        return self.table.get((from_path, key_of(target), wiki))


def _max_size(ctx) -> int:
    v = getattr(ctx.opts, "attachment_max_size", None)
    return v if isinstance(v, int) and v >= 0 else DEFAULT_MAX_ATTACHMENT


def plan(ctx) -> Plan:
    """The attachment links of every published record, found; the files to copy."""
    site = ctx.site
    corpus = site.corpus
    root = corpus.root
    skip = ()
    try:
        out = os.path.relpath(os.path.realpath(ctx.opts.out), os.path.realpath(root)).replace(os.sep, "/")
        if not out.startswith(".."):
            skip = (out,)
    except ValueError:
        pass
    p = Plan(AttachmentFinder.for_root(root, _max_size(ctx), skip))
    order = ctx.wikilink_order or "target-first"
    # each body's links, kept for the next build in this process (serve)
    # while its file is the same
    kept = ctx.state.attachment_links
    if kept.get(None) != order:
        kept.clear()
        kept[None] = order
    for rid in site.ids:
        rec = corpus.records[rid]
        memo = kept.get(rid)
        if memo is not None and memo[0] == rec.digest and memo[1] == rec.relpath:
            found, body = memo[2], None
        else:
            body = rec.source.peek_body(rec.body_offset)
            found = scan(body, order, getattr(rec, "code", None)) if "[" in body else []
            kept[rid] = (rec.digest, rec.relpath, found)
        if not found:
            continue
        sig = []
        pos = None
        for offset, target, kind in found:
            key = key_of(target)
            wiki = kind in ("embed", "wiki")
            got = p.finder.find(target, rec.relpath, wiki)
            if got.path is not None and suffix(got.path) in PAGES:
                got = Found(refused="a web page or script, which would run on the site")
            p.table[(rec.relpath, key, wiki)] = got
            sig.append((key, wiki, got.path, got.refused))
            if got.path is not None:
                p.files[got.path] = got
            elif got.refused is not None:
                if body is None:
                    body = rec.source.peek_body(rec.body_offset)
                pos = pos or Positions(body)
                line, col = pos.line_col(offset)
                p.refused.append((rec.relpath, line + rec.body_line - 1, col, target, got.refused))
        p.signatures[rid] = hashlib.blake2b(repr(sig).encode("utf-8", "surrogatepass"),
                                            digest_size=8).hexdigest()
    return p


def emit(ctx) -> None:
    """Copy the planned files into ``files/``: a file whose size and mtime
    are the last build's is kept untouched (not even read)."""
    p = ctx.attachments
    if p is None:
        return
    from .svgclean import EMPTY, sanitize
    root = p.finder.root
    for rel, got in sorted(p.files.items()):
        out = f"{FOLDER}/{rel}"
        key = f"{COPY_VERSION}:{got.size}:{got.mtime_ns}"
        if ctx.writer.unchanged(out, key):
            continue
        try:
            with open(root / rel, "rb") as f:
                data = f.read(p.finder.max_size + 1)
        except OSError:
            continue
        if suffix(rel) == "svg":
            data = sanitize(data) or EMPTY
        ctx.writer.put(out, data, key)


def url(rel: str) -> str:
    return f"{FOLDER}/" + quote(rel, safe="/")


def _shown_name(target: str) -> str:
    return key_of(target).split("#", 1)[0].rsplit("/", 1)[-1] or target


def _text(target: str, label: str | None, got: Found | None) -> str:
    why = "attachment not found" if got is None or got.refused is None else f"attachment not published: {got.refused}"
    return (f'<span class="rk-attachment" title="{escape(why)}">'
            f'{escape(label.strip() if label and label.strip() else _shown_name(target))}</span>')


def _size_and_alt(label: str | None) -> tuple:
    """Obsidian's ``|300``, ``|300x200``, ``|alt text``, ``|alt|300``."""
    width = height = alt = None
    for piece in (label or "").split("|"):
        piece = piece.strip()
        m = _SIZE.fullmatch(piece)
        if m:
            width, height = m.group(1), m.group(2)
        elif piece:
            alt = piece
    return width, height, alt


def media(href: str, name: str, label: str | None, title: str = "") -> str:
    """An attachment's element by its kind."""
    kind = suffix(name)
    width, height, alt = _size_and_alt(label)
    size = (f' width="{width}"' if width else "") + (f' height="{height}"' if height else "")
    t = f' title="{escape(title)}"' if title else ""
    if kind in IMAGES:
        alt = alt if alt is not None else name.rsplit("/", 1)[-1]
        return f'<img class="rk-image" src="{escape(href)}" alt="{escape(alt)}"{size}{t} loading="lazy">'
    shown = escape(alt or name.rsplit("/", 1)[-1])
    if kind in VIDEOS:
        return (f'<video class="rk-video" controls preload="metadata" src="{escape(href)}"{size}>'
                f'<a href="{escape(href)}">{shown}</a></video>')
    if kind in AUDIO:
        return (f'<audio class="rk-audio" controls preload="metadata" src="{escape(href)}">'
                f'<a href="{escape(href)}">{shown}</a></audio>')
    return f'<a class="rk-file rk-file-{escape(kind)}" href="{escape(href)}">{shown}</a>'


def render_embed(got: Found | None, prefix: str, target: str, label: str | None, title: str = "",
                 embed: bool = True) -> str:
    """An embed or image (``embed``) or a wikilink to a file, as the page shows it."""
    if got is None or got.path is None:
        _, _, alt = _size_and_alt(label)
        return _text(target, alt, got)
    href = prefix + url(got.path)
    if not embed:
        shown = label.strip() if label and label.strip() else got.path.rsplit("/", 1)[-1]
        return f'<a class="rk-file" href="{escape(href)}">{escape(shown)}</a>'
    return media(href, got.path, label, title)


def render_link(got: Found | None, prefix: str, href: str, title: str = "") -> tuple[str, str]:
    """A Markdown link to a file: its opening and closing tags."""
    if got is None or got.path is None:
        why = "attachment not found" if got is None or got.refused is None else \
            f"attachment not published: {got.refused}"
        return f'<span class="rk-attachment" title="{escape(why)}">', "</span>"
    t = f' title="{escape(title)}"' if title else ""
    return f'<a class="rk-file" href="{escape(prefix + url(got.path))}"{t}>', "</a>"
