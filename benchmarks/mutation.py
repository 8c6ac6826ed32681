"""`make mutation`: the fail-safe core under cosmic-ray, a seeded sample of mutants per module.

The promise that a failing gate never turns into a pass is only as good as the tests that would
notice it broken. For each module of the fail-safe core this draws a seeded sample of cosmic-ray's
mutants, runs that module's fast tests against each one, and scores killed / non-equivalent.
Equivalent mutants (no test could tell them apart) are listed with a reason each in
benchmarks/mutation_equivalents.yaml; every other survivor is printed, and a module under the
target fails the run (exit 1). Each module's latest measurement, mutant by mutant, is kept in
benchmarks/mutation_scores.json (so a run of some modules, or one in another checkout, leaves
the others' as they were measured); the table of all of them lands in benchmarks/RESULTS.md
between markers, which `make bench` carries over. docs/contributing.md says when to run it.

Mutants are made in a copy of the checkout under build/mutation/ (tracked and untracked files plus
the compiled core), never in the working tree: an interrupted run leaves nothing mutated behind.
A module of Rust files (core/src/*.rs: inference's readers moved into the compiled core) is
mutated by cargo-mutants instead, the maintained mutation tool for Rust, at the version the
Makefile installs into build/cargo-mutants/: its listed mutants are sampled with the same seed and
size, each applied to the copy's crate, built once (a warm CARGO_TARGET_DIR under build/mutation/
cargo/) and its .so put in the copy's package, then judged by the same Python tests through the
same fork server. A mutant that does not build counts as killed (cargo-mutants' "unviable"; the
table lists them apart), one whose tests fail as killed, one whose tests pass as a survivor.
Run: `.venv/bin/python benchmarks/mutation.py [--per-module N] [--seed S] [--only NAME]...
[--again] [--report] [--jobs N] [--no-write]`.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "mutation"
EQUIVALENTS = ROOT / "benchmarks" / "mutation_equivalents.yaml"
STORE = ROOT / "benchmarks" / "mutation_scores.json"  # each module's latest measurement
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
BEGIN, END = "<!-- mutation: begin -->", "<!-- mutation: end -->"
TARGET = 0.90  # killed / non-equivalent, per module
PER_MODULE = 40
SEED = 43
# what a mutant's output ends with when its tests ran out of time: the fork server's alarm, or
# cosmic-ray's own timeout (which writes just "timeout"); such kills are counted apart
TIMED_OUT = "mutation: timed out"

# The Rust side: cargo-mutants at this version (the Makefile's `mutation` target installs it,
# reading the version from here), the crate it mutates, and what is never mutated: tables
# generated from Python (their tests are the generators') and, in the kept files, the PyO3 glue
# (a #[pyfunction]'s or a module's `register` body replaced whole, mostly by values that do not
# build).
CARGO_MUTANTS_VERSION = "27.1.0"
CARGO_MUTANTS = ROOT / "build" / "cargo-mutants" / "bin" / "cargo-mutants"
CRATE = "core"
GENERATED = ("core/src/pyclass_table.rs", "core/src/classify/casefold_table.rs")
MARK = " /* ~ changed by cargo-mutants ~ */"  # what cargo-mutants' diffs add to a mutated line
# a mutant's build: the release profile, less the link-time work that only makes it faster (thin
# LTO, 4 codegen units) and with incremental compilation, so each mutant rebuilds in seconds; the
# code's behaviour is the release build's
CARGO_ENV = {"CARGO_PROFILE_RELEASE_LTO": "false", "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
             "CARGO_PROFILE_RELEASE_INCREMENTAL": "true"}

# pytest without the third-party plugins the selection never uses (langsmith's alone costs seconds
# of CPU per start, and every mutant is a start); -x: a mutant is killed at its first failure.
PYTEST = ("-x", "-q", "-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "-p", "no:anyio",
          "-p", "no:xdist", "-p", "no:xdist.looponfail", "--hypothesis-seed=0",
          "-m", "not slow and not collector")


@dataclass(frozen=True)
class Module:
    """A module of the fail-safe core: its files (`path::f,g` keeps only those functions'
    mutants, methods included) and the fast tests that judge it, the most pointed first (-x
    stops early)."""

    name: str
    paths: tuple[str, ...]
    tests: tuple[str, ...]

    @property
    def rust(self) -> bool:
        """Told by the paths' suffix: a module of .rs files (or of directories of the crate) is
        mutated by cargo-mutants, any other by cosmic-ray."""
        return all(p.partition("::")[0].endswith(".rs") or p.startswith(f"{CRATE}/")
                   for p in self.paths)


MODULES = (
    Module("gate.py", ("otel_agentcov/gate.py",), (
        "tests/test_gate.py", "tests/test_output_escaping.py", "tests/test_gate_declared.py",
    )),
    Module("judge/", ("otel_agentcov/judge",), (
        "tests/test_contracts.py", "tests/test_contract_args.py", "tests/test_contract_turns.py",
        "tests/test_contract_least_privilege.py", "tests/test_restricted_names.py",
        "tests/test_claims.py", "tests/test_narrative.py", "tests/test_judge_isolation.py",
    )),
    Module("snapshot/", ("otel_agentcov/snapshot",), (
        "tests/test_coverage_semantics.py", "tests/test_stats.py", "tests/test_measures.py",
        "tests/test_contract_coverage.py", "tests/test_recommendations.py",
        "tests/test_contexts.py", "tests/test_report_schema.py", "tests/test_gate_declared.py",
        "tests/test_arguments.py", "tests/test_faults_coverage.py",
    )),
    Module("stats/", ("otel_agentcov/stats",), (
        "tests/test_stats.py", "tests/test_gate.py", "tests/test_coverage_semantics.py",
        "tests/test_compare.py", "tests/test_compare_cost.py",
    )),
    Module("state/ restricted attempts", (
        "otel_agentcov/state/facts.py::run_facts", "otel_agentcov/state/edges.py",
    ), (
        "tests/test_run_facts.py", "tests/test_coverage_semantics.py",
        "tests/test_restricted_names.py", "tests/test_contract_least_privilege.py",
        "tests/test_compare.py",
    )),
    # tables before inference, inference only for what no entry claimed, conflicts unclassified,
    # a restricted name never hidden; then the structural pass over what is left (inference's
    # own precedence, `infer`, is the core's: core/src/inference_infer.rs)
    Module("inference precedence", (
        "otel_agentcov/semconv/__init__.py::classify,inferred",
        "otel_agentcov/assembler/infer.py",
    ), (
        "tests/test_inference.py", "tests/test_restricted_names.py", "tests/test_semconv.py",
    )),
    # the same precedence's readers of one string or one attribute set, moved into the compiled
    # core (issue 42): judged by the differential tests against their Python twin first
    Module("inference readers (core)", (
        "core/src/inference.rs", "core/src/inference_attrs.rs", "core/src/name_affix.rs",
    ), (
        "tests/test_inference_core.py", "tests/test_inference.py",
        "tests/test_restricted_names.py",
    )),
    # the precedence itself (`infer`: lifecycle, endpoint, kind words against the name's affix,
    # GenAI keys, the name's sources, the closing guards), in the core since issue 42
    Module("inference precedence (core)", ("core/src/inference_infer.rs",), (
        "tests/test_inference_core.py", "tests/test_inference.py",
        "tests/test_restricted_names.py",
    )),
    # a condition hit with a matching fault is provoked, any other natural; recovered or failed
    Module("fault provenance", ("otel_agentcov/state/faults.py",), (
        "tests/test_faults_coverage.py", "tests/test_faults_openai.py",
        "tests/test_faults_pydantic_ai.py",
    )),
    # a decision event joined to its call's step, in either arrival order, or late, or dropped
    Module("events joining", ("otel_agentcov/assembler/events.py",), (
        "tests/test_event_join.py", "tests/test_decision_events.py",
    )),
)


# Third-party modules a test run imports, loaded once by the fork server: each mutant's run then
# starts as a fork and imports only otel_agentcov (fresh, mutated) and the tests. Never anything
# of otel_agentcov here: the forks must read the mutated source.
PRELOAD = ("pytest", "hypothesis", "_hypothesis_pytestplugin", "pytest_timeout", "numpy",
           "scipy.stats", "scipy.special", "jsonschema", "yaml", "re2", "jinja2", "lemminflect",
           "google.protobuf", "prometheus_client", "opentelemetry.sdk.trace",
           "opentelemetry.sdk.metrics", "opentelemetry.sdk.resources")


def serve(sock: str, tree: str) -> None:
    """The fork server: one forked pytest per request, its exit code and output's tail back.
    A mutant that loops is cosmic-ray's timeout; the fork's alarm ends it here too."""
    import importlib
    import signal
    import socket
    import tempfile

    sys.dont_write_bytecode = True
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    os.chdir(tree)
    sys.path.insert(0, tree)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sock)
    server.listen(1)
    while True:
        conn, _ = server.accept()
        with conn, conn.makefile("rwb") as stream:
            request = json.loads(stream.readline())
            with tempfile.TemporaryFile() as out:
                pid = os.fork()
                if pid == 0:  # the test run: pytest in a fresh fork, output to the file
                    server.close()
                    signal.alarm(int(request["timeout"]))
                    os.dup2(out.fileno(), 1)
                    os.dup2(out.fileno(), 2)
                    import pytest

                    os._exit(int(pytest.main(request["args"])))
                code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
                out.seek(max(0, out.seek(0, 2) - 4000))
                tail = out.read().decode(errors="replace")
                if code == -signal.SIGALRM:  # a kill by the clock, told apart in the table
                    tail += f"\n{TIMED_OUT}\n"
                reply = {"code": code, "tail": tail}
                try:
                    stream.write(json.dumps(reply).encode() + b"\n")
                except OSError:
                    pass  # the asker was timed out and killed: nobody waits for this one


def ask(sock: str, timeout: float, args: Sequence[str]) -> int:
    """cosmic-ray's test command: one run by the fork server; its exit code is the verdict."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(sock)
        with conn.makefile("rwb") as stream:
            stream.write(json.dumps({"args": list(args), "timeout": timeout}).encode() + b"\n")
            stream.flush()
            reply = json.loads(stream.readline())
    sys.stdout.write(reply["tail"])
    return int(reply["code"])


