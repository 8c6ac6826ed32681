"""Every formula of docs/semantics.md against values worked out by hand."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_agentcov.snapshot import model_matches
from otel_agentcov.stats import (
    Z95,
    LogHistogram,
    chao1,
    extrapolated_coverage,
    frequency_counts,
    geometric_mean,
    good_turing,
    jaccard,
    mean_pairwise_jaccard,
    wilson,
)


def test_frequency_counts() -> None:
    # items seen 1,1,1,2,5 times -> S_obs 5, f1 3, f2 1, n 10; zeros ignored
    assert frequency_counts([1, 1, 1, 2, 5, 0]) == (5, 3, 1, 10)


def test_chao1_with_f2_zero() -> None:
    # S_obs=4, f1=3, f2=0: 4 + 3*2 / (2*1) = 7
    assert chao1(4, 3, 0) == pytest.approx(7.0)


def test_chao1_with_f2_positive() -> None:
    # S_obs=5, f1=3, f2=1: 5 + 3*2 / (2*2) = 6.5
    assert chao1(5, 3, 1) == pytest.approx(6.5)


def test_chao1_no_singletons_is_observed() -> None:
    assert chao1(6, 0, 3) == 6.0
    assert chao1(6, 1, 0) == 6.0  # f1(f1-1) = 0


def test_good_turing() -> None:
    assert good_turing(3, 10) == pytest.approx(0.7)
    assert good_turing(0, 0) is None


def test_wilson_at_zero_successes() -> None:
    # n=10, p=0, z=1.96: centre = (z^2/20)/(1+z^2/10); half equals centre -> [0, 2*centre]
    z2 = 1.959963984540054**2
    upper = 2 * (z2 / 20) / (1 + z2 / 10)
    lo, hi = wilson(0, 10) or (None, None)
    assert lo == pytest.approx(0.0, abs=1e-12)
    assert hi == pytest.approx(upper)
    assert hi == pytest.approx(0.2775, abs=1e-4)


def test_wilson_at_n_successes_is_mirror_of_zero() -> None:
    lo, hi = wilson(10, 10) or (None, None)
    lo0, hi0 = wilson(0, 10) or (None, None)
    assert hi == pytest.approx(1.0)
    assert lo == pytest.approx(1 - hi0)


def test_wilson_interior_by_hand() -> None:
    # 36 of 50, z=1.96: denom 1.076829, centre 0.704291, half 0.120961
    lo, hi = wilson(36, 50) or (None, None)
    assert lo == pytest.approx(0.58333, abs=1e-4)
    assert hi == pytest.approx(0.82525, abs=1e-4)


def test_wilson_no_runs() -> None:
    assert wilson(0, 0) is None


def test_geometric_mean() -> None:
    assert geometric_mean([0.8, 0.5]) == pytest.approx(math.sqrt(0.4))
    assert geometric_mean([0.9, 0.0, 1.0]) == 0.0
    assert geometric_mean([]) is None


def test_jaccard_and_consistency() -> None:
    a, b, c = frozenset({"x", "y"}), frozenset({"y", "z"}), frozenset()
    assert jaccard(a, b) == pytest.approx(1 / 3)
    assert jaccard(c, frozenset()) == 1.0
    # pairs: (a,b)=1/3, (a,a)=1, (b,a)=1/3 -> mean 5/9
    assert mean_pairwise_jaccard([a, b, a]) == pytest.approx(5 / 9)
    assert mean_pairwise_jaccard([a]) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdefghij"), max_size=8), min_size=2, max_size=40))
def test_consistency_is_the_mean_of_every_pair_by_set_operations(runs: list[list[str]]) -> None:
    """Bit masks give the very floats of the set formula, pair by pair and in the same sum."""
    sets = [frozenset(r) for r in runs]
    pairs = [(a, b) for i, a in enumerate(sets) for b in sets[i + 1:]]
    by_sets = sum(len(a & b) / len(a | b) if a | b else 1.0 for a, b in pairs) / len(pairs)
    assert mean_pairwise_jaccard(runs) == by_sets


def test_dated_model_matching() -> None:
    assert model_matches("gpt-4o-2024-08-06", "gpt-4o")
    assert model_matches("gpt-4o", "gpt-4o")
    assert not model_matches("gpt-4o-mini", "gpt-4")  # gpt-4 + "-" does not prefix gpt-4o-mini
    assert model_matches("gpt-4o-mini", "gpt-4o")  # documented: any suffix after known + "-"
    assert not model_matches("gpt-4", "gpt-4o")


def test_log_histogram_quantiles_within_one_percent() -> None:
    h = LogHistogram()
    for v in range(1, 101):
        h.add(float(v))
    assert h.mean() == pytest.approx(50.5)
    assert h.quantile(0.95) == pytest.approx(95.0, rel=0.01)
    assert h.quantile(0.5) == pytest.approx(50.0, rel=0.01)


def test_log_histogram_zeros_and_merge() -> None:
    a, b = LogHistogram(), LogHistogram()
    for _ in range(9):
        a.add(0.0)
    b.add(10.0)
    a.merge(b)
    assert a.count == 10
    assert a.quantile(0.9) == 0.0
    assert a.quantile(0.95) == pytest.approx(10.0, rel=0.01)
    assert LogHistogram.from_dict(a.to_dict()).to_dict() == a.to_dict()
    assert LogHistogram().quantile(0.95) is None


def test_log_histogram_quantiles_stay_within_the_values_seen() -> None:
    """One value: every quantile is that value, so a one-run agent's p95 equals its mean (it
    was the bucket's midpoint, up to 1 % below). Many: never outside [min, max]."""
    for k in range(1, 400):
        value = 0.013 * k  # spread over many buckets and positions inside them
        one = LogHistogram()
        one.add(value)
        assert one.quantile(0.95) == one.quantile(0.5) == one.mean() == value
        merged = LogHistogram()
        merged.merge(one)
        assert merged.quantile(0.95) == value
        assert LogHistogram.from_dict(one.to_dict()).quantile(0.95) == value
    h = LogHistogram()
    for v in (2.001, 2.002, 2.003):  # one bucket: its midpoint is outside these values
        h.add(v)
    assert 2.001 <= (h.quantile(0.95) or 0) <= 2.003 and 2.001 <= (h.quantile(0.01) or 0)


