"""benchmarks/mutation.py's own logic (docs/contributing.md): which mutants it leaves out, and the
score block that `make mutation` writes into RESULTS.md and `make bench` keeps."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

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
    outside = mutation.excluded(SOURCE, ("kept",))
    assert not outside((5, 13))
    assert outside((10, 13))  # `x + y` in other()
    assert outside((1, 0))


def test_two_kept_functions_keep_both_and_a_missing_one_stops_the_run() -> None:
    outside = mutation.excluded(SOURCE, ("kept", "other"))
    assert not outside((5, 13)) and not outside((10, 13))
    assert outside((1, 0))  # the import: in neither
    with pytest.raises(SystemExit, match="no function 'gone'"):
        mutation.excluded(SOURCE, ("kept", "gone"))


def test_the_table_names_the_run_of_each_module() -> None:
    gate, judge = mutation.MODULES[0], mutation.MODULES[1]
    m = mutation.Mutant("1", "otel_agentcov/gate.py", "core/X", 7, "a < b", "a <= b")
    run = {"seed": "43", "per_module": "40", "date": "2026-11-28 06:00 UTC", "load": "3.5",
           "cores": "2", "command": "benchmarks/mutation.py --only gate.py", "seconds": "300"}
    first = mutation.Score(gate, population=120, killed=[m] * 9, survived=[m], void=1, run=run)
    second = mutation.Score(judge, note="not measured")
    text = mutation.table([first, second])
    rows = [line for line in text.splitlines() if line.startswith("| gate.py")]
    # 9 killed of 10 decided (the void one is no verdict): 90 %, met; sampled 9 + 1 + 1 = 11
    assert rows == ["| gate.py | 120 | 11 | 0 | 9 | 1 | 1 | 90 % | met | 43 | "
                    "2026-11-28 06:00 UTC | 3.5 | 300 | 1 |"]
    assert "| judge/ | 0 | 0 | 0 | 0 | 0 | 0 | n/a | NOT MET (not measured) |  |  |  |  |  |" \
        in text
    assert "1. `benchmarks/mutation.py --only gate.py`" in text
    assert "- otel_agentcov/gate.py:7 core/X: `a < b` -> `a <= b`" in text


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


def test_again_forgets_every_verdict_but_the_kills_and_keeps_the_sample(tmp_path: Path) -> None:
    import json
    import sqlite3

    session = tmp_path / "session.sqlite"
    with sqlite3.connect(session) as db:
        db.execute("CREATE TABLE work_results (worker_outcome TEXT, test_outcome TEXT, "
                   "job_id TEXT PRIMARY KEY)")
        db.executemany("INSERT INTO work_results VALUES (?, ?, ?)", [
            ("SKIPPED", None, "outside"), ("NORMAL", "KILLED", "killed"),
            ("NORMAL", "SURVIVED", "survived"), ("EXCEPTION", None, "void"),
            ("ABNORMAL", "INCOMPETENT", "incompetent"),
        ])
    (tmp_path / "run.json").write_text(json.dumps({"seed": "7", "per_module": "12", "load": "1"}))
    assert mutation.reopen(session, tmp_path) == {"seed": "7", "per_module": "12"}
    with sqlite3.connect(session) as db:
        left = sorted(row[0] for row in db.execute("SELECT job_id FROM work_results"))
    assert left == ["killed", "outside"]
    (tmp_path / "run.json").unlink()  # an interrupted run recorded nothing
    assert mutation.reopen(session, tmp_path) == {}
