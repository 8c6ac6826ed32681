"""pytest plugin (entry point `pytest11`): agent coverage of a test suite, like pytest-cov.

`pytest --agentcov[=agentcov.yaml]` attaches AgentCoverageProcessor to the global SDK
TracerProvider (installing one when the global is not an SDK provider), opens one span per test
(`test.case.name` = node id) so every agent run knows the test that made it, prints the reports
of `--agentcov-report` (pytest_reports) and the gate table in the terminal summary, and fails the
session (exit 1) when the gate fails or is inconclusive, when no agent run was seen (unless
`--agentcov-allow-empty`), or when coverage is below `--agentcov-fail-under`. Defaults for the
spec and the reports can live under `[tool.agentcov]` in pyproject.toml.

Under pytest-xdist each worker sends its state and span counters to the controller (as pytest-cov
does), which merges them exactly; a worker whose data is missing fails the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from . import gate, offline, settings
from .cli import _percent  # the same check as `agentcov coverage --fail-under`
from .engine import EngineCounters
from .processor import AgentCoverageProcessor
from .pytest_reports import (
    DEFAULT_PATHS,
    FILE_FORMATS,
    ReportOptionError,
    ReportTarget,
    parse_targets,
    terminal_table,
    write_target,
)
from .snapshot.schema import Report
from .spec import CoverageSpec, SpecError
from .state import CoverageState, StateError
from .stats.verdicts import EXIT_PASS, no_runs_message

WORKER_KEY = "agentcov"  # the key of a worker's payload in xdist's `workeroutput`
# what the data file says from a session's start until its final write replaces it
UNFINISHED = ("the pytest session writing this file never finished (it crashed or was killed "
              "before its final write, or is still running): its agent runs are missing")

# test.case.result.status (OTel test semantic conventions: pass | fail) from a test's reports;
# a skipped test has none
_STATUS = {"passed": "pass", "failed": "fail", "skipped": ""}

# the statistical marker is a plugin of its own, active with or without --agentcov
pytest_plugins = ["otel_agentcov.pytest_marker", "otel_agentcov.pytest_faults"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentcov", "agent behaviour coverage (otel_agentcov)")
    group.addoption(
        "--agentcov", nargs="?", const="", default=None, metavar="SPEC", dest="agentcov",
        help="measure agent coverage from the suite's OpenTelemetry spans; optional spec file",
    )
    group.addoption(
        "--agentcov-report", action="append", default=[], metavar="FORMAT:PATH",
        dest="agentcov_report",
        help="term (default), term-missing, or FORMAT[:PATH] with FORMAT one of "
        f"{'|'.join(FILE_FORMATS)} (html:DIR; without a path: "
        f"{', '.join(str(p) for p in DEFAULT_PATHS.values())}); repeatable",
    )
    group.addoption(
        "--agentcov-fail-under", type=_percent, default=None, metavar="N",
        dest="agentcov_fail_under",
        help="fail when the lowest agent's overall coverage is below N percent",
    )
    group.addoption(
        "--agentcov-allow-inconclusive", action="store_true", dest="agentcov_allow_inconclusive",
        help="let INCONCLUSIVE pass-rate verdicts pass the gate",
    )
    group.addoption(
        "--agentcov-allow-empty", action="store_true", dest="agentcov_allow_empty",
        help="accept a session in which no agent ran (by default that fails it)",
    )
    group.addoption(
        "--agentcov-no-inference", action="store_true", dest="agentcov_no_inference",
        help="classify spans only by convention tables, as the spec's `inference: off`",
    )
    group.addoption(
        "--agentcov-data-file", default=None, metavar="PATH", dest="agentcov_data_file",
        help="where to save the session's merged state, input for `agentcov coverage|gate|"
        f"compare|merge` (default {settings.DATA_FILE} in the rootdir; empty: none)",
    )


def _pyproject(config: pytest.Config) -> settings.Settings:
    """`[tool.agentcov]` of the project's pyproject.toml (the keys are in `settings`)."""
    try:
        return settings.load(config.rootpath / "pyproject.toml")
    except settings.SettingsError as exc:
        raise pytest.UsageError(str(exc)) from None


def _warn_if_unused(config: pytest.Config) -> None:
    """An --agentcov-* option without --agentcov does nothing: say so rather than ignore it."""
    given = [
        name for name, dest, default in (
            ("--agentcov-report", "agentcov_report", []),
            ("--agentcov-fail-under", "agentcov_fail_under", None),
            ("--agentcov-allow-inconclusive", "agentcov_allow_inconclusive", False),
            ("--agentcov-allow-empty", "agentcov_allow_empty", False),
            ("--agentcov-no-inference", "agentcov_no_inference", False),
            ("--agentcov-data-file", "agentcov_data_file", None),
        )
        if config.getoption(dest) != default
    ]
    if given:
        config.issue_config_time_warning(
            pytest.PytestConfigWarning(
                f"{', '.join(given)} given without --agentcov: agent coverage is not measured"
            ),
            stacklevel=2,
        )


