"""What each scenario of the inference tuning share did (fixtures/record/infer/), as coverage
should see it: written from the recorder scripts, not from their spans.

Every recorder there runs the app-written loop of fixtures/record/_app_loop.py (TracedApp) with
its library's own decorators, so each stack expects `fixture_expectations.traced_app`'s
scenarios (error type names are not scored). benchmarks/inference.py scores them with the
built-in tables off. HELD_OUT stacks were recorded and expected like the others but never
looked at while the rules were written: they are scored apart, as the share's own held-out.
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import Scenario, traced_app

FIXTURES = Path(__file__).parent / "fixtures"

EXPECTED: dict[str, dict[str, Scenario]] = {
    "judgeval": traced_app("RuntimeError", "InternalServerError"),
    "promptflow": traced_app("RuntimeError", "InternalServerError"),
}
HELD_OUT: dict[str, dict[str, Scenario]] = {
    "langwatch": traced_app("RuntimeError", "InternalServerError"),
}