@dataclass(frozen=True)
class Mutant:
    job_id: str
    path: str  # relative to the checkout
    operator: str
    line: int
    before: str  # the changed source lines, stripped and joined
    after: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.path, self.operator, self.before, self.after)


KILLED, TIMEOUT, SURVIVED, VOID = "killed", "timeout", "survived", "void"  # a mutant's verdict
UNVIABLE = "unviable"  # a Rust mutant that does not build: killed by the compiler


@dataclass
class Measurement:
    """A module's sample as last measured, each mutant with its verdict (TIMEOUT: killed by
    the clock). Kept in STORE, so the table keeps every module's latest measurement whichever
    checkout or run measured it; equivalents are applied when it is scored."""

    module: str
    population: int = 0
    run: dict[str, str] = field(default_factory=dict)  # seed, date, load, command, ...
    note: str = ""  # why there is no score (interrupted, tests failing unmutated)
    mutants: list[tuple[str, Mutant]] = field(default_factory=list)

    def to_json(self) -> str:
        """One line per mutant: a module's run changes its own lines of the file only."""
        head = json.dumps({"population": self.population, "note": self.note, "run": self.run},
                          sort_keys=True)
        rows = sorted(json.dumps([v, m.path, m.line, m.operator, m.before, m.after])
                      for v, m in self.mutants)
        return head[:-1] + ', "mutants": [' + ",".join(f"\n  {r}" for r in rows) + "]}"

    @classmethod
    def from_dict(cls, module: str, d: dict[str, Any]) -> Measurement:
        return cls(module, int(d["population"]), dict(d["run"]), str(d["note"]),
                   [(v, Mutant("", path, op, line, before, after))
                    for v, path, line, op, before, after in d["mutants"]])