def test_log_histogram_from_a_file_without_extremes_keeps_its_estimates() -> None:
    h = LogHistogram()
    for v in (1.0, 5.0, 9.0):
        h.add(v)
    old = {k: v for k, v in h.to_dict().items() if k not in ("min", "max")}
    restored = LogHistogram.from_dict(old)
    for q in (0.01, 0.5, 0.95):
        assert restored.quantile(q) == pytest.approx(h.quantile(q), rel=0.02)


def test_log_histogram_cumulative_buckets() -> None:
    h = LogHistogram()
    for v in (0.0, 0.05, 0.3, 0.3, 2.0, 50.0):
        h.add(v)
    # <=0.1: 0.0, 0.05 ; <=0.5: +0.3 x2 ; <=1: same ; <=10: +2.0 ; <=100: +50
    assert h.cumulative([0.1, 0.5, 1.0, 10.0, 100.0]) == [2, 4, 4, 5, 6]


def test_log_histogram_a_value_on_a_bound_counts_as_at_or_below_it() -> None:
    """`le` buckets: 1.0 s is <= 1.0 (1.0 is the upper edge of sketch bucket 0 exactly; values
    within a bucket of a bound are resolved only to the sketch's 1 %), and a bound of 0 holds
    the zero durations only."""
    h = LogHistogram()
    for v in (0.0, 1.0, 1.0, 1.0000001, 2.4):
        h.add(v)
    assert h.cumulative([0.0, 1.0, 2.5, 300.0]) == [1, 3, 5, 5]
    assert LogHistogram().cumulative([0.0, 1.0]) == [0, 0]


def test_histogram_sum_is_exact_whatever_the_order_and_split() -> None:
    """The sum is math.fsum's correctly rounded one, the same for any order or merge split
    (float-by-float addition is not: it differs between orders in the last bits)."""
    import random

    rng = random.Random(4)
    values = [rng.uniform(0.001, 3.0) for _ in range(500)] + [1e-300, 2.5e17, 0.1, 0.2, 0.3]
    expected = math.fsum(values)
    for _ in range(5):
        rng.shuffle(values)
        cut = rng.randrange(len(values))
        a, b = LogHistogram(), LogHistogram()
        for v in values[:cut]:
            a.add(v)
        for v in values[cut:]:
            b.add(v)
        a.merge(b)
        assert a.total == expected and a.count == len(values)
        assert LogHistogram.from_dict(a.to_dict()).total == expected