def _not_a_test_path(value: str) -> None:
    """`pytest --agentcov tests/test_x.py` hands the test path to --agentcov (its spec is
    optional, as pytest-cov's --cov source is): refuse it in one line rather than read a
    Python file as YAML and run the whole suite."""
    path = value.split("::", 1)[0]
    if path.endswith(".py") or "::" in value or Path(path).is_dir():
        raise pytest.UsageError(
            f"--agentcov: {value} is a test path, not a spec file: --agentcov takes an optional "
            f"spec, so it took the path; write --agentcov=SPEC (--agentcov= for none) or put "
            f"the test paths first (pytest {value} --agentcov)")


def pytest_configure(config: pytest.Config) -> None:
    spec_path = config.getoption("agentcov")
    if spec_path is None:
        _warn_if_unused(config)
        return
    if spec_path:
        _not_a_test_path(spec_path)
    project = _pyproject(config)
    if not spec_path and project.spec is not None:  # relative to the project, not the cwd
        spec_path = str(project.spec)
    reports = config.getoption("agentcov_report") or list(project.report) or (
        ["term-missing"] if project.show_missing else [])
    fail_under = config.getoption("agentcov_fail_under")
    data_option = config.getoption("agentcov_data_file")
    data_path = (settings.data_file(project, config.rootpath) if data_option is None
                 else Path(data_option) if data_option else None)
    try:
        spec = CoverageSpec.from_yaml(spec_path) if spec_path else CoverageSpec.empty()
        if config.getoption("agentcov_no_inference"):
            spec = spec.without_inference()
        targets = parse_targets(reports)
    except (SpecError, ReportOptionError) as exc:
        raise pytest.UsageError(f"--agentcov: {exc}") from None
    config.pluginmanager.register(
        AgentCovSession(
            spec,
            targets,
            project.fail_under if fail_under is None else fail_under,
            config.getoption("agentcov_allow_inconclusive"),
            spec_path or None,
            config.getoption("agentcov_allow_empty"),
            data_path,
        ),
        "agentcov-session",
    )


def _worker_payload(processor: AgentCoverageProcessor) -> str:
    """What a worker sends: its state and span counters, as JSON text (execnet carries str)."""
    engine = processor.engine
    return json.dumps({"state": engine.state.to_dict(), "counters": engine.counted().to_dict()})