def newer(a: Measurement | None, b: Measurement | None) -> Measurement | None:
    """The later of two measurements of a module (by the date its run started)."""
    if a is None or b is None:
        return a or b
    return a if a.run.get("date", "") >= b.run.get("date", "") else b


def load_store() -> dict[str, Measurement]:
    data = json.loads(STORE.read_text(encoding="utf-8")) if STORE.exists() else {}
    return {name: Measurement.from_dict(name, d) for name, d in data.items()}


def save_store(measured: dict[str, Measurement]) -> None:
    names = [m.name for m in MODULES if m.name in measured]
    body = ",\n".join(f"{json.dumps(n)}: {measured[n].to_json()}" for n in names)
    STORE.write_text("{\n" + body + "\n}\n", encoding="utf-8")


@dataclass
class Score:
    module: Module
    population: int = 0
    killed: list[Mutant] = field(default_factory=list)
    timed_out: list[Mutant] = field(default_factory=list)  # of the killed: by the clock
    unviable: list[Mutant] = field(default_factory=list)  # of the killed: by the compiler
    survived: list[Mutant] = field(default_factory=list)
    equivalent: list[Mutant] = field(default_factory=list)
    void: int = 0  # no mutation possible, or the worker failed: not a verdict on the tests
    equivalent_killed: list[Mutant] = field(default_factory=list)  # listed, yet a test noticed
    note: str = ""  # why there is no score
    run: dict[str, str] = field(default_factory=dict)  # how and when it was measured: RUN_KEYS

    @property
    def sampled(self) -> int:
        return len(self.killed) + len(self.survived) + len(self.equivalent) + self.void

    @property
    def rate(self) -> float | None:
        decided = len(self.killed) + len(self.survived)
        return len(self.killed) / decided if decided else None

    @property
    def met(self) -> bool:
        return self.rate is not None and self.rate >= TARGET and not self.note


def score(module: Module, measured: Measurement | None,
          listed: dict[tuple[str, str, str, str], str]) -> Score:
    """The module's score from its measurement, the equivalents listed now set aside."""
    if measured is None:
        return Score(module, note="not measured")
    s = Score(module, population=measured.population, note=measured.note, run=measured.run)
    for verdict, m in measured.mutants:
        killed = verdict in (KILLED, TIMEOUT, UNVIABLE)
        if verdict == VOID:
            s.void += 1
        elif m.key in listed:
            s.equivalent.append(m)
            if killed:
                s.equivalent_killed.append(m)
        elif killed:
            s.killed.append(m)
            if verdict == TIMEOUT:
                s.timed_out.append(m)
            elif verdict == UNVIABLE:
                s.unviable.append(m)
        else:
            s.survived.append(m)
    return s


def copy_tree(dest: Path) -> None:
    """The checkout as it is now (tracked and untracked, not ignored) plus the compiled core."""
    if dest.exists():
        shutil.rmtree(dest)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    cores = list((ROOT / "otel_agentcov").glob("_core*.so"))
    if not cores:
        raise SystemExit("mutation: no compiled core in otel_agentcov/; run `make` first")
    for core in cores:
        shutil.copy2(core, dest / "otel_agentcov" / core.name)


def digests(tree: Path, module: Module) -> dict[str, str]:
    """The module's files in `tree` by content: what `--again` checks its sample still fits."""
    import hashlib

    return {rel: hashlib.sha256((tree / rel).read_bytes()).hexdigest()
            for rel in files_of(tree, module)}


def files_of(tree: Path, module: Module) -> dict[str, tuple[str, ...] | None]:
    """Each file of the module (relative path) -> the functions to keep, or None (all)."""
    files: dict[str, tuple[str, ...] | None] = {}
    for entry in module.paths:
        path, _, functions = entry.partition("::")
        suffix = "*.rs" if module.rust else "*.py"
        found = sorted((tree / path).rglob(suffix)) if (tree / path).is_dir() else [tree / path]
        for f in found:
            if str(f.relative_to(tree)) not in GENERATED:
                files[str(f.relative_to(tree))] = tuple(functions.split(",")) if functions else None
    return files


Pos = tuple[int, int]  # (line from 1, column from 0), as cosmic-ray places a mutant


def excluded(source: str, functions: Sequence[str] | None) -> Callable[[Pos], bool]:
    """Where mutants say nothing about behaviour: annotations (never evaluated under
    `from __future__ import annotations`) and, when functions are kept, all but those."""
    tree = ast.parse(source)
    spans: list[tuple[Pos, Pos]] = [
        ((a.lineno, a.col_offset), (a.end_lineno or a.lineno, a.end_col_offset or 0))
        for n in ast.walk(tree)
        for a in (getattr(n, "annotation", None), getattr(n, "returns", None))
        if isinstance(a, ast.expr)
    ]
    keep: set[int] | None = None
    if functions is not None:
        keep = set()
        for function in functions:
            lines = [range(n.lineno, (n.end_lineno or n.lineno) + 1) for n in ast.walk(tree)
                     if isinstance(n, ast.FunctionDef) and n.name == function]
            if not lines:
                raise SystemExit(f"mutation: no function {function!r} to keep")
            keep.update(*lines)
    return lambda pos: (keep is not None and pos[0] not in keep) or any(
        lo <= pos < hi for lo, hi in spans)


def test_command(tree: Path, sock: str, module: Module, timeout: float) -> list[str]:
    """One run of the module's tests through the fork server (`--ask`), by the copy's own
    driver: editing this file during a run changes nothing of it."""
    return [sys.executable, str(tree / "benchmarks" / "mutation.py"), "--ask", sock,
            "--timeout", f"{timeout:.0f}", "--", *PYTEST, *module.tests]


