"""Helpers that know nothing of records: atomic file writes, text
positions and splices, "did you mean", forking, the collector pause."""
