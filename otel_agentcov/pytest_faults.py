"""pytest: fault plans for a session (`--agentcov-faults=PLAN`) or a test
(`@pytest.mark.agentcov_faults(PLAN)`), with the seed in the header and under every failed test
so one flag injects the same faults again (docs/faults.md#pytest).

The plan acts only in this session, and not at all where the guard refuses faults
(`AGENTCOV_PRODUCTION`): the session stops with a usage error instead.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from . import faults
from .faults import plan as fault_plan
from .spec import CoverageSpec, SpecError

_SESSION = pytest.StashKey[faults.Plan]()
_TEST = pytest.StashKey[faults.Plan]()
MARKER = "agentcov_faults"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentcov", "agent behaviour coverage (otel_agentcov)")
    group.addoption(
        "--agentcov-faults", default=None, metavar="PLAN", dest="agentcov_faults",
        help="inject a fault plan into the suite's agent runs: boundaries, chaos or fault "
        "families (http_5xx,tool_exception), each with an optional :SEED (agentcov docs faults)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(plan, seed=None): inject this fault plan into the test's agent "
        "runs (agentcov docs faults)")
    text = config.getoption("agentcov_faults")
    if text is None:
        return
    try:
        chosen = faults.enable(text, "--agentcov-faults")
    except (faults.FaultsRefused, faults.PlanError) as exc:
        raise pytest.UsageError(str(exc)) from None
    config.option.agentcov_faults = chosen.reproduce  # xdist workers draw the same faults
    chosen.budget_tokens = _budget(config) or chosen.budget_tokens
    config.stash[_SESSION] = chosen


def _budget(config: pytest.Config) -> int | None:
    """The largest `cost_limit_tokens` of the `--agentcov` spec: a `budget` fault reaches every
    agent's cost_limit (an unreadable spec is reported by the coverage plugin itself)."""
    path = config.getoption("agentcov", None)
    if not path:
        return None
    try:
        spec = CoverageSpec.from_yaml(path)
    except (SpecError, OSError):
        return None
    budgets = [a.boundaries.cost_limit_tokens for a in spec.agents.values()
               if a.boundaries.cost_limit_tokens]
    return max(budgets, default=None)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SESSION in config.stash:
        faults.disable()


def pytest_report_header(config: pytest.Config) -> str | None:
    chosen = config.stash.get(_SESSION, None)
    if chosen is None:
        return None
    return (f"agentcov faults: plan {chosen.name}, seed {chosen.seed} "
            f"(the same faults again: --agentcov-faults={chosen.reproduce})")


def _marker_plan(item: pytest.Item) -> faults.Plan | None:
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return None
    where = f"{item.nodeid}: @pytest.mark.{MARKER}"
    if len(marker.args) != 1 or not isinstance(marker.args[0], str):
        raise pytest.UsageError(f"{where}: expected one plan, e.g. {MARKER}('tool_exception')")
    seed = marker.kwargs.get("seed")
    text = marker.args[0] if seed is None else f"{marker.args[0]}:{seed}"
    try:
        faults.check(where)
        chosen = faults.parse(text, where)
    except (faults.FaultsRefused, faults.PlanError) as exc:
        raise pytest.UsageError(str(exc)) from None
    faults.install_hooks()
    chosen.budget_tokens = _budget(item.config) or chosen.budget_tokens
    return chosen


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    chosen = _marker_plan(item)
    if chosen is None:
        return (yield)
    item.stash[_TEST] = chosen
    with fault_plan.activated(chosen):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed and call.when == "call":
        test_plan = item.stash.get(_TEST, None)
        if test_plan is not None:
            again = f"@pytest.mark.{MARKER}({test_plan.reproduce!r})"
        else:
            session = item.config.stash.get(_SESSION, None)
            again = f"--agentcov-faults={session.reproduce}" if session is not None else ""
        if again:
            chosen = test_plan or item.config.stash[_SESSION]
            report.sections.append(("agentcov faults", (
                f"plan {chosen.name}, seed {chosen.seed}: the same faults again with {again}")))
    return report


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    chosen = config.stash.get(_SESSION, None)
    if chosen is None:
        return
    injected = ", ".join(f"{family} ×{n}" for family, n in sorted(chosen.injected.items()))
    terminalreporter.write_sep("-", "agentcov faults")
    terminalreporter.write_line(
        f"plan {chosen.name}, seed {chosen.seed}: injected {injected or 'nothing'}; "
        f"the same faults again: --agentcov-faults={chosen.reproduce}")
