"""Prometheus alerting and recording rules in dashboards/prometheus/ (issue 3).

`promtool check rules` / `promtool test rules` (Debian's `prometheus` package, installed by
`make test`) plus structural checks: every alert of the metric contract exists with severity,
`for`, summary, description and a runbook_url whose anchor is a RUNBOOK.md heading, and the
rule expressions only use metric names from the contract (catches typos promtool cannot).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from _support import need_binary

PROM_DIR = Path(__file__).resolve().parent.parent / "dashboards" / "prometheus"
ALERTS = PROM_DIR / "agentcov-alerts.yaml"
RULES = PROM_DIR / "agentcov-rules.yaml"
RUNBOOK = PROM_DIR / "RUNBOOK.md"
ALERTS_TEST = PROM_DIR / "tests" / "alerts_test.yaml"
RULES_TEST = PROM_DIR / "tests" / "rules_test.yaml"
# the runbook's path in this repository (it has no public address of its own): a link that
# exists wherever the repository is checked out or hosted, never one to a made-up host
RUNBOOK_URL = "dashboards/prometheus/RUNBOOK.md#"

# The metric contract (issue 3): alert names with their severity.
EXPECTED_ALERTS = {
    "AgentCovRestrictedToolAttempt": "critical",
    "AgentCovOverallCoverageLow": "warning",
    "AgentCovDimensionWeak": "warning",
    "AgentCovAllowedToolsUncovered": "warning",
    "AgentCovDelegationEdgesUncovered": "warning",
    "AgentCovPassRateLow": "warning",
    "AgentCovBehaviorInconsistent": "warning",
    "AgentCovVersionRegression": "critical",
    "AgentCovExporterDown": "critical",
    "AgentCovExporterAbsent": "critical",
    "AgentCovSpansDropped": "warning",
    "AgentCovLabelOverflow": "warning",
    "AgentCovHallucinatedAction": "critical",
    # critical and high page (the default gate's fail_on), lower severities ticket
    "AgentCovContractViolation": (
        '{{ if or (eq $labels.severity "critical") (eq $labels.severity "high") }}critical'
        '{{ else }}warning{{ end }}'
    ),
}
EXPECTED_GROUPS = {"agentcov.security", "agentcov.narrative", "agentcov.contracts",
                   "agentcov.coverage", "agentcov.health"}
EXPECTED_RECORDS = {
    "agentcov:tool_coverage:ratio",
    "agentcov:model_coverage:ratio",
    "agentcov:boundary_coverage:ratio",
    "agentcov:delegation_coverage:ratio",
    "agentcov:contract_violation:ratio",
}

# Every exported metric name of the contract (histogram expanded to its series).
KNOWN_METRICS = {
    "agentcov_coverage_ratio",
    "agentcov_coverage_overall_ratio",
    "agentcov_edges_allowed_ratio",
    "agentcov_edges_delegation_ratio",
    "agentcov_gate_passed",
    "agentcov_restricted_tool_attempts_total",
    "agentcov_tool_calls_total",
    "agentcov_tool_declared_info",
    "agentcov_model_calls_total",
    "agentcov_model_declared_info",
    "agentcov_delegations_total",
    "agentcov_delegation_declared_info",
    "agentcov_boundary_hits_total",
    "agentcov_boundary_declared_info",
    "agentcov_runs_total",
    "agentcov_run_errors_total",
    "agentcov_runs_passed_total",
    "agentcov_run_duration_seconds_bucket",
    "agentcov_run_duration_seconds_sum",
    "agentcov_run_duration_seconds_count",
    "agentcov_pass_rate_lower_ratio",
    "agentcov_pass_rate_upper_ratio",
    "agentcov_behavior_consistency_ratio",
    "agentcov_paths_observed",
    "agentcov_paths_estimated",
    "agentcov_states_observed",
    "agentcov_states_estimated",
    "agentcov_narrative_runs_total",
    "agentcov_narrative_divergences_total",
    "agentcov_contract_checks_total",
    "agentcov_spans_processed_total",
    "agentcov_spans_dropped_total",
    "agentcov_traces_flushed_early_total",
    "agentcov_label_overflow_total",
    "agentcov_internal_errors_total",
    "agentcov_traces_in_flight",
    "agentcov_version_runs_total",
    "agentcov_version_runs_passed_total",
    "agentcov_version_pass_rate_ratio",
    "agentcov_version_tool_calls_total",
    "agentcov_version_verdict",
}
# Non-agentcov series the rules may use.
OTHER_METRICS = {"up"}

PROMQL_WORDS = {
    "and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
    "offset", "bool", "inf", "nan",
}


def _promtool() -> str:
    return need_binary("promtool")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_promtool(), *args], cwd=PROM_DIR, capture_output=True, text=True, timeout=120
    )


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


def _rules(path: Path) -> list[dict[str, Any]]:
    return [rule for group in _load(path)["groups"] for rule in group["rules"]]


def _alerts() -> dict[str, dict[str, Any]]:
    return {rule["alert"]: rule for rule in _rules(ALERTS) if "alert" in rule}


def _metric_names(expr: str) -> set[str]:
    """Series names selected by a PromQL expression (functions, keywords, labels stripped)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)          # string literals
    text = re.sub(r"\{[^}]*\}", " ", text)                   # label matchers
    text = re.sub(r"\[[^\]]*\]", " ", text)                  # range / subquery windows
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\boffset\s+\w+", " ", text)              # offset durations
    names = set()
    for match in re.finditer(r"(?<![\w.])([A-Za-z_:][\w:]*)\s*(\()?", text):
        name, call = match.group(1), match.group(2)
        if call or name.lower() in PROMQL_WORDS:
            continue
        names.add(name)
    return names


