"""RK1xx: the file itself — front matter present and readable, a good id."""
from __future__ import annotations

from ...common.didyoumean import near_words
from ...common.text import int_text, kind_of, yaml_text
from ...corpus.identity import MAX_ID_LENGTH
from ..registry import rule


@rule("RK101", "missing-front-matter", "error", scope="load")
def missing_front_matter(ctx):
    """A record file has no YAML front matter.

    ## What it does
    Reports a Markdown file under the record root that does not start with a
    `---` line, or whose front matter is never closed by a second `---` line.

    ## Why is this bad
    Every record is identified, typed and related by its front matter.  A file
    without it is invisible to the graph: nothing can point at it and it
    points at nothing.

    ## Example
    ```markdown
    # Relative representations
    Notes on the paper...
    ```

    ## Use instead
    ```markdown
    ---
    id: NOTE-652
    title: Relative representations enable zero-shot latent space communication
    status: draft
    ---
    Notes on the paper...
    ```
    """


@rule("RK102", "invalid-yaml", "error", scope="load")
def invalid_yaml(ctx):
    """The front matter is not valid YAML.

    ## What it does
    Reports a YAML syntax error in the front matter, at the line and column
    where the parser gave up.

    ## Why is this bad
    Nothing in a file whose front matter does not parse can be read: its id,
    status and relations are lost to every other rule and to the graph.

    ## Example
    ```yaml
    ---
    id: THEORY-798
    title: [an unclosed flow list
    ---
    ```

    ## Use instead
    ```yaml
    ---
    id: THEORY-798
    title: "[a bracket inside a quoted string]"
    ---
    ```
    """


@rule("RK103", "invalid-utf8", "error", scope="load")
def invalid_utf8(ctx):
    """The file is not valid UTF-8 (or cannot be read).

    ## What it does
    Reports the first byte that is not part of a valid UTF-8 sequence, with
    its line and column.

    ## Why is this bad
    Records are UTF-8 text.  A file saved as Latin-1 or Windows-1252 would be
    decoded differently by every tool that reads it, and recordkit will not
    guess.

    ## Example
    A title `café` saved in Latin-1: the byte `0xe9`.

    ## Use instead
    Save the file as UTF-8 (`iconv -f latin1 -t utf-8`).
    """


@rule("RK109", "file-not-read", "error", scope="load")
def file_not_read(ctx):
    """A `*.md` path under the record root is not a regular file, or is larger than `max_file_size`.

    ## What it does
    Reports a path named like a record that recordkit does not read: a named
    pipe (FIFO), a device, a socket, a symbolic link to one of these (such
    as a link to `/dev/zero`), or a file larger than the `max_file_size`
    configuration setting (4 MB unless set).  A symbolic link to a regular
    file is read like the file, wherever the file is.

    ## Why is this bad
    Reading a named pipe waits for a writer that never comes; reading a
    device may never end; a file of many megabytes is not a note but a data
    dump or an accident, and would make every command slow.  Nothing in the
    file reaches the graph.

    ## Example
    `records/note/NOTE-001.md` is a link to `/dev/zero`, or a 50 MB export
    pasted into a note.

    ## Use instead
    Replace the link by the record it should be, move the data out of the
    record folder (or exclude it with `[tool.recordkit.lint] exclude`), or
    raise `max_file_size` in the configuration if the file really is a
    record.
    """


@rule("RK112", "duplicate-key", "error", scope="load")
def duplicate_key(ctx):
    """A key is written twice in one mapping of the front matter.

    ## What it does
    Reports the second (and any later) occurrence of a key in the same
    mapping, at its position, naming the line of the first.  The record is
    read with the last value, as YAML libraries read it.

    ## Why is this bad
    YAML wants the keys of a mapping unique, but most parsers keep the last
    value without a word: the first is lost.  A relation added at the top
    of a long front matter and again at the bottom keeps only one of its
    lists, and a dangling target in the lost one is never reported.

    ## Example
    ```yaml
    ---
    id: NOTE-001
    title: A
    bears_on: [THEORY-999]
    title: B
    ---
    ```

    ## Use instead
    ```yaml
    ---
    id: NOTE-001
    title: B
    bears_on: [THEORY-999]
    ---
    ```
    """


