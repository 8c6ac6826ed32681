"""benchmarks/mutation.py's own logic (docs/contributing.md): which mutants it leaves out, and the
score block that `make mutation` writes into RESULTS.md and `make bench` keeps."""

from __future__ import annotations

import json
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


RUN = {"seed": "43", "per_module": "40", "date": "2026-11-28 06:00 UTC", "load": "3.5",
       "cores": "2", "command": "benchmarks/mutation.py --only gate.py", "seconds": "300"}


def mutant(line: int, before: str = "a < b", after: str = "a <= b") -> mutation.Mutant:
    return mutation.Mutant("", "otel_agentcov/gate.py", "core/X", line, before, after)


def test_the_table_names_the_run_of_each_module() -> None:
    """12 sampled: 8 killed (one of them by the clock), 1 survivor, 1 void, 1 listed as
    equivalent, 1 listed but killed (set aside too, and reported as stale)."""
    gate = mutation.MODULES[0]
    equivalent, stale = mutant(20, "x == 1", "x <= 1"), mutant(21, "y == 1", "y >= 1")
    listed = {equivalent.key: "x is\n  never below 1", stale.key: "y never above 1"}
    measured = mutation.Measurement("gate.py", population=120, run=RUN, mutants=[
        *[(mutation.KILLED, mutant(i)) for i in range(1, 8)], (mutation.TIMEOUT, mutant(8)),
        (mutation.SURVIVED, mutant(9)), (mutation.VOID, mutant(10)),
        (mutation.SURVIVED, equivalent), (mutation.KILLED, stale)])
    first = mutation.score(gate, measured, listed)
    assert (first.equivalent, first.equivalent_killed) == ([equivalent, stale], [stale])
    second = mutation.score(mutation.MODULES[1], None, listed)
    text = mutation.table([first, second], listed)
    rows = [line for line in text.splitlines() if line.startswith("| gate.py")]
    # 8 killed of 9 decided (the void one is no verdict, equivalents set aside): 89 %, NOT MET
    assert rows == ["| gate.py | 120 | 12 | 2 | 8 | 1 | 1 | 1 | 89 % | NOT MET | 43 | "
                    "2026-11-28 06:00 UTC | 3.5 | 300 | 1 |"]
    assert "| judge/ | 0 | 0 | 0 | 0 | 0 | 0 | 0 | n/a | NOT MET (not measured) |  |  |  |  |  |" \
        in text
    assert "1. `benchmarks/mutation.py --only gate.py`" in text
    assert "Survivors:\n- otel_agentcov/gate.py:9 core/X: `a < b` -> `a <= b`\n" in text
    assert "Killed by the clock:\n- otel_agentcov/gate.py:8 core/X: `a < b` -> `a <= b`\n" in text
    assert text.endswith("- otel_agentcov/gate.py:20 core/X: `x == 1` -> `x <= 1`: x is never "
                         "below 1\n- otel_agentcov/gate.py:21 core/X: `y == 1` -> `y >= 1`: y "
                         "never above 1")