# ------------------------------------------------------------------------------- promtool


@pytest.mark.parametrize("path", [ALERTS, RULES], ids=lambda p: p.name)
def test_promtool_check_rules(path: Path) -> None:
    result = _run("check", "rules", "--lint=all", "--lint-fatal", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


@pytest.mark.parametrize("path", [ALERTS_TEST, RULES_TEST], ids=lambda p: p.name)
def test_promtool_test_rules(path: Path) -> None:
    result = _run("test", "rules", str(path.relative_to(PROM_DIR)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


# ----------------------------------------------------------------------------- structure


def test_alert_groups_and_names_match_the_contract() -> None:
    groups = {group["name"] for group in _load(ALERTS)["groups"]}
    assert groups == EXPECTED_GROUPS
    assert set(_alerts()) == set(EXPECTED_ALERTS)


@pytest.mark.parametrize("name", sorted(EXPECTED_ALERTS))
def test_alert_has_severity_for_and_annotations(name: str) -> None:
    rule = _alerts()[name]
    assert rule["labels"]["severity"] == EXPECTED_ALERTS[name]
    assert "for" in rule and re.fullmatch(r"\d+[smh]", str(rule["for"])), rule.get("for")
    annotations = rule["annotations"]
    for key in ("summary", "description", "runbook_url"):
        assert str(annotations.get(key, "")).strip(), f"{name}: missing {key}"
    assert "{{" in annotations["description"], f"{name}: description is not templated"
    assert annotations["runbook_url"] == RUNBOOK_URL + name.lower()


def test_runbook_has_a_heading_for_every_runbook_url() -> None:
    headings = set(re.findall(r"^##\s+(\S+)\s*$", RUNBOOK.read_text(encoding="utf-8"), re.M))
    for name, rule in _alerts().items():
        path, fragment = rule["annotations"]["runbook_url"].rsplit("#", 1)
        assert (PROM_DIR.parent.parent / path).resolve() == RUNBOOK.resolve(), path
        assert fragment in headings, f"{name}: RUNBOOK.md has no '## {fragment}'"
    assert headings == {name.lower() for name in EXPECTED_ALERTS}


def test_restricted_tool_alert_is_immediate_and_catches_new_series() -> None:
    rule = _alerts()["AgentCovRestrictedToolAttempt"]
    assert str(rule["for"]) == "0m"
    expr = " ".join(rule["expr"].split())
    assert "increase(agentcov_restricted_tool_attempts_total[5m]) > 0" in expr
    assert "unless" in expr and "offset 5m" in expr


def test_hallucinated_action_alert_is_immediate_and_only_on_claimed_not_called() -> None:
    rule = _alerts()["AgentCovHallucinatedAction"]
    assert str(rule["for"]) == "0m"
    expr = " ".join(rule["expr"].split())
    selector = 'agentcov_narrative_divergences_total{kind="claimed_not_called"}'
    assert f"increase({selector}[5m]) > 0" in expr
    assert expr.count(selector) == 3 and "offset 5m" in expr


def test_recording_rules_exist() -> None:
    records = {rule["record"] for rule in _rules(RULES) if "record" in rule}
    assert EXPECTED_RECORDS <= records
    assert all(re.fullmatch(r"agentcov:[a-z_]+:[a-z_]+", name) for name in records)


def test_every_alert_and_record_has_a_promtool_test() -> None:
    alert_tests = _load(ALERTS_TEST)["tests"]
    firing: set[str] = set()
    silent: set[str] = set()
    for case in alert_tests:
        for check in case.get("alert_rule_test", []):
            (firing if check.get("exp_alerts") else silent).add(check["alertname"])
    assert firing == set(EXPECTED_ALERTS), "alerts without a firing test case"
    assert silent == set(EXPECTED_ALERTS), "alerts without a non-firing test case"
    tested = {
        re.split(r"[{\s]", check["expr"].strip(), maxsplit=1)[0]
        for case in _load(RULES_TEST)["tests"]
        for check in case.get("promql_expr_test", [])
    }
    assert EXPECTED_RECORDS <= tested


@pytest.mark.parametrize("path", [ALERTS, RULES], ids=lambda p: p.name)
def test_rules_only_reference_contract_metrics(path: Path) -> None:
    recorded = {rule["record"] for rule in _rules(RULES) if "record" in rule}
    allowed = KNOWN_METRICS | OTHER_METRICS | recorded
    for rule in _rules(path):
        unknown = _metric_names(rule["expr"]) - allowed
        assert not unknown, f"{rule.get('alert') or rule.get('record')}: unknown {unknown}"


def test_metric_name_extraction_catches_typos() -> None:
    expr = (
        'max by (agent, tool) (max_over_time(agentcov_tool_call_total{job="agentcov"}[1h]) > 0)'
        " and on (agent, tool) agentcov:tool_declared:max offset 5m or up == bool 0"
    )
    assert _metric_names(expr) == {
        "agentcov_tool_call_total", "agentcov:tool_declared:max", "up",
    }


def test_the_documented_job_rename_gives_working_rules(tmp_path: Path) -> None:
    """The alerts name the scrape job `agentcov`; the file documents the one substitution that
    renames it, and applying that substitution (to the rules and to their unit tests' series)
    gives rules that pass every promtool test under the new name."""
    text = ALERTS.read_text(encoding="utf-8")
    sed = re.search(r"sed 's/(job=\"agentcov\")/(job=\"YOUR_JOB\")/g'", text)
    assert sed is not None, "the alerts file must document how to rename the job"
    old, new = sed.group(1), sed.group(2).replace("YOUR_JOB", "my-agents")
    renamed = text.replace(old, new)
    rule_text = "\n".join(line for line in renamed.splitlines() if not line.startswith("#"))
    assert "agentcov\"" not in rule_text.replace('job="my-agents"', "")  # nothing left behind
    (tmp_path / "tests").mkdir()
    (tmp_path / "agentcov-alerts.yaml").write_text(renamed, encoding="utf-8")
    tests = ALERTS_TEST.read_text(encoding="utf-8")
    # the expected labels and texts name the job too (`job: agentcov`, "scrape job agentcov")
    tests = re.sub(r"\bjob(:?\s+)agentcov\b", r"job\1my-agents", tests.replace(old, new))
    (tmp_path / "tests" / "alerts_test.yaml").write_text(tests, encoding="utf-8")
    result = subprocess.run([_promtool(), "test", "rules", "tests/alerts_test.yaml"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("name", ["AgentCovRestrictedToolAttempt", "AgentCovHallucinatedAction",
                                  "AgentCovContractViolation"])
def test_count_alerts_print_whole_counts(name: str) -> None:
    """increase() extrapolates (11.61 for 12 events); `humanize` printed that fraction as a
    count of runs. A count is printed whole."""
    description = _alerts()[name]["annotations"]["description"]
    assert 'printf "%.0f" $value' in description and "humanize" not in description


def test_every_alert_name_has_the_one_prefix() -> None:
    """AgentCov*, every one: three were once Agent* (AgentVersionRegression, ...), so a silence
    or route on `alertname=~"AgentCov.*"` missed them."""
    names = [r["alert"] for g in yaml.safe_load(ALERTS.read_text())["groups"] for r in g["rules"]
             if "alert" in r]
    assert names and [n for n in names if not n.startswith("AgentCov")] == []
