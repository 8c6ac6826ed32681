"""Restricted and allowed lists use the selector grammar and compare names normalised
(issue 29, item 6). Before, they matched exact names only: `Delete_Repo` and MCP's
`mcp__gh__delete_repo` went uncounted, and `restricted: ["force_*"]` was accepted and never
matched. Expectations follow the normalisation written in docs/semantics.md#tool-edges."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_gate_declared import Run, gate

from otel_agentcov.judge.tool_lists import ToolList

LIST = ToolList(["delete_repo", "force_*", "danger"], {"danger": ["drop_*", "wipe"]})


@pytest.mark.parametrize("tool", [
    "delete_repo", "Delete_Repo", "DELETE-REPO", "mcp__gh__delete_repo", "mcp__GitHub__Delete-Repo",
    "github.delete_repo", "github-delete_repo",  # Semantic Kernel: <plugin>-<function>
    "force_push", "Force-Push", "mcp__git__force_push", "drop_table", "Wipe", "tools.wipe",
])
def test_covered_whatever_the_spelling(tool: str) -> None:
    assert LIST.matches(tool)


@pytest.mark.parametrize("tool", [
    "delete_repository", "list_repos", "reforce_push", "dropped", "wiped", "danger", "mcp__gh__",
])
def test_other_names_are_not_covered(tool: str) -> None:
    assert not LIST.matches(tool)


def test_a_namespaced_entry_covers_its_namespace_only() -> None:
    only = ToolList(["github.delete_repo"])
    assert only.matches("mcp__github__delete_repo") and only.matches("GitHub.Delete_Repo")
    assert not only.matches("gitlab.delete_repo") and not only.matches("delete_repo")
    assert ToolList(["mcp__github__*"]).matches("mcp__github__anything")


def test_the_gate_counts_every_spelling_and_globs(tmp_path: Path) -> None:
    """Real SDK spans through `agentcov gate`: three attempts under three spellings."""
    runs: list[Run] = [("ops", ["Delete_Repo", "lookup"], None),
                       ("ops", ["mcp__gh__delete_repo"], None),
                       ("ops", ["force_push"], None),
                       ("ops", ["lookup"], None)]
    spec = {"agents": [{"name": "ops", "tool_edges": {
        "restricted": ["delete_repo", "force_*"], "allowed": ["Lookup"]}}]}
    proc = gate(tmp_path, runs, spec)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "coverage", "--spec",
         str(tmp_path / "agentcov.yaml"), "--traces", str(tmp_path / "traces.json"),
         "--format", "json"], capture_output=True, text=True, timeout=120, check=True).stdout)
    edges = report["agents"]["ops"]["edges"]
    assert edges["restricted_attempts"] == 3
    assert sorted(r["tool"] for r in edges["restricted"]) == [
        "Delete_Repo", "force_push", "mcp__gh__delete_repo"]
    assert edges["allowed_pct"] == 100.0  # `Lookup` covers the calls of `lookup`
    assert report["agents"]["ops"]["runs"]["passed"] == 1
    assert report["agents"]["ops"]["tools"]["undeclared"] == []


@pytest.mark.parametrize("tool", [
    "delete\u200b_account", "del\u200dete_account", "\ufeffdelete_account", "delete\u00ad_account",
    "\u202edelete_account", "\uff44\uff45\uff4c\uff45\uff54\uff45_account",  # fullwidth
    "\U0001d41d\U0001d41e\U0001d425\U0001d41e\U0001d42d\U0001d41e_account",  # math bold
    "mcp__bank__delete\u200b_account",
])
def test_invisible_and_compatibility_spellings_are_the_restricted_tool(tool: str) -> None:
    """Issue 37: `delete<ZWSP>_account` and other spellings that render as `delete_account`
    were a different name, so the attempt went uncounted. NFKC + format characters removed."""
    assert ToolList(["delete_account"]).matches(tool)
    assert ToolList(["delete\u200b_account"]).matches("delete_account")  # the entry too


def test_another_script_is_another_name() -> None:
    """Cyrillic a (U+0430) is not folded (docs/semantics.md#tool-edges says so)."""
    assert not ToolList(["delete_account"]).matches("delete_\u0430ccount")