def test_wilson_upper_bound_never_rounds_above_one() -> None:
    """Just below p = 1 the formula's centre + spread rounds to 1.0000000000000002 (n = 7,
    p = 1 - 1e-15); a bound is a probability, so it is clamped to 1."""
    from otel_agentcov.stats.estimators import wilson_interval_at

    p, n = 1 - 1e-15, 7
    z2 = Z95 * Z95
    raw = ((p + z2 / (2 * n)) + Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / (
        1 + z2 / n)
    assert raw > 1.0  # the unclamped value, by the closed formula
    assert wilson_interval_at(p, n)[1] == 1.0


def test_extrapolated_coverage_without_doubletons_is_bias_corrected() -> None:
    """f2 = 0: ratio (n-1)(f1-1) / ((n-1)(f1-1) + 2); f1 = 3, n = 5 -> 8/10, so the coverage
    now is 1 - (3/5)(0.8) = 0.52 and after two more runs 1 - 0.6 * 0.8**3 = 0.6928."""
    assert math.isclose(extrapolated_coverage(3, 0, 5, 0), 0.52)
    assert math.isclose(extrapolated_coverage(3, 0, 5, 2), 0.6928)
    assert extrapolated_coverage(1, 0, 5, 0) == 1.0  # f1 = 1: ratio 0, nothing unseen
    assert extrapolated_coverage(0, 0, 5, 0) == 1.0 and extrapolated_coverage(0, 0, 0, 0) == 0.0


def test_the_settle_count_needs_the_upper_bound_strictly_below_the_target() -> None:
    """An interval whose upper bound touches the target still holds it (the verdict is FAIL
    only when the bound is below: pytest_marker.verdict), so it has not settled. At 0 passes
    the upper bound is z²/(n + z²), falling with n: a target equal to the bound at 4 runs
    (0.4899) settles at 5 runs (0.4345), not at 4."""
    from otel_agentcov.pytest_marker import verdict
    from otel_agentcov.stats.estimators import runs_to_settle, wilson_interval_at

    target = wilson_interval_at(0.0, 4)[1]  # the bound itself, to the last bit
    assert target == pytest.approx(Z95**2 / (4 + Z95**2))
    assert verdict(0, 4, target) == "INCONCLUSIVE" and verdict(0, 5, target) == "FAIL"
    assert runs_to_settle(0, 10, target) == 5


def test_the_no_runs_line_names_every_input() -> None:
    """The fail-safe line for an input set without agent runs names what was read (so a
    mistyped path is seen), or says there was no input at all."""
    from otel_agentcov.stats.verdicts import no_runs_message

    assert no_runs_message(["runs/a.jsonl", "b.jsonl"]).startswith(
        "no agent runs found in runs/a.jsonl, b.jsonl (give --allow-empty to accept this); ")
    assert no_runs_message([], "--allow-no-runs").startswith(
        "no agent runs found in (no inputs) (give --allow-no-runs to accept this); ")


def test_a_histogram_with_a_bad_sum_is_refused_naming_it_cut_to_20_characters() -> None:
    """A state file is input: a sum that is no number is refused, the value quoted but cut to
    20 characters (a state file may hold anything there)."""
    data = {"count": 0, "sum": "not a number but a long string", "zeros": 0, "buckets": {}}
    with pytest.raises(ValueError) as refused:
        LogHistogram.from_dict(data)
    assert str(refused.value) == "histogram sum 'not a number but a l'"


@pytest.mark.parametrize("extreme", [0.0, -0.5])
def test_a_histogram_extreme_that_is_no_positive_value_is_refused(extreme: float) -> None:
    """Zeros are counted apart, so the stored min / max of the positive values is above 0: a
    min of 0 or below is a corrupt state file, not a value to clamp quantiles to."""
    h = LogHistogram()
    h.add(2.0)
    data = {**h.to_dict(), "min": extreme}
    with pytest.raises(ValueError) as refused:
        LogHistogram.from_dict(data)
    assert str(refused.value) == f"histogram extreme '{extreme}'"


def test_log_histogram_add_all_is_add_one_by_one() -> None:
    """The batch path (C loops, a scaled exact sum, value-by-value units when the range passes
    the floats) keeps what `add` keeps, value by value: count, zeros, exact sum, buckets in
    first-seen order, extremes."""
    rng = random.Random(7)
    batches = [
        [rng.lognormvariate(0, 3) for _ in range(2000)] + [0.0, -0.0, -1.0, math.nan, math.inf],
        [5e-324, 1.0, 2.2250738585072014e-308],  # subnormals: 2**1074 scales them
        [1e-300, 1.7976931348623157e308],  # no common scale: value by value
        [0.1, 0.2, 0.3, 2.0**60, 7.25],
        [],
    ]
    for values in batches:
        one, many = LogHistogram(), LogHistogram()
        for h in (one, many):
            h.add(0.5)
        for value in values:
            one.add(value)
        many.add_all(iter(values))
        assert (many.count, many.zeros, many._sum, many.low, many.high) == (
            one.count, one.zeros, one._sum, one.low, one.high)  # the exact sum, not rounded
        assert list(many.buckets.items()) == list(one.buckets.items())
        assert many.to_dict() == one.to_dict()