def config(files: Sequence[str], command: Sequence[str], timeout: float) -> str:
    return (
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(list(files))}\n"
        f"timeout = {timeout:.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(shlex.join(command))}\n\n"
        "[cosmic-ray.distributor]\nname = \"local\"\n"
    )


def cosmic_ray(*args: str, cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run([str(Path(sys.executable).parent / "cosmic-ray"), *args], cwd=cwd,
                          env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"mutation: cosmic-ray {args[0]} failed:\n{proc.stderr[-2000:]}")
    return proc.stdout


def sample(session: Path, files: dict[str, tuple[str, ...] | None], tree: Path, n: int,
           seed: int) -> int:
    """Mark every mutant outside the seeded sample as skipped (cosmic-ray's filter interface);
    returns how many mutants the module has in all."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    outside = {rel: excluded((tree / rel).read_text(encoding="utf-8"), fn)
               for rel, fn in files.items()}
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = sorted(db.work_items, key=lambda w: (
            str(w.mutations[0].module_path), w.mutations[0].operator_name,
            w.mutations[0].occurrence))
        population = [w for w in items if not outside[str(w.mutations[0].module_path)](
            tuple(w.mutations[0].start_pos))]
        chosen = {w.job_id for w in random.Random(seed).sample(population, min(n, len(population)))}
        db.set_multiple_results([w.job_id for w in items if w.job_id not in chosen],
                                WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
    return len(population)


def mutant(item: dict[str, object], result: dict[str, object]) -> Mutant:
    spec = item["mutations"][0]  # type: ignore[index]
    diff = str(result.get("diff") or "").splitlines()
    before = " | ".join(d[1:].strip() for d in diff if d[:1] == "-" and d[:3] != "---")
    after = " | ".join(d[1:].strip() for d in diff if d[:1] == "+" and d[:3] != "+++")
    return Mutant(str(item["job_id"]), str(spec["module_path"]), str(spec["operator_name"]),
                  int(spec["start_pos"][0]), before, after)


def equivalents() -> dict[tuple[str, str, str, str], str]:
    entries = yaml.safe_load(EQUIVALENTS.read_text(encoding="utf-8")) or []
    listed: dict[tuple[str, str, str, str], str] = {}
    for e in entries:
        if not str(e.get("reason", "")).strip():
            raise SystemExit(f"{EQUIVALENTS.name}: an entry without a reason: {e}")
        listed[(e["module"], e["operator"], e["before"], e["after"])] = e["reason"]
    return listed


def measure(module: Module, n: int, seed: int, command: str, again: bool = False
            ) -> Measurement:
    """One module in a copy of its own, with a fork server of its own (modules may run at once).
    `again`: the last session's sample kept, its mutants not yet killed run against the
    checkout's tests as they are now."""
    work = workdir(module)
    tree, sock = work / "tree", work / "forks.sock"
    if again:
        if not (work / "population").exists():
            raise SystemExit(f"mutation: {module.name}: no session to run again")
        sources = work / "sources.json"  # as sampled: an interrupted run leaves the tree mutated
        before = json.loads(sources.read_text()) if sources.exists() else digests(tree, module)
        copy_tree(tree)
        if digests(tree, module) != before:
            raise SystemExit(f"mutation: {module.name}: its source changed since the session "
                             "(the mutants' places with it): run it afresh")
    else:
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        copy_tree(tree)
        (work / "sources.json").write_text(json.dumps(digests(tree, module)))
    sock.unlink(missing_ok=True)
    server = subprocess.Popen([sys.executable, str(tree / "benchmarks" / "mutation.py"), "--serve",
                               str(sock), str(tree)],
                              env={**os.environ, "PYTHONPATH": str(tree),
                                   "PYTHONDONTWRITEBYTECODE": "1"})
    try:
        while not sock.exists():
            if server.poll() is not None:
                raise SystemExit("mutation: the fork server did not start")
            time.sleep(0.2)
        if module.rust:
            return run_rust(module, work, str(sock), n, seed, command, again)
        return run_module(module, work, str(sock), n, seed, command, again)
    finally:
        server.kill()
        server.wait()


def run_module(module: Module, work: Path, sock: str, n: int, seed: int, command: str,
               again: bool) -> Measurement:
    tree = work / "tree"
    env = {**os.environ, "PYTHONPATH": str(tree)}  # subprocesses of the tests import the copy too
    files = files_of(tree, module)
    started = time.perf_counter()
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    timeout = _baseline(tree, sock, module, env, started)
    if timeout is None:  # no score from failing tests: this module is NOT MET
        return Measurement(module.name, note="its tests fail unmutated",
                           run={"date": date, "command": command})
    cfg, session = work / "cosmic-ray.toml", work / "session.sqlite"
    # the fork's own alarm fires first, so a looping mutant never delays the next one's run
    tests = test_command(tree, sock, module, timeout)
    cfg.write_text(config(list(files), tests, 1.5 * timeout + 30), encoding="utf-8")
    measured = {"seed": str(seed), "per_module": str(n)}
    if again:
        measured.update(reopen(session, work))
    else:
        cosmic_ray("init", str(cfg), str(session), "--force", cwd=tree, env=env)
        (work / "population").write_text(str(sample(session, files, tree, n, seed)))
    measured.update({"date": date, "load": f"{os.getloadavg()[0]:.1f}",
                     "cores": str(os.cpu_count()), "command": command,
                     "timeout": f"{timeout:.0f}"})
    # written before the run too: an interrupted one is still the module's latest measurement
    (work / "run.json").write_text(json.dumps(measured), encoding="utf-8")
    started = time.perf_counter()
    cosmic_ray("exec", str(cfg), str(session), cwd=tree, env=env)
    return _finished(work, module, measured, started)


def _finished(work: Path, module: Module, measured: dict[str, str], started: float
              ) -> Measurement:
    """The run's time kept with its seed and size, and the module's verdicts, counted aloud."""
    measured["seconds"] = f"{time.perf_counter() - started:.0f}"
    (work / "run.json").write_text(json.dumps(measured), encoding="utf-8")
    result = collect(work, module.name)
    assert result is not None  # the session was just written
    verdicts = [v for v, _ in result.mutants]
    print(f"mutation: {module.name}: {verdicts.count(KILLED)} killed, "
          f"{verdicts.count(UNVIABLE)} unviable (killed by the compiler), "
          f"{verdicts.count(TIMEOUT)} timed out, {verdicts.count(SURVIVED)} survived, "
          f"{verdicts.count(VOID)} void", flush=True)
    return result


def _baseline(tree: Path, sock: str, module: Module, env: dict[str, str], started: float
              ) -> float | None:
    """The module's tests on the unmutated copy: a mutant's timeout (four times their time, a
    minute at least), or None (printed) where they fail, so the module has no score."""
    baseline = subprocess.run(test_command(tree, sock, module, 3600), cwd=tree, env=env,
                              capture_output=True, text=True, check=False)
    if baseline.returncode != 0:
        print(f"mutation: {module.name}: the tests fail unmutated:\n"
              f"{baseline.stdout[-3000:]}{baseline.stderr[-2000:]}", flush=True)
        return None
    took = time.perf_counter() - started
    timeout = max(60.0, 4 * took)
    print(f"mutation: {module.name}: tests pass unmutated in {took:.0f} s; mutant timeout "
          f"{timeout:.0f} s", flush=True)
    return timeout


# --- the Rust core's modules: cargo-mutants lists, this samples, applies, builds and judges ---

RUST_SESSION = "rust.json"  # a Rust module's sample and each mutant's [verdict, output's tail]


def cargo_mutants(tree: Path, files: Sequence[str]) -> list[dict[str, Any]]:
    """cargo-mutants' mutants of the crate's `files` (relative to the checkout), listed with their
    spans and diffs; nothing is built or run by it."""
    if not CARGO_MUTANTS.exists():
        raise SystemExit(f"mutation: no cargo-mutants at {CARGO_MUTANTS.relative_to(ROOT)}; "
                         "`make mutation` installs it (cargo install cargo-mutants --version "
                         f"{CARGO_MUTANTS_VERSION} --locked --root build/cargo-mutants)")
    version = subprocess.run([str(CARGO_MUTANTS), "mutants", "--version"], capture_output=True,
                             text=True, check=True).stdout.split()
    if version[-1:] != [CARGO_MUTANTS_VERSION]:  # another version lists other mutants
        raise SystemExit(f"mutation: {' '.join(version)} in build/cargo-mutants, not "
                         f"{CARGO_MUTANTS_VERSION}: remove it and run `make mutation`")
    args = [str(CARGO_MUTANTS), "mutants", "--list", "--json", "--diff", "--dir", str(tree / CRATE)]
    for rel in files:
        args += ["--file", str(Path(rel).relative_to(CRATE))]
    listed: list[dict[str, Any]] = json.loads(subprocess.run(
        args, capture_output=True, text=True, check=True).stdout)
    return listed


def glue(lines: Sequence[str], item: dict[str, Any]) -> bool:
    """A mutant of the PyO3 glue: a #[pyfunction]'s or a module's `register` body replaced whole
    (what they say is the functions they call, mutated there). Operators inside a #[pyfunction]
    are code like any other and stay. Also left out: a body replaced by `PyResult::...`, which
    cargo-mutants writes for PyO3's alias of Result it does not know (`PyResult::new()`,
    `PyResult::from(None)`): no such value builds (the first run: 11 of 11 in its sample), so
    they would only pad the score with kills by the compiler."""
    function = item.get("function")
    if item["genre"] != "FnValue" or not function:
        return False
    if str(item["replacement"]).startswith("PyResult::"):
        return True
    head = lines[function["span"]["start"]["line"] - 1:item["span"]["start"]["line"] - 1]
    return any(line.strip().startswith(("#[pyfunction", "#[pymodule")) or "PyModule>" in line
               for line in head)


def rust_population(tree: Path, items: Sequence[dict[str, Any]],
                    files: dict[str, tuple[str, ...] | None]) -> list[dict[str, Any]]:
    """The module's mutants in a stable order (what the seeded sample is drawn from): those of
    its files (of the kept functions, when named), the glue's left out."""
    lines: dict[str, list[str]] = {}
    kept = []
    for item in items:
        rel = f"{CRATE}/{item['file']}"
        if rel not in files:
            continue
        function, kept_functions = (item.get("function") or {}).get("function_name"), files[rel]
        if kept_functions is not None and function not in kept_functions:
            continue
        if rel not in lines:
            lines[rel] = (tree / rel).read_text(encoding="utf-8").splitlines()
        if not glue(lines[rel], item):
            kept.append(item)
    return sorted(kept, key=lambda i: (i["file"], i["span"]["start"]["line"],
                                       i["span"]["start"]["column"], i["name"]))


def _changed(diff: Iterator[str] | Sequence[str]) -> tuple[list[str], list[str]]:
    """A unified diff's removed and added lines, stripped, cargo-mutants' mark taken out."""
    lines = [d.replace(MARK, "") for d in diff]
    return ([d[1:].strip() for d in lines if d[:1] == "-" and d[:3] != "---"],
            [d[1:].strip() for d in lines if d[:1] == "+" and d[:3] != "+++"])


def patched(source: str, diff: str) -> str:
    """`source` with a unified diff's hunks applied (cargo-mutants' mark taken out); ValueError
    when a hunk's old lines are not the source's there."""
    lines = source.splitlines()
    out: list[str] = []
    at = 0  # lines of `source` consumed
    hunks = re.split(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@.*$", diff.replace(MARK, ""),
                     flags=re.M)
    for start, body in zip(hunks[1::2], hunks[2::2], strict=True):
        old = [d[1:] for d in body.strip("\n").split("\n") if d[:1] in (" ", "-")]
        first = max(int(start) - 1, 0) if old else int(start)
        if first < at or lines[first:first + len(old)] != old:
            raise ValueError("the diff does not fit the source")
        out += lines[at:first] + [d[1:] for d in body.strip("\n").split("\n") if d[:1] in " +"]
        at = first + len(old)
    return "\n".join(out + lines[at:]) + ("\n" if source.endswith("\n") else "")


def apply(source: str, item: dict[str, Any]) -> str:
    """`source` with the mutant's span (lines from 1, columns from 1 in characters, the end
    exclusive) replaced by its replacement; checked against cargo-mutants' own diff, so a span
    read otherwise than cargo-mutants meant is never judged (ValueError: a void mutant)."""
    lines = source.splitlines(keepends=True)

    def at(pos: dict[str, int]) -> int:
        if not 1 <= pos["line"] <= len(lines) or pos["column"] < 1:
            raise ValueError(f"{item['name']}: no such place in the file")
        return sum(len(line) for line in lines[:pos["line"] - 1]) + pos["column"] - 1

    span = item["span"]
    mutated = source[:at(span["start"])] + str(item["replacement"]) + source[at(span["end"]):]
    try:
        theirs = patched(source, str(item.get("diff") or ""))
    except ValueError as e:
        raise ValueError(f"{item['name']}: {e}") from e
    if theirs != mutated:
        raise ValueError(f"{item['name']}: the span does not give cargo-mutants' diff")
    return mutated


def rust_mutant(item: dict[str, Any]) -> Mutant:
    """A listed mutant as the store and the equivalents name it: a function's body replaced whole
    by the function and the value, any other by the lines before and after."""
    if item["genre"] == "FnValue" and item.get("function"):
        function = item["function"]
        before = f"fn {function['function_name']} {function.get('return_type', '')}".strip()
        after = str(item["replacement"])
    else:
        removed, added = _changed(str(item.get("diff") or "").splitlines())
        before, after = " | ".join(removed), " | ".join(added)
    return Mutant(str(item["name"]), f"{CRATE}/{item['file']}", f"cargo-mutants/{item['genre']}",
                  int(item["span"]["start"]["line"]), before, after)


def rust_verdict(built: bool, code: int | None, output: str) -> str:
    """UNVIABLE when the mutant does not build, SURVIVED when its tests pass, else KILLED or,
    when the clock ended them (code None: the asker was stopped), TIMEOUT."""
    if not built:
        return UNVIABLE
    if code == 0:
        return SURVIVED
    return verdict({"worker_outcome": "normal", "test_outcome": "killed",
                    "output": "timeout" if code is None else output})


def build_core(tree: Path, target: Path) -> tuple[bool, str]:
    """`cargo build --release` of the copy's crate, as maturin builds it (the extension-module
    feature), into a target directory kept warm between runs."""
    proc = subprocess.run(
        ["cargo", "build", "--release", "--lib", "--locked", "--message-format", "short",
         "--manifest-path", str(tree / CRATE / "Cargo.toml"), "--features",
         "pyo3/extension-module"],
        env={**os.environ, **CARGO_ENV, "CARGO_TARGET_DIR": str(target),
             "PYO3_PYTHON": sys.executable},
        capture_output=True, text=True, check=False)
    return proc.returncode == 0, proc.stderr[-3000:]


def install_core(tree: Path, target: Path) -> None:
    """The built library as the copy's compiled core, replaced by a rename: a fresh inode, so
    the next forked test run loads it and no running one sees it change."""
    built = target / "release" / "lib_core.so"
    for core in (tree / "otel_agentcov").glob("_core*.so"):
        fresh = core.with_name(core.name + ".new")
        shutil.copy2(built, fresh)
        os.replace(fresh, core)


def judge(item: dict[str, Any], tree: Path, target: Path, tests: list[str], timeout: float,
          env: dict[str, str]) -> list[str]:
    """One mutant: applied to the copy's source, built, its core installed, the tests run; the
    source put back whatever happens. [verdict, the output's tail]."""
    path = tree / CRATE / item["file"]
    original = path.read_text(encoding="utf-8")
    try:
        mutated = apply(original, item)
    except ValueError as e:
        return [VOID, str(e)]
    path.write_text(mutated, encoding="utf-8")
    try:
        built, log = build_core(tree, target)
        if not built:
            return [rust_verdict(False, None, log), log[-1500:]]
        install_core(tree, target)
        try:
            proc = subprocess.run(tests, cwd=tree, env=env, capture_output=True, text=True,
                                  timeout=1.5 * timeout + 30, check=False)
        except subprocess.TimeoutExpired:
            return [rust_verdict(True, None, ""), "timeout"]
        output = proc.stdout + proc.stderr
        return [rust_verdict(True, proc.returncode, output), output[-1500:]]
    finally:
        path.write_text(original, encoding="utf-8")


def run_rust(module: Module, work: Path, sock: str, n: int, seed: int, command: str,
             again: bool) -> Measurement:
    """A Rust module: the unmutated core built and its tests timed (the mutants' timeout, as for
    the Python), then each sampled mutant judged in turn, the session saved after each (an
    interrupted run keeps its verdicts; `again` runs what was not killed)."""
    tree = work / "tree"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    target = BUILD / "cargo" / work.name
    files = files_of(tree, module)
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    session_path = work / RUST_SESSION
    if again:
        session = json.loads(session_path.read_text(encoding="utf-8"))
        session["verdicts"] = {k: v for k, v in session["verdicts"].items()
                               if v[0] in (KILLED, UNVIABLE)}
    else:
        population = rust_population(tree, cargo_mutants(tree, list(files)), files)
        chosen = random.Random(seed).sample(population, min(n, len(population)))
        session = {"population": len(population), "sample": chosen, "verdicts": {}}
    # the copy keeps the checkout's modification times, older than the warm target's last build
    # (a mutant's, put back since): cargo would call that build fresh and keep the mutant's core
    now = time.time()
    for source in (tree / CRATE).rglob("*.rs"):
        os.utime(source, (now, now))
    started = time.perf_counter()
    built, log = build_core(tree, target)
    if not built:
        print(f"mutation: {module.name}: the core does not build unmutated:\n{log}", flush=True)
        return Measurement(module.name, note="its core does not build unmutated",
                           run={"date": date, "command": command})
    install_core(tree, target)
    print(f"mutation: {module.name}: the core built unmutated in "
          f"{time.perf_counter() - started:.0f} s", flush=True)
    timeout = _baseline(tree, sock, module, env, time.perf_counter())
    if timeout is None:
        return Measurement(module.name, note="its tests fail unmutated",
                           run={"date": date, "command": command})
    measured = {"seed": str(seed), "per_module": str(n)}
    if again and (work / "run.json").exists():
        kept = json.loads((work / "run.json").read_text(encoding="utf-8"))
        measured.update({k: kept[k] for k in ("seed", "per_module") if k in kept})
    measured.update({"date": date, "load": f"{os.getloadavg()[0]:.1f}",
                     "cores": str(os.cpu_count()), "command": command,
                     "timeout": f"{timeout:.0f}"})
    (work / "population").write_text(str(session["population"]))
    session_path.write_text(json.dumps(session), encoding="utf-8")
    (work / "run.json").write_text(json.dumps(measured), encoding="utf-8")
    tests = test_command(tree, sock, module, timeout)
    started = time.perf_counter()
    for i, item in enumerate(session["sample"], 1):
        if item["name"] in session["verdicts"]:
            continue
        begun = time.perf_counter()
        session["verdicts"][item["name"]] = judge(item, tree, target, tests, timeout, env)
        session_path.write_text(json.dumps(session), encoding="utf-8")
        print(f"mutation: {module.name}: {i}/{len(session['sample'])} "
              f"{session['verdicts'][item['name']][0]} in {time.perf_counter() - begun:.0f} s: "
              f"{item['name']}", flush=True)
    return _finished(work, module, measured, started)


def reopen(session: Path, work: Path) -> dict[str, str]:
    """Forget every verdict of the session but the kills (and the skips outside the sample), so
    `cosmic-ray exec` runs the rest again, kills by the clock too (load may have faked them);
    the sample's seed and size as the last run recorded them (none when it was interrupted:
    the arguments' are taken)."""
    import sqlite3

    with sqlite3.connect(session) as db:
        db.create_function("timed_out", 1, lambda out: verdict({
            "worker_outcome": "normal", "test_outcome": "killed", "output": out}) == TIMEOUT)
        db.execute("DELETE FROM work_results WHERE worker_outcome != 'SKIPPED' AND "
                   "(test_outcome IS NULL OR test_outcome != 'KILLED' OR timed_out(output))")
    first = work / "run.json"
    kept = json.loads(first.read_text(encoding="utf-8")) if first.exists() else {}
    return {k: kept[k] for k in ("seed", "per_module") if k in kept}


def workdir(module: Module) -> Path:
    return BUILD / re.sub(r"\W+", "_", module.name).strip("_")


def collect(work: Path, name: str) -> Measurement | None:
    """The module's measurement from its cosmic-ray session here (None: no session here)."""
    session = work / "session.sqlite"
    if not (work / "population").exists():
        return None
    measured = Measurement(name, population=int((work / "population").read_text()))
    if (work / "run.json").exists():
        measured.run = json.loads((work / "run.json").read_text(encoding="utf-8"))
    pending = 0
    if (work / RUST_SESSION).exists():  # a Rust module's: the sample and the verdicts so far
        rust = json.loads((work / RUST_SESSION).read_text(encoding="utf-8"))
        for item in rust["sample"]:
            found = rust["verdicts"].get(item["name"])
            if found is None:
                pending += 1
            else:
                measured.mutants.append((found[0], rust_mutant(item)))
        if pending:
            measured.note = f"interrupted: {pending} of the sample not run"
        return measured
    for line in cosmic_ray("dump", str(session), cwd=work, env=dict(os.environ)).splitlines():
        item, result = json.loads(line)
        if result is None:  # in the sample, never run: the run was interrupted
            pending += 1
            continue
        if result["worker_outcome"] == "skipped":
            continue
        measured.mutants.append((verdict(result), mutant(item, result)))
    if pending:  # a score of part of the sample is no score: NOT MET until `--again` ends it
        measured.note = f"interrupted: {pending} of the sample not run"
    return measured


def verdict(result: dict[str, Any]) -> str:
    """KILLED, TIMEOUT (cosmic-ray's own timeout writes "timeout"; the fork server's alarm
    TIMED_OUT; a fork killed before it wrote anything leaves no output), SURVIVED or VOID."""
    if result["worker_outcome"] != "normal":
        return VOID
    if result["test_outcome"] != "killed":
        return SURVIVED
    output = str(result.get("output") or "").strip()
    return TIMEOUT if output in ("", "timeout") or TIMED_OUT in output else KILLED


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.0f} %"


