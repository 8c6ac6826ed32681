"""The metric table (`exporters/families.py`) is the one list of families: the exposition emits
its families and no other, and every metric the rules, alerts, runbook and dashboards query is
one of them (docs/metrics.md is generated from it: tests/test_docs.py)."""

from __future__ import annotations

import re
from pathlib import Path

from otel_agentcov.exporters.families import AGENT, FAMILIES, SCRAPE, SPANS, Family
from otel_agentcov.exporters.prometheus import exposition

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"\bagentcov_[a-z_]*[a-z]\b")


def _samples(family: Family) -> set[str]:
    """The sample names a query may use for the family."""
    if family.type == "histogram":
        return {f"{family.name}{s}" for s in ("_bucket", "_sum", "_count")}
    return {family.sample}


def test_every_metric_the_rules_alerts_runbook_and_dashboards_name_is_in_the_table() -> None:
    known = set().union(*(_samples(f) for f in FAMILIES))
    files = [*sorted((ROOT / "dashboards").rglob("*.yaml")),
             *sorted((ROOT / "dashboards").rglob("*.json")),
             ROOT / "dashboards" / "prometheus" / "RUNBOOK.md"]
    named = {(path.name, n) for path in files for n in NAME.findall(path.read_text("utf-8"))}
    assert len({n for _, n in named}) > 30  # the files were found and read
    assert sorted((f, n) for f, n in named if n not in known) == []


def test_the_exposition_holds_the_table_families_and_no_other() -> None:
    text = exposition({}).decode()
    helps = dict(re.findall(r"^# HELP (\S+) (.*)$", text, re.M))
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    table = [f for f in FAMILIES if f.source in (AGENT, SPANS, SCRAPE)]
    assert list(types) == [f.sample for f in table]  # in the table's order
    assert types == {f.sample: f.type for f in table}
    assert helps == {f.sample: f.help for f in table}


def test_family_names_are_unique_and_otlp_instruments_have_units() -> None:
    names = [f.name for f in FAMILIES]
    assert len(names) == len(set(names))
    otlp = [f.otlp for f in FAMILIES if f.otlp is not None]
    assert len(otlp) == len(set(otlp)) and otlp[0] == "agentcov.coverage.ratio"
    assert all(f.unit for f in FAMILIES)
