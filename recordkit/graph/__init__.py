"""DERIVE: the record's edges and the NetworkX graph built from them.

:mod:`.edges` works without networkx (the lint needs only which records are
linked); :mod:`.build` is the only module that imports networkx."""