@rule("RK104", "front-matter-not-mapping", "error", scope="load")
def front_matter_not_mapping(ctx):
    """The front matter is empty, or a list or scalar instead of a mapping.

    ## What it does
    Reports front matter that parses but is not a mapping of keys to values.

    ## Why is this bad
    A record's fields are keys; a list or a bare string has none.

    ## Example
    ```yaml
    ---
    - id: LIT-849
    ---
    ```

    ## Use instead
    ```yaml
    ---
    id: LIT-849
    ---
    ```
    """


@rule("RK105", "invalid-id", "error", local=True)
def invalid_id(ctx, rec):
    """`id` is missing or not of the form `KIND-NNN`.

    ## What it does
    Checks that the front matter has an `id` that matches the schema's id
    pattern: an upper-case kind, a hyphen, at least three digits.  With
    another `id_pattern` the message names that pattern; with an `id_from`
    that falls back to the file's name or path, a missing `id` is not
    reported and the id taken from the file is checked instead; with no
    `id_pattern`, only a missing or non-text `id` is reported.  An `id` of
    over 256 characters is reported too, and not taken: the record is named
    by its file instead.

    ## Why is this bad
    The id is how every other record and every body mention names this one.
    `THEORY-2` and `theory-002` do not match what mentions look for.

    ## Example
    ```yaml
    id: Theory-2
    ```

    ## Use instead
    ```yaml
    id: THEORY-002
    ```
    """
    schema = ctx.schema
    if schema.page_globs and schema.is_page(rec.relpath):
        return None     # a page (the schema's `pages`: an index, a template) has no id shape to keep
    name, alone = _id_field(schema)
    rx = schema.id_re
    if name is None or name not in rec.meta or not _field_gave_id(rec, name):
        # the id came from the file's name or path: only the pattern applies
        if name is not None and alone:
            return _missing_id(ctx, rec, name)
        if rx is not None and not rx.match(rec.id):
            where = "the file's path" if rec.id != rec.stem else "the file name"
            return [ctx.diag("RK105", f"id `{rec.id}` (from {where}) {_not_of_pattern(schema)}", rec,
                             rec.key_pos())]
        return None
    rid = rec.meta.get(name)
    if not isinstance(rid, str):
        written = _written(rec, (name,)) or yaml_text(rid)
        return [ctx.diag("RK105", f"`{name}` `{written}` is read by YAML as {kind_of(rid)}, not as text: quote it "
                                  f"(`{name}: \"{written}\"`){_id_shape(schema)}{_expected(schema, rec)}",
                         rec, rec.value_pos(name))]
    if len(rid) > MAX_ID_LENGTH:
        return [ctx.diag("RK105", f"`{name}` is {len(rid):,} characters long, over the {MAX_ID_LENGTH} an id may "
                                  f"have: the record is named `{rec.id}` instead", rec, rec.value_pos(name))]
    if rx is not None and not rx.match(rid):
        return [ctx.diag("RK105", f"`{name}` `{yaml_text(rid)}` {_not_of_pattern(schema)}", rec, rec.value_pos(name))]
    return None


def _id_field(schema) -> tuple[str | None, bool]:
    """The front-matter field ``id_from`` reads first (None when its first
    source is not a field), and whether nothing but fields follows it (so
    a missing field leaves the record with no id of its own)."""
    src = schema.id_from
    if not src or src[0][0] != "field":
        return None, False
    return src[0][1], all(s == "field" for s, _ in src)


def _field_gave_id(rec, name) -> bool:
    v = rec.meta.get(name)
    return not (v is None or (isinstance(v, str) and not v.strip()))


def _missing_id(ctx, rec, name):
    rid = rec.meta.get(name)
    expected = _expected(ctx.schema, rec)
    if rid is None and name not in rec.meta:
        return [ctx.diag("RK105", f"`{name}` is missing{expected}", rec, rec.key_pos())]
    return [ctx.diag("RK105", f"`{name}` is empty{expected}", rec, rec.value_pos(name))]


def _expected(schema, rec) -> str:
    rx = schema.id_re
    return f" (expected {rec.stem} from the file name)" if rx is not None and rx.match(rec.stem) else ""


def _is_research_pattern(schema) -> bool:
    from ...schema import DEFAULT_ID_PATTERN
    return schema.id_pattern == DEFAULT_ID_PATTERN


def _not_of_pattern(schema) -> str:
    if _is_research_pattern(schema):
        return "is not of the form KIND-NNN (at least three digits)"
    return f"does not match the id pattern {schema.id_pattern}"


