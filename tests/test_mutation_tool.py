"""benchmarks/mutation.py's own logic (docs/contributing.md): which mutants it leaves out, and the
score block that `make mutation` writes into RESULTS.md and `make bench` keeps."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import mutation  # noqa: E402

SOURCE = '''from __future__ import annotations


def kept(a: int | None, b: bool = False) -> int | None:
    return a or 0


def other(x: float) -> float:
    y: int | None = 3
    return x + y
'''


def test_annotations_are_left_out_and_defaults_are_not() -> None:
    outside = mutation.excluded(SOURCE, None)
    assert outside((4, 12))  # the `|` of `int | None` in kept's parameter
    assert outside((4, 46))  # the `|` of the return annotation
    assert not outside((4, 35))  # the default False: code
    assert not outside((5, 13))  # `a or 0`
    assert outside((9, 11)) and not outside((9, 20))  # y's annotation; its value 3


def test_one_kept_function_leaves_out_every_other_line() -> None:
    outside = mutation.excluded(SOURCE, "kept")
    assert not outside((5, 13))
    assert outside((10, 13))  # `x + y` in other()
    assert outside((1, 0))


def test_the_score_block_is_replaced_in_place_and_kept_by_bench() -> None:
    block = f"{mutation.BEGIN}\n## Mutation score\n\nold\n{mutation.END}\n"
    document = "# Benchmark results\n\n| a |\n\n" + block
    assert mutation.mutation_block(document) == block
    new = f"{mutation.BEGIN}\n## Mutation score\n\nnew\n{mutation.END}\n"
    assert mutation.carry_over(document, new) == "# Benchmark results\n\n| a |\n\n" + new
    assert mutation.carry_over("# Benchmark results\n", new) == "# Benchmark results\n\n" + new
    assert mutation.mutation_block("# Benchmark results\n") == ""


def test_every_listed_equivalent_has_a_reason() -> None:
    listed = mutation.equivalents()
    assert listed and all(reason.strip() for reason in listed.values())
