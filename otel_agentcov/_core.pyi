"""Types of the compiled core (core/, docs/core.md)."""

__version__: str

def trace_ids(resource_spans: bytes) -> frozenset[int]:
    """The trace ids in one serialized ResourceSpans (a superset of what decoding it gives);
    ValueError when it cannot be scanned."""
