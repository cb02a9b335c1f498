"""Helpers that know nothing of records: atomic file writes, text
positions and splices, "did you mean", the id order, the plugin loader.
(Forking, the collector pause and the C heap: :mod:`recordkit.runtime`.)"""
