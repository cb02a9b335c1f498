"""TABULATE: the record as a SQLite database and read-only queries over it.

- :mod:`recordkit.sql.tables` — the tables (``SCHEMA``, documented in
  ``docs/query.md``), their indexes, the full-text index, the groups of
  tables filled together;
- :mod:`recordkit.sql.rows` — a record as rows (records, typed fields,
  relations with their origin, tags, mentions, check results, standings),
  each group of tables filled from a corpus;
- :mod:`recordkit.sql.database` — writes the database file from a corpus,
  its check results and its standings (``recordkit export --sqlite``);
- :mod:`recordkit.sql.cache` — the record's database kept in the cache
  folder until the record changes;
- :mod:`recordkit.sql.query` — opens it read-only and runs a query
  (``recordkit query``), with a time limit and Ctrl-C;
- :mod:`recordkit.sql.blocks` — ```` ```query ```` blocks in a body
  (``recordkit show``, lint rule RK701, the site);
- :mod:`recordkit.sql.formats` — a result as a table, JSON or CSV.

``database`` and ``query`` still offer every name they did before the
split (``from recordkit.sql.query import format_table`` works).

This stage comes after JUDGE (the database holds standings) and before LINT
(RK701 runs a record's query blocks), so it sits between them.
"""
