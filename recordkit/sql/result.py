"""What a query gives: its columns, its rows and the tables it read (the
output formats and the query blocks take it; :mod:`.query` makes it)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Result:
    columns: list[str]
    rows: list[tuple]
    tables: set[str] = field(default_factory=set)   # the tables the query read

    def to_dicts(self) -> list[dict]:
        return [dict(zip(self.columns, r)) for r in self.rows]
