"""A record's file content: the one interface to "bytes or text".

A record parsed in this process holds its text; one parsed in a helper
process arrives as the file's bytes, decoded on first use; one taken from
the store of parsed records holds nothing and reads its file on first use
(:class:`recordkit.corpus.store.store.FileSource`).  Later stages ask the
record's ``source`` (``rec.source.peek_body(rec.body_offset)``,
``rec.source.contains(b"](#")``) and never reach into what it holds: only
this module, :mod:`recordkit.corpus.model` and :mod:`recordkit.corpus.store`
know the storage.
"""
from __future__ import annotations


class Source:
    """The content of one file as read: its text (``text()``), or its UTF-8
    bytes until something asks for the text; the body and the line starts
    worked out from the text on first use; ``digest`` (sha256 of the
    bytes, 128 bits: the lint cache's key) and ``stat`` (``(mtime_ns,
    size, inode, ctime_ns)`` when it was read), None when not read."""
    __slots__ = ("_text", "_raw", "_body", "_line_starts", "digest", "stat")

    def __init__(self, text: str | None = "", raw: bytes | None = None, digest: str | None = None,
                 stat: tuple | None = None):
        self._text = text
        self._raw = raw
        self._body = None
        self._line_starts = None
        self.digest = digest
        self.stat = stat

    def __repr__(self) -> str:
        held = "text" if self._text is not None else "bytes" if self._raw is not None else "nothing"
        return f"<{type(self).__name__} holding {held}>"

    # -- the text, kept ------------------------------------------------------------
    def text(self) -> str:
        """The whole file, decoded (and kept: the bytes are let go)."""
        t = self._text
        if t is None:
            t = self._text = self._decode()
            self._raw = None
        return t

    def _decode(self) -> str:
        raw = self._raw
        return raw.decode("utf-8") if raw is not None else ""

    def body(self, offset: int) -> str:
        """The text from character ``offset`` on (kept)."""
        b = self._body
        if b is None:
            b = self._body = self.text()[offset:]
        return b

    def set_body(self, body: str) -> None:
        """Keep ``body``, the text from the body's offset on, worked out by the parser."""
        self._body = body

    def line_starts(self) -> list[int]:
        """The offset of every line of the text (lines end at "\\n"), found once."""
        starts = self._line_starts
        if starts is None:
            text = self.text()
            starts = [0]
            find = text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._line_starts = starts
        return starts

    # -- the text, not kept ---------------------------------------------------------
    def peek_text(self) -> str:
        """The text, without keeping it when it is not decoded yet (a site
        build reads every record's text once or twice; keeping all of it
        decoded doubles the memory of every process that renders)."""
        if self._text is None and self._raw is not None:
            return self._raw.decode("utf-8")
        return self.text()

    def peek_body(self, offset: int) -> str:
        """The text from character ``offset`` on, without keeping it (nor the text)."""
        b = self._body
        return b if b is not None else self.peek_text()[offset:]

    def undecoded(self) -> bytes | None:
        """The file's bytes while the text is not decoded, else None."""
        return self._raw if self._text is None else None

    def peek(self) -> bytes | str:
        """What is at hand without decoding: the text, or the bytes not
        decoded yet (the file is read when neither is held)."""
        t = self._text
        if t is not None:
            return t
        raw = self._raw
        return raw if raw is not None else self.text()

    def contains(self, needle: bytes) -> bool:
        """Whether the file holds ``needle`` (ASCII), tested on its bytes
        when they are not decoded, without decoding them."""
        got = self.peek()
        return (needle in got) if isinstance(got, bytes) else (needle.decode("ascii") in got)

    def parsed_from(self, text: str) -> bool:
        """Whether the record was parsed from ``text``: what a copy of the
        corpus with a file's new text (:func:`recordkit.corpus.loader.with_texts`)
        asks to know whether to parse it again.  The text held is ``text``
        (and, for a source that reads its file when asked, the file still
        held the bytes its record was parsed from when it read them:
        :class:`~recordkit.corpus.store.store.FileSource`)."""
        return self.text() == text

    def held(self) -> bytes | str | None:
        """The text or the bytes held, None when nothing is (no reading)."""
        t = self._text
        return t if t is not None else self._raw

    # -- memory ------------------------------------------------------------------
    def keep_bytes(self, raw: bytes) -> None:
        """Hold the file's bytes beside its text (a helper process sends them
        rather than the text: they pickle as a copy)."""
        self._raw = raw

    def wire_content(self) -> bytes | str:
        """The content as sent to another process: the file's bytes when
        held, else the text."""
        raw = self._raw
        return raw if raw is not None else self.text()

    def compact(self) -> None:
        """Keep the content as UTF-8 bytes only (not the decoded text and
        body, two copies each as large as the file): what is read later is
        decoded when asked (``peek_text``)."""
        if self._text is not None and self._raw is None:
            self._raw = self._text.encode("utf-8", "surrogatepass")
            self._text = None
            self._body = None
            self._line_starts = None

    def release(self) -> None:
        """Let go of the content when it can be had again (a source that
        reads its file: :class:`~recordkit.corpus.store.store.FileSource`)."""

    def body_utf8(self, offset: int) -> str | memoryview:
        """The body for SQLite: the ``str`` when the text is decoded, else
        the body's UTF-8 bytes (a ``memoryview``, which an INSERT turns into
        text with ``CAST(? AS TEXT)``: no decoding in Python only for SQLite
        to encode it again)."""
        if self._text is not None or self._body is not None or self._raw is None:
            return self.body(offset)
        return body_bytes(self._raw, offset)


def body_bytes(raw: bytes, off: int) -> memoryview:
    """``raw[off':]`` where ``off'`` is the byte offset of character ``off``."""
    if off and not raw[:off].isascii():
        # the front matter holds non-ASCII characters: the body's byte offset
        # from its text (at most 4 bytes a character)
        off = len(raw[:4 * off].decode("utf-8", "ignore")[:off].encode("utf-8"))
    return memoryview(raw)[off:]
