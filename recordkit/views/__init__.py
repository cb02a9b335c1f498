"""PRESENT: the JSON-ready data every output shares: a record's
description (``recordkit show``) and the content index (the graph page)."""