class AgentCovSession:
    """One processor for the session; the report and verdicts are computed once, at the end
    (on the controller under xdist, from every worker's merged data)."""

    def __init__(
        self,
        spec: CoverageSpec,
        targets: list[ReportTarget],
        fail_under: float | None,
        allow_inconclusive: bool,
        spec_path: str | None = None,
        allow_empty: bool = False,
        data_file: Path | None = None,
    ) -> None:
        self.spec = spec
        self.data_file = data_file
        self.spec_path = spec_path
        self.targets = targets
        self.fail_under = fail_under
        self.allow_inconclusive = allow_inconclusive
        self.allow_empty = allow_empty
        self.processor = AgentCoverageProcessor(spec)
        self.report: Report | None = None
        self.problems: list[str] = []
        self.table = ""
        self.written: list[tuple[str, Path]] = []
        self.tracer: trace.Tracer | None = None
        self.outcomes: dict[str, str] = {}  # node id -> test.case.result.status
        self.workers: dict[str, str | None] = {}  # xdist worker id -> its payload, None if none
        self.tests_by_worker: dict[str, set[str]] = {}  # xdist worker id -> tests it reported

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Controller: every worker started must report, or the session fails."""
        self.workers[node.gateway.id] = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """Controller: keep the payload of a worker that finished (a crashed one has none)."""
        payload = getattr(node, "workeroutput", {}).get(WORKER_KEY)
        self.workers[node.gateway.id] = payload if isinstance(payload, str) else None

    def _merge_workers(self) -> None:
        """Merge every worker's data; a worker whose data is missing fails the session and
        marks the data file incomplete, naming the tests whose runs are lost."""
        engine = self.processor.engine
        for worker, payload in sorted(self.workers.items()):
            try:
                if payload is None:
                    raise ValueError("sent no coverage data (it crashed or was stopped)")
                data = json.loads(payload)
                engine.merge(CoverageState.from_dict(data["state"]),
                             EngineCounters.from_dict(data["counters"], "counters"))
            except (ValueError, KeyError, TypeError, StateError) as exc:
                self.problems.append(
                    f"agentcov: worker {worker} {exc}; its agent runs are missing, so the "
                    "gate cannot pass"
                )
                tests = sorted(self.tests_by_worker.get(worker, ()))
                shown = ", ".join(tests[:3]) + (f" and {len(tests) - 3} more"
                                                if len(tests) > 3 else "")
                engine.state.mark_incomplete([
                    f"pytest-xdist worker {worker} {exc}: the agent runs of its "
                    f"{len(tests)} test{'' if len(tests) == 1 else 's'} are missing"
                    + (f" ({shown})" if tests else "")])

    def _begin_data_file(self, config: pytest.Config) -> None:
        """Controller: replace the data file by an empty one marked incomplete before any test
        runs, so a session that dies before its final write leaves a file the gate fails
        on, never the last session's (the final write replaces it atomically)."""
        if (self.data_file is None or config.option.collectonly
                or getattr(config, "workerinput", None) is not None):
            return
        placeholder = CoverageState()
        placeholder.mark_incomplete([UNFINISHED])
        try:
            self.data_file.parent.mkdir(parents=True, exist_ok=True)
            offline.save_data_file(placeholder, self.spec, self.data_file)
        except OSError:
            pass  # the final write tries again and reports the problem

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Attach after conftests had their say, before collection imports the agents."""
        provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):
            provider = TracerProvider()
            trace.set_tracer_provider(provider)
        provider.add_span_processor(self.processor)
        self.tracer = provider.get_tracer("otel_agentcov.pytest")
        self._begin_data_file(session.config)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        """One span per test (docs/semantics.md#test-contexts): agent spans inside the test
        inherit its context."""
        if self.tracer is None:
            yield
            return
        suite = item.nodeid.split("::", 1)[0]
        attributes = {"test.case.name": item.nodeid, "test.suite.name": suite}
        with self.tracer.start_as_current_span(item.nodeid, attributes=attributes) as span:
            yield
            status = self.outcomes.get(item.nodeid, "pass")
            if status:
                span.set_attribute("test.case.result.status", status)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        worker = getattr(getattr(getattr(report, "node", None), "gateway", None), "id", None)
        if isinstance(worker, str):  # controller: xdist tags each report with its worker
            self.tests_by_worker.setdefault(worker, set()).add(report.nodeid)
        status = _STATUS.get(report.outcome, "fail")
        if status != "pass" or report.nodeid not in self.outcomes:
            self.outcomes[report.nodeid] = status

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        outcome = yield
        self.processor.shutdown()  # drains the queue and assembles traces still open
        if session.config.option.collectonly:  # nothing ran: write and judge nothing
            return
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller judges
            workeroutput[WORKER_KEY] = _worker_payload(self.processor)
            return
        self._merge_workers()
        engine = self.processor.engine
        if outcome.excinfo is not None:  # interrupted: the tests not run made no runs
            engine.state.mark_incomplete([
                f"the pytest session was interrupted ({outcome.excinfo[0].__name__}): the "
                "tests it did not run made no agent runs"])
        report = self.report = offline.report(engine, contexts=True)
        if self.data_file is not None:
            try:
                self.data_file.parent.mkdir(parents=True, exist_ok=True)
                offline.save_data_file(engine.state, self.spec, self.data_file, engine.lost())
                self.written.append(("data file", self.data_file))
            except OSError as exc:
                self.problems.append(
                    f"agentcov: cannot write {self.data_file}: {exc.strerror or exc}")
        if not self.allow_empty and offline.run_count(report) == 0:
            self.problems.append(
                f"agentcov: {no_runs_message(['this test session'], '--agentcov-allow-empty')}"
            )
        checks = gate.evaluate(report, self.spec, self.allow_empty) + gate.dropped(engine.lost())
        self.table = gate.render_table(checks, self.allow_inconclusive) + "".join(
            f"agentcov: {warning}\n" for warning in gate.warnings(report, self.spec))
        if gate.outcome(checks, self.allow_inconclusive) != EXIT_PASS:
            self.problems.append(f"agentcov gate {gate.status(checks, self.allow_inconclusive)}")
        if self.fail_under is not None:
            miss = gate.fail_under(report, self.fail_under)
            if miss is not None:
                self.problems.append(f"FAIL Required agent coverage not reached: {miss}")
        for target in self.targets:
            if target.path is None:
                continue
            try:
                self.written.append((f"{target.kind} report",
                                     write_target(target, report, self.spec_path, self.spec)))
            except OSError as exc:
                self.problems.append(
                    f"agentcov: cannot write {target.path}: {exc.strerror or exc}"
                )
        if self.problems:
            session.testsfailed += 1  # how pytest-cov fails a green run: exit code 1

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.report is None:
            return
        tr = terminalreporter
        tr.write_sep("-", "agent coverage (otel_agentcov)")
        for target in self.targets:
            if target.path is None:
                tr.write(terminal_table(self.report, target.kind == "term-missing"))
                tr.write_line("")
        tr.write(self.table)
        for kind, path in self.written:
            tr.write_line(f"agentcov: {kind} written to {path}")
        for problem in self.problems:
            tr.write_line(problem, red=True, bold=True)
