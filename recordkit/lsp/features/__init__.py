"""The language features (completion, hover, definition, …): registered on
the server by :func:`register`.  A placeholder until the features land."""


def register(server, workspace) -> None:
    """Register every feature handler on ``server`` (each asks
    ``workspace.snapshot()``)."""