def _id_shape(schema) -> str:
    if schema.id_re is None:
        return ""
    if _is_research_pattern(schema):
        return "; an id is KIND-NNN (at least three digits)"
    return f"; an id matches the id pattern {schema.id_pattern}"


def _written(rec, path) -> str | None:
    """The text of the scalar at ``path`` as the file spells it (one line)."""
    line, col, end_line, end_col = rec.value_pos(*path)
    if line != end_line:
        return None
    text = rec.line_text(line)[col - 1:end_col - 1].strip()
    return text or None


@rule("RK106", "id-file-mismatch", "error", local=True)
def id_file_mismatch(ctx, rec):
    """`id` differs from the file name.

    ## What it does
    Checks that a record's file is named after its id: `THEORY-798.md` holds
    `id: THEORY-798`.

    ## Why is this bad
    People and tools find a record by its file name; the site names its page
    after it.  A record whose file says one id and whose front matter another
    is found under the wrong name.

    Only an id read from the front matter (the first `id_from` source) that
    matches the schema's `id_pattern` is compared; a schema with no
    `id_pattern` does not ask for it.

    ## Example
    `records/theory/THEORY-798.md` with `id: THEORY-799`.

    ## Use instead
    Rename the file, or correct the id.
    """
    schema = ctx.schema
    name, _ = _id_field(schema)
    if name is None or schema.id_re is None:   # no id field, or no id shape a file name could be checked by
        return None
    if schema.page_globs and schema.is_page(rec.relpath):
        return None
    rid = rec.meta.get(name)
    if isinstance(rid, str) and len(rid) <= MAX_ID_LENGTH and schema.id_re.match(rid) and rid != rec.stem:
        return [ctx.diag("RK106", f"`{name}` {rid} differs from the file name {rec.path.name}", rec,
                         rec.value_pos(name))]
    return None


@rule("RK107", "duplicate-id", "error", scope="corpus")
def duplicate_id(ctx):
    """The same id in two files (both are reported).

    ## What it does
    Reports every file whose id another file also declares.

    ## Why is this bad
    Relations and mentions name records by id; with two files behind one id,
    which one a relation means is a matter of chance (recordkit keeps the
    first in path order).

    ## Example
    `records/lit/LIT-849.md` and `records/old/LIT-849.md`, both `id: LIT-849`.

    ## Use instead
    Give one of them the next free id, or merge them.
    """
    seen: dict[str, list] = {}
    name, alone = _id_field(ctx.schema)
    if name is not None and alone:
        # ids come from a field only (the research record): the declared ones
        for rec in ctx.corpus.files:
            if rec.ok and isinstance(rec.meta.get(name), str):
                seen.setdefault(rec.meta[name], []).append(rec)
    else:
        # ids also come from file names (two folders may hold one stem): every
        # record's id, wherever it came from; only the first is loaded
        for rec in ctx.corpus.files:
            if rec.ok and isinstance(rec.id, str):
                seen.setdefault(rec.id, []).append(rec)
    out = []
    where = name or "id"
    from ...common.text import NAMES_SHOWN, some_of
    for rid, recs in seen.items():
        if len(recs) > 1:
            for rec in recs:
                # (the first few others: every other of thousands in each was quadratic)
                first = [o.relpath for o in recs[:NAMES_SHOWN + 2] if o is not rec]
                others = some_of(first, total=len(recs) - 1)
                out.append(ctx.diag("RK107", f"id {rid} is also declared in {others}", rec, rec.value_pos(where),
                                    about=(rid,)))
    return out


@rule("RK108", "unknown-kind", "error", local=True)
def unknown_kind(ctx, rec):
    """The id's prefix is not a kind of the schema.

    ## What it does
    Checks that the `KIND` part of `KIND-NNN` is one of the schema's kinds
    (LIT, NOTE, THEORY, CLAIM, QUESTION by default, plus any your schema
    file adds), and suggests the closest.

    ## Why is this bad
    The kind decides a record's statuses, fields and allowed relations;
    a record of an unknown kind cannot be checked at all.

    ## Example
    ```yaml
    id: THEROY-798
    ```

    ## Use instead
    ```yaml
    id: THEORY-798
    ```
    Or add the kind to your schema file.
    """
    rid = rec.meta.get("id")
    if not isinstance(rid, str):
        return None
    rx = ctx.schema.id_re
    m = rx.match(rid) if rx is not None and "kind" in rx.groupindex else None
    if m and m.group("kind") is not None and m.group("kind") not in ctx.schema.kinds:
        near = near_words(m.group("kind"), ctx.schema.kinds)
        hint = f" (did you mean {near[0]}?)" if near else ""
        return [ctx.diag("RK108", f"kind {m.group('kind')} is not in the schema{hint}", rec, rec.value_pos("id"))]
    return None


