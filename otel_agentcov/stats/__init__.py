"""Statistics as pure functions of counts: the coverage estimators (`estimators`), the
regression tests behind a pass-rate verdict (`regression`, numpy and scipy loaded only when a
test runs) and the verdicts with their exit codes (`verdicts`).

The estimators are the package's face: `from otel_agentcov.stats import wilson`.
"""

from .estimators import (
    Z95,
    LogHistogram,
    chao1,
    extrapolated_coverage,
    frequency_counts,
    geometric_mean,
    good_turing,
    jaccard,
    mean_pairwise_jaccard,
    runs_for_coverage,
    runs_for_interval,
    wilson,
    wilson_interval_at,
)

__all__ = [
    "Z95",
    "LogHistogram",
    "chao1",
    "extrapolated_coverage",
    "frequency_counts",
    "geometric_mean",
    "good_turing",
    "jaccard",
    "mean_pairwise_jaccard",
    "runs_for_coverage",
    "runs_for_interval",
    "wilson",
    "wilson_interval_at",
]
