"""`@pytest.mark.agentcov(runs=N, pass_rate=P)`: judge a nondeterministic test by its pass rate.

An agent test that passes 9 times in 10 is neither green nor red after one run. A marked test is
run up to N times and judged by the Wilson 95 % interval of its pass rate (docs/ci.md): PASS
when the lower bound is at least P, FAIL when the upper bound is below P, INCONCLUSIVE otherwise
(`--agentcov-inconclusive=fail|pass` decides how that ends; fail by default, so an undecided
statistic never passes unasked). It stops as soon as the remaining runs cannot change the verdict.
Loaded by the pytest plugin, with or without `--agentcov`; works under pytest-xdist (a test's
runs stay on one worker, its verdict travels in the report's user_properties).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

import pytest
from _pytest.nodes import Node
from _pytest.runner import runtestprotocol

from .stats import wilson
from .stats.estimators import runs_to_settle

MARKER = "agentcov"
PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
DEFAULT_K = 3
# runs= above this is refused: at a 50 % pass rate a test would otherwise run without end
# (10,000 runs pin a pass rate to ±1 % at 95 %: docs/semantics.md)
MAX_RUNS = 10_000


class MarkerError(ValueError):
    """A marker whose arguments cannot judge anything; that test fails, the session goes on."""


@dataclass(frozen=True)
class Trial:
    """What a marker asks for."""

    runs: int
    pass_rate: float
    k: int  # pass^k: the chance that k runs in a row all pass


def _trial(marker: pytest.Mark) -> Trial:
    """The marker's arguments, validated, including that `runs` can ever show `pass_rate`."""
    kwargs = dict(marker.kwargs)
    runs, rate, k = kwargs.pop("runs", None), kwargs.pop("pass_rate", None), kwargs.pop("k", None)
    if marker.args or kwargs:
        raise MarkerError("@pytest.mark.agentcov takes only runs=, pass_rate= and k=")
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 1:
        raise MarkerError("@pytest.mark.agentcov: runs= must be a whole number >= 1")
    if runs > MAX_RUNS:
        raise MarkerError(f"@pytest.mark.agentcov: runs={runs} is over the maximum of "
                          f"{MAX_RUNS:,} (its Wilson interval is already within ±1 %)")
    if not isinstance(rate, int | float) or isinstance(rate, bool) or not 0 < rate < 1:
        raise MarkerError("@pytest.mark.agentcov: pass_rate= must be a number in (0, 1)")
    k = min(DEFAULT_K, runs) if k is None else k
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= runs:
        raise MarkerError("@pytest.mark.agentcov: k= must be a whole number in [1, runs]")
    if verdict(runs, runs, rate) != PASS:  # even every run passing could not show it
        least = next(n for n in range(runs, 100_000) if verdict(n, n, rate) == PASS)
        raise MarkerError(
            f"@pytest.mark.agentcov: runs={runs} can never show pass_rate={rate:g} (the Wilson "
            f"lower bound of {runs}/{runs} is below it); give runs={least} or more"
        )
    return Trial(runs, float(rate), k)


def verdict(passed: int, n: int, pass_rate: float) -> str:
    """PASS when the Wilson lower bound reaches the target, FAIL when the upper bound cannot."""
    ci = wilson(passed, n)
    if ci is None:
        return INCONCLUSIVE
    if ci[0] >= pass_rate:
        return PASS
    return FAIL if ci[1] < pass_rate else INCONCLUSIVE


def settled(passed: int, done: int, runs: int, pass_rate: float) -> str | None:
    """The verdict after all `runs` if the remaining ones cannot change it, else None.

    Both bounds grow with the passes, so the verdict moves FAIL → INCONCLUSIVE → PASS as passes
    are added: when every remaining run failing and every one passing give the same verdict,
    every mix in between does too."""
    left = runs - done
    worst, best = verdict(passed, runs, pass_rate), verdict(passed + left, runs, pass_rate)
    return worst if worst == best else None


def pass_hat_k(passed: int, n: int, k: int) -> float | None:
    """Unbiased estimate of pass^k, C(passed, k) / C(n, k) (as τ-bench reports it)."""
    return comb(passed, k) / comb(n, k) if n >= k else None


class _SameTestNext:
    """Stands for the test itself as the next item, so a repetition's teardown keeps the module
    and session fixtures the next repetition needs (teardown reads only `listchain`)."""

    def __init__(self, item: pytest.Item) -> None:
        self._chain = item.listchain()[:-1]

    def listchain(self) -> list[Node]:
        return self._chain


def _run_passed(reports: list[pytest.TestReport]) -> bool:
    return all(not r.failed for r in reports) and any(
        r.when == "call" and r.passed for r in reports
    )