def _kind_explained(schema, rec) -> bool:
    """Whether another rule already says why ``rec`` has no kind: its id
    does not match the schema's id pattern (RK105), or the pattern's kind
    group names a kind the schema lacks (RK108), while ``kind_from`` reads
    the kind from the id."""
    id_re = getattr(schema, "id_re", None)
    rid = rec.id
    if id_re is None or not isinstance(rid, str) or not rid.strip():
        return False
    groups = [arg for source, arg in _kind_from(schema) if source == "pattern"]
    if not groups:
        return False
    if id_re.match(rid) is None:
        return True       # RK105
    written = rec.meta.get("id")
    m = id_re.match(written) if isinstance(written, str) and "kind" in id_re.groupindex else None
    return bool(m and m.group("kind") is not None and m.group("kind") not in schema.kinds)   # RK108


def _kind_from(schema) -> list[tuple[str, object]]:
    """The schema's ``kind_from`` sources as ``(source, arg)`` (default: the
    id pattern's ``kind`` group)."""
    got = getattr(schema, "kind_from", None)
    if got is None:
        got = (schema.raw or {}).get("kind_from") or [{"pattern": "kind"}]
    out = []
    for g in got:
        if isinstance(g, dict):
            out.extend((k, v) for k, v in g.items() if k != "map")
        else:
            out.append((getattr(g, "source", None), getattr(g, "arg", None)))
    return out


#: how many of the files without a kind the summary names
KINDLESS_NAMED = 3


@rule("RK110", "records-without-kind", "warning", scope="corpus")
def records_without_kind(ctx):
    """Records have no kind: one summary for all of them (set `kind_from`).

    ## What it does
    Counts the records to which the schema's `kind_from` gives no kind (no
    source it lists yields a kind the schema knows), and reports them
    once, at the first such file, naming a few: "412 records have no kind".
    A record whose id already says why (RK105, RK108) is not counted.
    Such a record is still loaded, is a node of the graph, can be linked to
    and links out; but no field, status or relation rule of a kind applies
    to it, so none reports it file by file.

    ## Why is this bad
    The kind decides a record's statuses, fields and relations: a record
    without one is checked for nothing.  In a vault whose notes carry
    their type in a field, a folder or a name prefix, a schema that does
    not say so leaves every note unchecked.

    ## Example
    With `kind_from: [{field: type, map: {paper: LIT, reading: NOTE}}]` in
    the schema, a note that says nothing of its type:
    ```yaml
    id: relative-representations
    title: Relative representations
    status: draft
    ```

    ## Use instead
    Say how a record's kind is found: give the notes their field, or list
    more sources in the schema, tried in order (the folder, a prefix of
    the id, a default):
    ```yaml title="schema.yaml"
    kind_from:
      - {field: type, map: {paper: LIT, reading: NOTE}}
      - {folder: 1, map: {literature: LIT}}
      - {default: NOTE}
    ```
    """
    schema = ctx.schema
    kinds = schema.kinds
    kindless = [rec for rec in ctx.corpus.files
                if rec.ok and (not rec.kind or rec.kind not in kinds) and not _kind_explained(schema, rec)
                and not schema.is_page(rec.relpath)]
    if not kindless:
        return []
    n = len(kindless)
    first = kindless[0]
    names = ", ".join(r.relpath for r in kindless[:KINDLESS_NAMED])
    more = f", and {n - KINDLESS_NAMED} more" if n > KINDLESS_NAMED else ""
    what = "1 record has no kind" if n == 1 else f"{n} records have no kind"
    msg = (f"{what}: set `kind_from` in the schema (a field such as `type:`, the folder, a prefix of the id, "
           f"or a default) so that {'its' if n == 1 else 'their'} fields and relations are checked ({names}{more})")
    about = tuple(sorted({r.id for r in kindless if r.id}))
    return [ctx.diag("RK110", msg, first, (1, 1, 1, 4), about=about)]


