"""EMIT: what recordkit writes for other tools to read: the record as a
SQLite database (:mod:`.sqlite`) and the query runner over it (:mod:`.query`)."""
