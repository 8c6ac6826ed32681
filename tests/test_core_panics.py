"""A panic in the compiled core leaves it as the core's own `CoreFailed`, a TraceFormatError
(docs/core.md), so every caller treats it as the bad input it met with no handler of its own:
the processor counts the span and its worker lives on, a decoder's caller refuses the payload
with one TraceFormatError line, the CLI prints one line and exits 2, the trials reader hands the
file to the per-trial route. No input is known to panic the core (the decoder is fuzzed), so the
core function is replaced here by one that makes a real panic behind the core's door (its test
entry `_core._panic`): a stand-in for the function that would panic, not a product hook.
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path
from typing import Any

import pytest
from _trace_files import demo_spans, protobuf_bytes, write_spec
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov import _core, cli, compiled, semconv
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.readers import trials as trials_reader
from otel_agentcov.readers.otlp import TraceFormatError, classified_from_protobuf

SECRET = "CANARY-panic-5e1d"


def _panic(*_: Any, **__: Any) -> Any:
    # a real panic quoting the string, as Rust's of a bad slice does: it may be span content
    _core._panic(SECRET)


def _run(tracer: Any, tool: str) -> None:
    with tracer.start_as_current_span("invoke_agent planner", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner"}):
        with tracer.start_as_current_span(f"execute_tool {tool}", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}):
            pass


@pytest.mark.timeout(30)
def test_a_panic_on_an_sdk_span_is_counted_and_the_worker_lives_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    real, calls = compiled.sdk_step, []

    def sdk_step(classifier: Any, span: Any, attributes: list[str], *rest: Any) -> Any:
        calls.append(span.name)
        if span.name == "execute_tool boom":
            _panic()
        return real(classifier, span, attributes, *rest)

    monkeypatch.setattr(compiled, "sdk_step", sdk_step)
    processor = AgentCoverageProcessor(flush_interval_s=3600.0)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("panics")
    _run(tracer, "boom")  # ends on the host thread: nothing raised here
    assert processor.force_flush(timeout_millis=5_000) is True
    _run(tracer, "lookup")  # the worker still classifies
    assert processor.force_flush(timeout_millis=5_000) is True
    assert "execute_tool boom" in calls  # the core path was taken
    report = processor.snapshot().to_dict()
    assert report["spans"]["dropped"] == {"malformed": 1}
    assert report["agents"]["planner"]["runs"]["count"] == 2
    assert report["agents"]["planner"]["tools"]["called"] == {"lookup": {"ok": 1, "error": 0}}
    assert "compiled core" in caplog.text and SECRET not in caplog.text  # logged, no content
    provider.shutdown()


@pytest.mark.timeout(30)
def test_any_other_error_on_a_span_is_logged_by_its_type_alone(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """The Python path's errors quote values too (`int('...')`): its log line names the type."""
    caplog.set_level(logging.DEBUG)

    def sdk_step(classifier: Any, span: Any, attributes: list[str], *rest: Any) -> Any:
        raise ValueError(f"invalid literal for int() with base 10: '{SECRET}'")

    monkeypatch.setattr(compiled, "sdk_step", sdk_step)
    processor = AgentCoverageProcessor(flush_interval_s=3600.0)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    _run(provider.get_tracer("errors"), "boom")
    assert processor.force_flush(timeout_millis=5_000) is True
    assert processor.snapshot().to_dict()["spans"]["dropped"] == {"malformed": 2}
    assert "internal error: ValueError" in caplog.text and SECRET not in caplog.text
    provider.shutdown()


def test_a_panic_decoding_a_request_refuses_it_with_one_line() -> None:
    payload = protobuf_bytes(demo_spans(runs=1))
    with pytest.raises(TraceFormatError) as caught:
        classified_from_protobuf(payload, _panic, where="http request")
    message = str(caught.value)
    assert message.startswith("http request: the compiled core failed on this input")
    assert SECRET not in message and "\n" not in message


def test_a_panic_reading_a_file_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    traces = tmp_path / "traces.pb"
    traces.write_bytes(protobuf_bytes(demo_spans(runs=2)))
    spec = write_spec(tmp_path / "agentcov.yaml")
    monkeypatch.setattr(semconv.Classifier, "otlp_steps", _panic)  # the fused decode+classify
    monkeypatch.setattr(compiled, "otlp_spans", _panic)  # and the decoder alone
    assert cli.main(["coverage", "--spec", str(spec), str(traces)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"agentcov: {traces}: byte ") and err.count("\n") == 1, err
    assert "compiled core failed" in err and SECRET not in err and "Traceback" not in err


def test_a_panic_anywhere_under_the_cli_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Past the readers (a trial file's fold, say): the CLI's last line of defence."""
    monkeypatch.setattr(cli, "_load", _panic)
    assert cli.main(["coverage", str(tmp_path / "traces.pb")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentcov: the compiled core failed") and err.count("\n") == 1, err


def test_a_panic_reading_a_trials_file_hands_it_to_the_per_trial_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"trials": []}', encoding="utf-8")
    monkeypatch.setattr(trials_reader, "parse_trials", _panic)
    assert trials_reader.read_trial_file(str(path)) is None


def test_the_fuzzer_still_stops_on_a_panic(monkeypatch: pytest.MonkeyPatch) -> None:
    """The readers refuse a panic's input as bad bytes; the fuzz harness must not take that
    refusal for agreement with upb, which refuses these truncated bytes too."""
    fuzz = pytest.importorskip("fuzz_otlp_decoder")
    truncated = protobuf_bytes(demo_spans(runs=1))[:40]
    fuzz.one_input(truncated)  # the real decoder: refused by all, as it should be
    monkeypatch.setattr(compiled, "otlp_spans", _panic)
    with pytest.raises(AssertionError, match="compiled core failed"):
        fuzz.one_input(truncated)


def test_a_panic_unwinds_into_python_and_never_aborts() -> None:
    """Everything above rests on a panic unwinding to the core's door: with
    `panic = "abort"` in a build profile it would end the host's process instead."""
    root = Path(__file__).resolve().parent.parent
    cargo = tomllib.loads((root / "core" / "Cargo.toml").read_text(encoding="utf-8"))
    assert "release" in cargo["profile"]  # the profile maturin builds is read here
    for name, profile in cargo["profile"].items():
        assert profile.get("panic", "unwind") == "unwind", name
    maturin = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert "panic" not in repr(maturin["tool"]["maturin"])  # no rustc flag passed either
    assert not (root / "core" / ".cargo").exists()