def table(scores: Sequence[Score], listed: dict[tuple[str, str, str, str], str]) -> str:
    """The score per module, each with the sample and the run that measured it (modules may come
    from different runs), then the survivors, the kills by the clock and the equivalents set
    aside with their reasons."""
    lines = [
        "Mutation score of the fail-safe core (`make mutation`: cosmic-ray for the Python, "
        "cargo-mutants for the Rust core's modules, a seeded sample per "
        f"module; score = killed / (sampled - equivalent - void), target >= {TARGET:.0%} per "
        "module; load = the 1-minute load average when the module's mutants started; "
        "timeouts = kills by the clock, the mutant's tests still running at 4x the module's "
        "unmutated run, at least 60 s; a Rust mutant that does not build counts as killed, "
        "listed as killed by the compiler).",
        "",
        "| module | mutants | sampled | equivalent | killed | timeouts | survived | void | score "
        "| status | seed | measured | load | seconds | run |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|",
    ]
    commands: list[str] = []
    for s in scores:
        run = s.run.get("command")
        if run is not None and run not in commands:
            commands.append(run)
        lines.append(
            f"| {s.module.name} | {s.population} | {s.sampled} | {len(s.equivalent)} | "
            f"{len(s.killed)} | {len(s.timed_out)} | {len(s.survived)} | {s.void} | "
            f"{_pct(s.rate)} | {'met' if s.met else 'NOT MET'}"
            f"{f' ({s.note})' if s.note else ''} | "
            f"{s.run.get('seed', '')} | {s.run.get('date', '')} | {s.run.get('load', '')} | "
            f"{s.run.get('seconds', '')} | {commands.index(run) + 1 if run else ''} |")
    cores = sorted({s.run["cores"] for s in scores if "cores" in s.run})
    lines += ["", f"Runs ({'/'.join(cores) or '?'} cores, `nice -n 10`):"]
    lines += [f"{i}. `{c}`" for i, c in enumerate(commands, 1)]
    for title, found in (("Survivors", [m for s in scores for m in s.survived]),
                         ("Killed by the clock", [m for s in scores for m in s.timed_out]),
                         ("Killed by the compiler (cargo-mutants: unviable)",
                          [m for s in scores for m in s.unviable])):
        if found:
            lines += ["", f"{title}:"]
            lines += [_listed(m) for m in found]
    equivalent = [m for s in scores for m in s.equivalent]
    if equivalent:
        lines += ["", f"Equivalent, set aside ({EQUIVALENTS.relative_to(ROOT)}):"]
        lines += [f"{_listed(m)}: {' '.join(listed[m.key].split())}" for m in equivalent]
    return "\n".join(lines)