@rule("RK111", "duplicate-value", "error", scope="corpus")
def duplicate_value(ctx):
    """Two records share a value the schema's `unique` says is one record's own.

    ## What it does
    For each entry of the schema's `unique` list, collects every record's
    value and reports each record whose value another record also has, at
    the value, naming the other file with the line and column of its value.
    `field:NAME` reads a front-matter field (each item of a list counts);
    `pattern:GROUP` reads a named group of `id_pattern` from the record's id
    (from the file name, when the ids are file names).  Values are compared
    as text.  Pages (the schema's `pages`) are not checked.  By default the
    schema asks for nothing unique; `preset:dendron` asks it of the `id:`
    field, `preset:madr` of the decision number.

    ## Why is this bad
    Some values name a record as surely as its id does, even where the id
    is taken from elsewhere: Dendron's internal `id:` (its links and its
    database use it, and it refuses two notes with one), the number of an
    architecture decision ("ADR 11" must be one decision).  Two files with
    one such value are usually a copied file that kept it, or two people
    who took the next number at once.

    ## Example
    With `unique: [pattern:number]` and `id_pattern:
    '^(?P<number>[0-9]{4})-[a-z0-9-]+$'`, two decisions numbered 0011:
    `0011-version-datasets-with-dvc.md` and
    `0011-publish-figures-from-notebooks.md`.

    ## Use instead
    Give one of them the next free number (`0015-publish-figures-from-notebooks.md`),
    or, for a copied Dendron note, a new `id:`.
    """
    schema = ctx.schema
    if not schema.unique:
        return []
    out = []
    for source, arg in schema.unique:
        seen: dict[str, list] = {}
        for rec in ctx.corpus.files:
            if not rec.ok or (schema.page_globs and schema.is_page(rec.relpath)):
                continue
            for value, pos in _unique_values(schema, rec, source, arg):
                seen.setdefault(value, []).append((rec, pos))
        what, again = ((f"`{arg}`", f"the `{arg}`") if source == "field"
                       else (f"{arg} (the `{arg}` group of the id)", f"the {arg}"))
        from ...common.text import NAMES_SHOWN, some_of
        for value, holders in seen.items():
            if len({id(r) for r, _ in holders}) < 2:
                continue
            # what each diagnostic is about: the holders' ids, one tuple for
            # the group (its own id among them changes nothing: it is in its
            # file); the message names the first few other holders (every
            # other of thousands in each message was quadratic)
            about = tuple(sorted({o.id for o, _ in holders if o.id}))
            count: dict[int, int] = {}
            for o, _ in holders:
                count[id(o)] = count.get(id(o), 0) + 1
            for rec, pos in holders:
                n_others = len(holders) - count[id(rec)]
                if not n_others:
                    continue
                first = [f"{o.relpath}:{p[0]}:{p[1]}" for o, p in holders[:NAMES_SHOWN + 1 + count[id(rec)]]
                         if o is not rec][:NAMES_SHOWN + 1]
                shown = value if len(value) <= 80 else value[:79] + "…"
                out.append(ctx.diag("RK111", f"{what} {shown} is also {again} of {some_of(first, total=n_others)}",
                                    rec, pos, about=about))
    return out


def _unique_values(schema, rec, source: str, arg: str) -> list:
    """(value as text, position) of what ``unique``'s entry reads in ``rec``."""
    if source == "field":
        v = rec.meta.get(arg)
        items = list(enumerate(v)) if isinstance(v, list) else [(None, v)]
        out = []
        for i, item in items:
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                continue
            text = int_text(item) if isinstance(item, int) else str(item).strip()
            if text:
                out.append((text, rec.value_pos(arg) if i is None else rec.value_pos(arg, i)))
        return out
    rid = rec.id
    m = schema.id_re.match(rid) if isinstance(rid, str) else None
    if m is None or m.group(arg) is None:
        return []
    name, _ = _id_field(schema)
    if name is not None and rec.meta.get(name) == rid:
        # the id is written in the front matter: point at the group within it
        line, col, end_line, _ = rec.value_pos(name)
        if line == end_line and rec.line_text(line)[col - 1:].startswith(rid):
            start = col + m.start(arg)
            return [(m.group(arg), (line, start, line, start + len(m.group(arg))))]
        return [(m.group(arg), rec.value_pos(name))]
    return [(m.group(arg), (1, 1, 1, 1))]    # the id is the file's name: no line holds it
