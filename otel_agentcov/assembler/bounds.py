"""Bounds: how much a front door holds in flight before a run is judged, in one record beside
the state's `Limits` (docs/guarantees.md). Every front door (processor, engine, `--jobs` workers,
`agentcov serve`) takes one and passes it on whole, so no default is written twice."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bounds:
    """Past a bound, spans are dropped (queue) or traces flushed early (the rest); both counted."""

    max_queue: int = 100_000  # spans awaiting the processor's worker
    max_queue_bytes: int = 256 << 20  # their bytes (a span counts at least 2 KiB)
    max_traces: int = 10_000  # traces buffered awaiting their root
    max_spans_per_trace: int = 10_000
    max_buffered_spans: int = 500_000  # across all traces awaiting their root
    idle_ttl_s: float = 60.0  # a trace idle this long is assembled as it is