class RepeatedTests:
    """Runs marked tests repeatedly and prints their pass rates in the terminal summary."""

    def __init__(self, inconclusive: str) -> None:
        self.inconclusive = inconclusive
        self.results: list[tuple[str, dict[str, Any]]] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        marker = item.get_closest_marker(MARKER)
        if marker is None:
            return None
        try:
            trial = _trial(marker)
        except MarkerError:
            return None  # run once; pytest_runtest_setup fails it with the reason
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        passed = done = 0
        reports: list[pytest.TestReport] = []
        first: tuple[int, pytest.TestReport] | None = None  # the first failing run's report
        final: str | None = None
        again = _SameTestNext(item)
        while done < trial.runs:
            following: Any = nextitem if done + 1 == trial.runs else again
            reports = runtestprotocol(item, nextitem=following, log=False)
            if any(r.skipped for r in reports):  # a skip is not a run: report it as pytest does
                break
            done += 1
            ok = _run_passed(reports)
            passed += ok
            if not ok and first is None:
                first = done, next((r for r in reports if r.failed), reports[-1])
            final = settled(passed, done, trial.runs, trial.pass_rate)
            if final is not None:
                break
            item._initrequest()  # type: ignore[attr-defined]  # fresh fixtures, as reruns do
        else:
            final = verdict(passed, done, trial.pass_rate)
        if done < trial.runs:  # stopped early: tear down what the real next item does not need
            item.session._setupstate.teardown_exact(nextitem)
        if done and final is not None:
            self._judge(item, reports, trial, passed, done, final, first)
        for report in reports:
            item.ihook.pytest_runtest_logreport(report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    def _judge(
        self, item: pytest.Item, reports: list[pytest.TestReport], trial: Trial,
        passed: int, done: int, final: str, first: tuple[int, pytest.TestReport] | None,
    ) -> None:
        """Turn the last run's call report into the test's verdict over all its runs; a failed
        verdict shows the first failing run's traceback, as a plain failing test would."""
        call = next((r for r in reports if r.when == "call"), None)
        if call is None:  # the last run's setup failed: its error report stands
            return
        ok = final == PASS or (final == INCONCLUSIVE and self.inconclusive == "pass")
        result = {
            "runs": done, "max_runs": trial.runs, "passed": passed,
            "target": trial.pass_rate, "k": trial.k, "verdict": final,
        }
        if first is not None:
            result["first_failure"] = {"run": first[0], "summary": _crash(first[1])}
        call.user_properties.append((MARKER, json.dumps(result)))
        if ok:
            call.outcome, call.longrepr = "passed", None
        else:
            call.outcome = "failed"
            call.longrepr = "\n".join([f"agentcov: {_line(result)}", *_details(result)]) + (
                f"\n\nrun {first[0]} of {done}, the first that failed:\n{first[1].longreprtext}"
                if first is not None else "")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """A marker that cannot judge anything fails its own test, not the whole session."""
        marker = item.get_closest_marker(MARKER)
        if marker is None:
            return
        try:
            _trial(marker)
            return
        except MarkerError as exc:
            problem = str(exc)
        # outside the except block: failing inside it chained the two and printed the reason twice
        pytest.fail(problem, pytrace=False)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == MARKER and report.when == "call" and isinstance(value, str):
                self.results.append((report.nodeid, json.loads(value)))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.results:
            return
        tr = terminalreporter
        tr.write_sep("-", "agentcov: repeated tests (Wilson 95% interval of the pass rate)")
        for nodeid, result in sorted(self.results):
            tr.write_line(f"{nodeid}: {_line(result)}")
            for detail in _details(result):
                tr.write_line(f"    {detail}")


MAX_SUMMARY = 200  # characters of the first failure's message in the summary line


def _crash(report: pytest.TestReport) -> str:
    """`file.py:12: AssertionError: assert 1 == 2`: where and why a run failed, one line (the
    exception's first line, cut at MAX_SUMMARY), as pytest's short test summary words it."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        where, message = f"{Path(crash.path).name}:{crash.lineno}: ", str(crash.message)
    else:  # a string longrepr (pytest.fail(pytrace=False), a setup error worded by a plugin)
        where, message = "", report.longreprtext.strip()
    lines = message.splitlines() or [f"{report.when} failed"]
    text = lines[0] if len(lines[0]) <= MAX_SUMMARY else lines[0][:MAX_SUMMARY - 1] + "…"
    return where + text


def _settle(result: dict[str, Any]) -> str:
    """How many runs an INCONCLUSIVE verdict needs, if the observed pass rate held."""
    passed, done, target = result["passed"], result["runs"], result["target"]
    total = runs_to_settle(passed, done, target)
    if total is None:
        return f"at {passed / done:.1%} no number of runs would settle it"
    return f"if {passed / done:.1%} held, {total} runs would settle it (runs={total})"


def _line(result: dict[str, Any]) -> str:
    """`7/10 runs passed (stopped early of 30): 70.0% [39.7%, 89.2%] vs target 90%, pass^3 0.29:
    FAIL`."""
    passed, done = result["passed"], result["runs"]
    lo, hi = wilson(passed, done) or (0.0, 1.0)
    early = f" (stopped early of {result['max_runs']})" if done < result["max_runs"] else ""
    k = result["k"]
    hat = pass_hat_k(passed, done, k)
    pass_k = f"pass^{k} {hat:.2f}" if hat is not None else f"pass^{k} n/a"
    return (
        f"{passed}/{done} runs passed{early}: {passed / done:.1%} [{lo:.1%}, {hi:.1%}] "
        f"vs target {result['target']:.0%}, {pass_k}: {result['verdict']}"
    )


def _details(result: dict[str, Any]) -> list[str]:
    """The lines under a verdict: how many runs would settle an INCONCLUSIVE one, and where
    and why the first failing run failed."""
    out = [_settle(result)] if result["verdict"] == INCONCLUSIVE else []
    first = result.get("first_failure")
    if first:
        out.append(f"first failure: run {first['run']}: {first['summary']}")
    return out


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("agentcov").addoption(
        "--agentcov-inconclusive", choices=("fail", "pass"), default="fail",
        dest="agentcov_inconclusive",
        help="how a @pytest.mark.agentcov test whose pass rate is undecided ends (default fail)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "agentcov(runs, pass_rate, k=3): run up to `runs` times; pass when the Wilson lower "
        "bound of the pass rate reaches `pass_rate`",
    )
    config.pluginmanager.register(
        RepeatedTests(config.getoption("agentcov_inconclusive")), "agentcov-repeated-tests"
    )
