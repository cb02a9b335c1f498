"""TABULATE: the record as a SQLite database and read-only queries over it.

- :mod:`recordkit.sql.database` — builds the database (records, typed fields,
  relations with their origin, tags, mentions, check results, standings,
  FTS5) from a corpus, its check results and its standings
  (``recordkit export --sqlite``).
- :mod:`recordkit.sql.query` — opens it read-only, runs a query, caches the
  database until the record changes, and evaluates ```` ```query ```` blocks
  (``recordkit query``, ``recordkit show``, lint rule RK701, the site).

This stage comes after JUDGE (the database holds standings) and before LINT
(RK701 runs a record's query blocks), so it sits between them.
"""