def test_each_module_keeps_its_latest_measurement(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The store round-trips a measurement mutant by mutant; a session here replaces the
    stored measurement only when it started later, and a module measured nowhere is None."""
    monkeypatch.setattr(mutation, "STORE", tmp_path / "scores.json")
    older = mutation.Measurement("gate.py", 248, {**RUN, "date": "2026-11-28 06:57 UTC"}, "",
                                 [(mutation.KILLED, mutant(3)), (mutation.SURVIVED, mutant(5))])
    later = mutation.Measurement("gate.py", 248, {**RUN, "date": "2026-11-28 09:10 UTC"}, "",
                                 [(mutation.KILLED, mutant(3)), (mutation.KILLED, mutant(5))])
    events = mutation.Measurement("events joining", 213, RUN, "interrupted: 3 of the sample "
                                  "not run", [(mutation.TIMEOUT, mutant(7))])
    mutation.save_store({"events joining": events, "gate.py": older})
    stored = mutation.load_store()
    assert stored == {"gate.py": older, "events joining": events}
    assert list(json.loads((tmp_path / "scores.json").read_text())) == [
        "gate.py", "events joining"]  # MODULES' order, whatever order they were given in
    assert mutation.newer(later, stored["gate.py"]) is later
    assert mutation.newer(stored["gate.py"], later) is later
    assert mutation.newer(None, stored["gate.py"]) is stored["gate.py"]
    assert mutation.newer(None, None) is None


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
    """Kills by the clock (cosmic-ray's "timeout", or no output at all) are run again too."""
    import sqlite3

    session = tmp_path / "session.sqlite"
    with sqlite3.connect(session) as db:
        db.execute("CREATE TABLE work_results (worker_outcome TEXT, test_outcome TEXT, "
                   "output TEXT, job_id TEXT PRIMARY KEY)")
        db.executemany("INSERT INTO work_results VALUES (?, ?, ?, ?)", [
            ("SKIPPED", None, None, "outside"), ("NORMAL", "KILLED", "1 failed", "killed"),
            ("NORMAL", "SURVIVED", "3 passed", "survived"), ("EXCEPTION", None, None, "void"),
            ("ABNORMAL", "INCOMPETENT", None, "incompetent"),
            ("NORMAL", "KILLED", "timeout", "clock"), ("NORMAL", "KILLED", None, "silent"),
        ])
    (tmp_path / "run.json").write_text(json.dumps({"seed": "7", "per_module": "12", "load": "1"}))
    assert mutation.reopen(session, tmp_path) == {"seed": "7", "per_module": "12"}
    with sqlite3.connect(session) as db:
        left = sorted(row[0] for row in db.execute("SELECT job_id FROM work_results"))
    assert left == ["killed", "outside"]
    (tmp_path / "run.json").unlink()  # an interrupted run recorded nothing
    assert mutation.reopen(session, tmp_path) == {}


@pytest.mark.parametrize(("worker", "tests", "output", "expected"), [
    ("normal", "killed", "FAILED tests/test_gate.py::test_x\n1 failed, 3 passed", "killed"),
    ("normal", "killed", "timeout", "timeout"),  # cosmic-ray's own clock
    ("normal", "killed", "...\nmutation: timed out\n", "timeout"),  # the fork's alarm
    ("normal", "killed", "", "timeout"),  # killed before pytest wrote a line
    ("normal", "survived", "4 passed", "survived"),
    ("exception", None, "Traceback", "void"),
])
def test_a_kill_by_the_clock_is_told_apart(worker: str, tests: str | None, output: str,
                                           expected: str) -> None:
    result = {"worker_outcome": worker, "test_outcome": tests, "output": output}
    assert mutation.verdict(result) == expected


def test_again_checks_the_source_as_sampled_not_a_tree_left_mutated(tmp_path: Path) -> None:
    """An interrupted run leaves cosmic-ray's mutant in the copy: the digests of the files as
    sampled are what the source is compared with, and they name each file of the module."""
    module = mutation.Module("x", ("pkg",), ())
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "b.py").write_text("y = 2\n")
    sampled = mutation.digests(tmp_path, module)
    assert sorted(sampled) == ["pkg/a.py", "pkg/b.py"]
    (tmp_path / "pkg" / "a.py").write_text("x = 0\n")  # the mutant left behind
    assert mutation.digests(tmp_path, module) != sampled
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")  # the copy of the checkout again
    assert mutation.digests(tmp_path, module) == sampled


# --- the Rust core's modules (cargo-mutants) ---

RUST = '''/// Glue.
#[pyfunction(name = "twice")]
fn twice_py(n: usize) -> PyResult<usize> {
    door(|| Ok(twice(n)))
}

/// The code.
pub fn twice(n: usize) -> usize {
    n * 2
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(twice_py, m)?)?;
    Ok(())
}
'''


def listed(name: str, genre: str, function: tuple[str, int, str], start: tuple[int, int],
           end: tuple[int, int], replacement: str, diff: str) -> dict[str, object]:
    """One mutant as `cargo mutants --list --json --diff` lists it."""
    fn_name, fn_line, returns = function
    return {"name": name, "genre": genre, "file": "src/x.rs", "replacement": replacement,
            "function": {"function_name": fn_name, "return_type": returns,
                         "span": {"start": {"line": fn_line, "column": 1},
                                  "end": {"line": fn_line + 3, "column": 2}}},
            "span": {"start": {"line": start[0], "column": start[1]},
                     "end": {"line": end[0], "column": end[1]}},
            "diff": diff}


TIMES = listed("src/x.rs:9:7: replace * with +", "BinaryOperator", ("twice", 7, "-> usize"),
               (9, 7), (9, 8), "+", "--- src/x.rs\n+++ replace * with +\n@@ -8,3 +8,3 @@\n"
               " pub fn twice(n: usize) -> usize {\n-    n * 2\n"
               "+    n + /* ~ changed by cargo-mutants ~ */ 2\n }\n")
ZERO = listed("src/x.rs:9:5: replace twice -> usize with 0", "FnValue", ("twice", 7, "-> usize"),
              (9, 5), (9, 10), "0", "--- src/x.rs\n+++ replace twice -> usize with 0\n"
              "@@ -9,1 +9,1 @@\n-    n * 2\n+    0 /* ~ changed by cargo-mutants ~ */\n")
GLUE = listed("src/x.rs:4:5: replace twice_py -> PyResult<usize> with PyResult::new()", "FnValue",
              ("twice_py", 1, "-> PyResult<usize>"), (4, 5), (4, 26), "PyResult::new()",
              "--- src/x.rs\n+++ glue\n@@ -4,1 +4,1 @@\n-    door(|| Ok(twice(n)))\n"
              "+    PyResult::new() /* ~ changed by cargo-mutants ~ */\n")
REGISTER = listed("src/x.rs:13:5: replace register -> PyResult<()> with Ok(())", "FnValue",
                  ("register", 12, "-> PyResult<()>"), (13, 5), (14, 10), "Ok(())", "")


def test_a_rust_module_is_told_by_its_paths_and_leaves_out_generated_tables(
        tmp_path: Path) -> None:
    by_name = {m.name: m for m in mutation.MODULES}
    rust = {"inference readers (core)", "inference precedence (core)"}
    assert all(by_name[name].rust for name in rust)
    assert not any(m.rust for m in mutation.MODULES if m.name not in rust)
    (tmp_path / "core" / "src").mkdir(parents=True)
    for name in ("inference.rs", "pyclass_table.rs", "lib.rs"):
        (tmp_path / "core" / "src" / name).write_text("fn f() {}\n")
    assert mutation.files_of(tmp_path, mutation.Module("core", ("core/src",), ())) == {
        "core/src/inference.rs": None, "core/src/lib.rs": None}


def test_the_glue_is_left_out_and_the_sample_is_seeded(tmp_path: Path) -> None:
    """A #[pyfunction]'s or `register`'s body replaced whole is glue; the code's mutants are the
    population, in a stable order whatever order cargo-mutants listed them in."""
    (tmp_path / "core" / "src").mkdir(parents=True)
    (tmp_path / "core" / "src" / "x.rs").write_text(RUST)
    lines = RUST.splitlines()
    assert mutation.glue(lines, GLUE) and mutation.glue(lines, REGISTER)
    # a body replaced by a value of PyO3's alias of Result (never builds), in any function
    assert mutation.glue(lines, {**ZERO, "replacement": "PyResult::from(None)"})
    assert not mutation.glue(lines, ZERO) and not mutation.glue(lines, TIMES)
    files: dict[str, tuple[str, ...] | None] = {"core/src/x.rs": None}
    population = mutation.rust_population(tmp_path, [TIMES, GLUE, REGISTER, ZERO], files)
    assert population == [ZERO, TIMES]  # by place: line 9 column 5, then column 7
    assert mutation.rust_population(tmp_path, [ZERO, TIMES], files) == population
    assert mutation.rust_population(tmp_path, [TIMES], {"core/src/x.rs": ("other",)}) == []
    assert mutation.rust_population(tmp_path, [TIMES], {"core/src/y.rs": None}) == []


def test_a_mutant_is_applied_by_its_span_as_cargo_mutants_diff_says() -> None:
    assert "    n + 2\n" in mutation.apply(RUST, TIMES)
    assert "    0\n" in mutation.apply(RUST, ZERO)
    assert mutation.apply(RUST, ZERO).replace("    0\n", "    n * 2\n") == RUST
    moved = {**TIMES, "span": {"start": {"line": 9, "column": 5}, "end": {"line": 9, "column": 6}}}
    with pytest.raises(ValueError, match="does not give cargo-mutants' diff"):
        mutation.apply(RUST, moved)  # `n` replaced, not `*`: never judged (void)
    with pytest.raises(ValueError, match="does not fit the source"):
        mutation.apply(RUST.replace("n * 2", "n * 3"), TIMES)
    with pytest.raises(ValueError, match="no such place"):
        mutation.apply(RUST, {**TIMES, "span": {"start": {"line": 99, "column": 1},
                                                "end": {"line": 99, "column": 2}}})


def test_a_body_replaced_whole_matches_though_a_line_of_it_is_kept() -> None:
    """difflib pairs the kept last line (`None`) with the replacement's; the diff's hunks are
    applied instead of compared line by line."""
    source = "fn f() -> Option<u8> {\n    if x {\n        return Some(1);\n    }\n    None\n}\n"
    item = {"name": "f", "replacement": "None",
            "span": {"start": {"line": 2, "column": 5}, "end": {"line": 5, "column": 9}},
            "diff": "--- src/x.rs\n+++ replace f with None\n@@ -1,6 +1,3 @@\n"
                    " fn f() -> Option<u8> {\n-    if x {\n-        return Some(1);\n-    }\n"
                    "-    None\n+    None /* ~ changed by cargo-mutants ~ */\n }\n"}
    assert mutation.apply(source, item) == "fn f() -> Option<u8> {\n    None\n}\n"


def test_a_rust_mutant_is_named_for_the_store_and_the_equivalents() -> None:
    assert mutation.rust_mutant(TIMES) == mutation.Mutant(
        str(TIMES["name"]), "core/src/x.rs", "cargo-mutants/BinaryOperator", 9,
        "n * 2", "n + 2")
    assert mutation.rust_mutant(ZERO).key == (
        "core/src/x.rs", "cargo-mutants/FnValue", "fn twice -> usize", "0")


@pytest.mark.parametrize(("built", "code", "output", "expected"), [
    (False, None, "error[E0599]: no function named `new`", "unviable"),  # killed by the compiler
    (True, 0, "12 passed", "survived"),
    (True, 1, "FAILED tests/test_inference_core.py::test_x\n1 failed", "killed"),
    (True, 1, "...\nmutation: timed out\n", "timeout"),  # the fork's alarm
    (True, None, "", "timeout"),  # the asker stopped by the clock
])
def test_a_rust_mutants_verdict(built: bool, code: int | None, output: str,
                                expected: str) -> None:
    assert mutation.rust_verdict(built, code, output) == expected


def test_a_mutant_that_does_not_build_counts_as_killed_and_is_listed_apart() -> None:
    module = mutation.Module("core", ("core/src/x.rs",), ())
    unviable, survivor = mutation.rust_mutant(GLUE), mutation.rust_mutant(TIMES)
    measured = mutation.Measurement("core", population=3, run=RUN, mutants=[
        (mutation.UNVIABLE, unviable), (mutation.KILLED, mutation.rust_mutant(ZERO)),
        (mutation.SURVIVED, survivor)])
    s = mutation.score(module, measured, {})
    assert (s.killed, s.unviable, s.survived) == ([unviable, mutation.rust_mutant(ZERO)],
                                                  [unviable], [survivor])
    assert s.rate == 2 / 3
    text = mutation.table([s], {})
    assert "Killed by the compiler (cargo-mutants: unviable):\n- core/src/x.rs:4 " \
           "cargo-mutants/FnValue: `fn twice_py -> PyResult<usize>` -> `PyResult::new()`" in text


def test_a_rust_session_is_collected_and_an_interrupted_one_says_so(tmp_path: Path) -> None:
    (tmp_path / "population").write_text("3")
    (tmp_path / "run.json").write_text(json.dumps(RUN))
    session = {"population": 3, "sample": [TIMES, ZERO],
               "verdicts": {TIMES["name"]: ["survived", "2 passed"]}}
    (tmp_path / mutation.RUST_SESSION).write_text(json.dumps(session))
    measured = mutation.collect(tmp_path, "core")
    assert measured is not None
    assert measured.mutants == [(mutation.SURVIVED, mutation.rust_mutant(TIMES))]
    assert (measured.population, measured.run, measured.note) == (
        3, RUN, "interrupted: 1 of the sample not run")