def _listed(m: Mutant) -> str:
    return f"- {m.path}:{m.line} {m.operator}: `{m.before}` -> `{m.after}`"


def write_results(text: str) -> None:
    """Replace (or append) the marked mutation block of RESULTS.md."""
    block = f"{BEGIN}\n## Mutation score\n\n{text}\n{END}\n"
    current = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    RESULTS.write_text(carry_over(current, block), encoding="utf-8")


def carry_over(document: str, block: str) -> str:
    """`document` with its mutation block replaced by `block` (appended when it has none)."""
    head, found, rest = document.partition(BEGIN)
    if not found:
        return document.rstrip("\n") + "\n\n" + block
    return head + block + rest.partition(END)[2].lstrip("\n")


def mutation_block(document: str) -> str:
    """The mutation block of a RESULTS.md, or "" (what `make bench` keeps when it rewrites it)."""
    _, found, rest = document.partition(BEGIN)
    return f"{BEGIN}{rest.partition(END)[0]}{END}\n" if found else ""


def _modules(only: Sequence[str] | None) -> Iterator[Module]:
    for m in MODULES:
        if not only or m.name in only:
            yield m


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-module", type=int, default=PER_MODULE,
                        help=f"mutants sampled per module (default {PER_MODULE})")
    parser.add_argument("--seed", type=int, default=SEED, help=f"sample seed (default {SEED})")
    parser.add_argument("--only", action="append", choices=[m.name for m in MODULES],
                        help="measure (or report) this module only; repeat for more. The table "
                             "keeps every other module's latest measurement")
    parser.add_argument("--no-write", action="store_true",
                        help=f"update neither {STORE.name} nor RESULTS.md")
    parser.add_argument("--again", action="store_true",
                        help="the last run's sample again: its mutants not killed yet (survived, "
                             "void, never run, or killed by the clock) against the tests as "
                             "they are now")
    parser.add_argument("--report", action="store_true",
                        help=f"no run: the table again from {STORE.name}, each module's "
                             "session in build/mutation/ taken instead when it is newer")
    parser.add_argument("--jobs", type=int, default=1,
                        help="modules measured at once, each in its own copy (default 1)")
    parser.add_argument("--serve", nargs=2, metavar=("SOCKET", "TREE"), help=argparse.SUPPRESS)
    parser.add_argument("--ask", metavar="SOCKET", help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=float, default=3600, help=argparse.SUPPRESS)
    parser.add_argument("pytest_args", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(*args.serve)
        return 0
    if args.ask:
        return ask(args.ask, args.timeout, args.pytest_args)
    listed = equivalents()
    command = shlex.join(["benchmarks/mutation.py", *(sys.argv[1:] if argv is None else argv)])
    store = load_store()
    chosen = list(_modules(args.only))
    if args.report:  # a session here replaces the stored measurement it is newer than
        fresh = {m.name: newer(collect(workdir(m), m.name), store.get(m.name)) for m in chosen}
    else:
        with ThreadPoolExecutor(args.jobs) as pool:
            fresh = dict(zip([m.name for m in chosen], pool.map(
                lambda m: measure(m, args.per_module, args.seed, command, args.again),
                chosen), strict=True))
    latest = {**store, **{k: v for k, v in fresh.items() if v is not None}}
    scores = [score(m, latest.get(m.name), listed) for m in MODULES]
    for s in scores:
        for m in s.equivalent_killed:
            print(f"listed as equivalent but killed (remove it from {EQUIVALENTS.name}): "
                  f"{m.path}:{m.line} {m.operator} `{m.before}` -> `{m.after}`")
    text = table(scores, listed)
    print("\n" + text)
    if not args.no_write:
        save_store(latest)
        write_results(text)
    return 0 if all(s.met for s in scores if s.module in chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
