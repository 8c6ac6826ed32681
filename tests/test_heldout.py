"""The held-out sets (issue 35) are whole: every scenario their expectations name was recorded,
every recorded file parses as OTLP/JSON and is expected, and every stack pins what recorded it.
Every set (tests/heldout/, the fresh share tests/heldout_fresh/, the third share
tests/heldout_third/, the fourth tests/heldout_fourth/, the fifth tests/heldout_fifth/, the sixth
tests/heldout_sixth/, the seventh tests/heldout_seventh/, the eighth tests/heldout_eighth/, the
ninth tests/heldout_ninth/, the tenth tests/heldout_tenth/, the eleventh
tests/heldout_eleventh/, the twelfth tests/heldout_twelfth/, the thirteenth
tests/heldout_thirteenth/, the fourteenth tests/heldout_fourteenth/, the fifteenth
tests/heldout_fifteenth/, the sixteenth tests/heldout_sixteenth/, the seventeenth
tests/heldout_seventeenth/, the eighteenth tests/heldout_eighteenth/, the nineteenth
tests/heldout_nineteenth/, the twentieth tests/heldout_twentieth/, the twenty-first
tests/heldout_twentyfirst/, the twenty-second tests/heldout_twentysecond/, the twenty-third
tests/heldout_twentythird/, the twenty-fourth tests/heldout_twentyfourth/, the twenty-fifth
tests/heldout_twentyfifth/, the twenty-sixth tests/heldout_twentysixth/, the twenty-seventh
tests/heldout_twentyseventh/, the twenty-eighth tests/heldout_twentyeighth/, the twenty-ninth
tests/heldout_twentyninth/, the thirtieth tests/heldout_thirtieth/, the thirty-first
tests/heldout_thirtyfirst/, the thirty-second tests/heldout_thirtysecond/, the thirty-third
tests/heldout_thirtythird/, the thirty-fourth tests/heldout_thirtyfourth/ and the thirty-fifth
tests/heldout_thirtyfifth/) holds stacks of two
ecosystems (but the sixteenth, the eighteenth, the twentieth, the twenty-second, the
twenty-fourth, the twenty-fifth, the twenty-sixth, the twenty-seventh, the thirtieth, the
thirty-first, the thirty-second and the thirty-fourth, `ONE_ECOSYSTEM`), and each later share
holds no stack recorded anywhere else.

Only the sets' integrity is tested here; how well the product reads them is a benchmark
(benchmarks/heldout.py, `--set fresh`, `third`, `fourth`, `fifth`, `sixth`, `seventh`, `eighth`,
`ninth`, `tenth`, `eleventh`, `twelfth`, `thirteenth`, `fourteenth`, `fifteenth`, `sixteenth`,
`seventeenth`, `eighteenth`, `nineteenth`, `twentieth`, `twentyfirst`, `twentysecond`,
`twentythird`, `twentyfourth`, `twentyfifth`, `twentysixth`, `twentyseventh`,
`twentyeighth`, `twentyninth`, `thirtieth`, `thirtyfirst`, `thirtysecond`, `thirtythird`,
`thirtyfourth` or `thirtyfifth` for the later shares), not a pass/fail test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_expectations import Scenario, heldout_expectations

from otel_agentcov.readers.otlp import records_from_json

TESTS = Path(__file__).parent
REPO = TESTS.parent
# each set's directory (under tests/, and its recorders' under fixtures/record/) -> fewest stacks
SETS = {"heldout": 4, "heldout_fresh": 3, "heldout_third": 3, "heldout_fourth": 3,
        "heldout_fifth": 3, "heldout_sixth": 3, "heldout_seventh": 3, "heldout_eighth": 3,
        "heldout_ninth": 3, "heldout_tenth": 3, "heldout_eleventh": 3,
        "heldout_twelfth": 3, "heldout_thirteenth": 3, "heldout_fourteenth": 3,
        "heldout_fifteenth": 3, "heldout_sixteenth": 2,
        "heldout_seventeenth": 2, "heldout_eighteenth": 2, "heldout_nineteenth": 2,
        "heldout_twentieth": 1, "heldout_twentyfirst": 2, "heldout_twentysecond": 1,
        "heldout_twentythird": 2, "heldout_twentyfourth": 1, "heldout_twentyfifth": 1,
        "heldout_twentysixth": 1, "heldout_twentyseventh": 2, "heldout_twentyeighth": 2,
        "heldout_twentyninth": 2, "heldout_thirtieth": 2, "heldout_thirtyfirst": 2,
        "heldout_thirtysecond": 2, "heldout_thirtythird": 2,
        "heldout_thirtyfourth": 2, "heldout_thirtyfifth": 2}
# a share whose list of candidate stacks held no other ecosystem's stack that traces itself and
# runs offline (the sixteenth: Inngest AgentKit emits no span of its own, and no OpenTelemetry
# handler for langchaingo could be had), so its stacks are of one ecosystem; the eighteenth's
# candidates were TypeScript stacks but for a Go one (Traceloop's go-openllmetry), which the Go
# module proxy refuses (403), so its two stacks are TypeScript; of the twentieth's candidates only
# Llama Stack could be recorded (Strands Agents for TypeScript is the eighteenth's, Inngest
# AgentKit traces nothing itself, Portia AI is not on the package index), so it holds that one; of
# the twenty-second's only ADK for Rust could be (KaibanJS's OpenTelemetry package is not on the
# npm registry, the Go module proxy refuses (403) both Go candidates), so it holds that one; of
# the twenty-fourth's only LangSmith's JavaScript SDK could be (Solon AI and Motia trace nothing
# themselves, Helidon's LangChain4j integration only meters, Micronaut LangChain4j is not to be
# had here, and LangSmith's OpenTelemetry mode makes no span of LangGraph.js's runs); of the
# twenty-fifth's only Parlant could be (the Braintrust Python SDK makes no OpenTelemetry span of
# its own, KaibanJS's OpenTelemetry package is not on the npm registry, and ElizaOS's core traces
# only into Postgres, in 1.0.0 to 1.0.4, and not at all since); of the twenty-sixth's only
# Ingenimax's Agent SDK for Go could be (Micronaut LangChain4j is not to be had here, Helidon's
# LangChain4j integration only meters, Solon AI traces nothing itself, and LiteLLM's
# OpenTelemetry callback is recorded already, in tests/fixtures/); the twenty-seventh's two
# stacks, Gemini CLI and OpenCode, are coding-agent CLIs from npm each driven by a Python app
# (the recorder), as the twenty-third's Codex is, so both count as Python's (Qwen Code and
# Eclipse LMOS ARC were not tried by the deadline); the thirtieth's candidates of other ecosystems
# could not be had or trace nothing themselves (the Go module proxy refuses (403) openai-agents-go,
# Solon AI traces nothing itself, TaskWeaver is not on the package index), so its two stacks,
# the Sentry Python SDK 3.x and DBOS Transact, are Python's; the thirty-first's list put Python
# SDKs first (Braintrust, whose SDK makes no OpenTelemetry span of its own, then Lilypad and
# Humanloop), and its two stacks are those; the thirty-second's list put two Python stacks first
# (NVIDIA NeMo Agent Toolkit, then Prefect 3), and its two stacks are those; the thirty-fourth's
# list put Restate (a Python app on restate-sdk, traced by the Restate server itself) and Ray Core
# first, and its two stacks are those, both Python's
ONE_ECOSYSTEM = {"heldout_sixteenth", "heldout_eighteenth", "heldout_twentieth",
                 "heldout_twentysecond", "heldout_twentyfourth", "heldout_twentyfifth",
                 "heldout_twentysixth", "heldout_twentyseventh", "heldout_thirtieth",
                 "heldout_thirtyfirst", "heldout_thirtysecond", "heldout_thirtyfourth"}
EXPECTED = {name: heldout_expectations(TESTS / name) for name in SETS}
CASES = [(name, stack, scenario) for name, stacks in EXPECTED.items()
         for stack, scenarios in stacks.items() for scenario in scenarios]


@pytest.mark.parametrize(("held", "stack", "scenario"), CASES,
                         ids=[f"{a}/{b}/{c}" for a, b, c in CASES])
def test_scenario_file_parses(held: str, stack: str, scenario: str) -> None:
    path = TESTS / held / "fixtures" / stack / f"{scenario}.json"
    records = records_from_json(json.loads(path.read_text()), str(path))
    assert records, f"{path}: no spans"
    assert isinstance(EXPECTED[held][stack][scenario], Scenario)
    assert EXPECTED[held][stack][scenario].agents, f"{stack}/{scenario}: expects no agent"


@pytest.mark.parametrize("held", sorted(SETS))
def test_every_file_is_expected_and_versioned(held: str) -> None:
    fixtures = TESTS / held / "fixtures"
    on_disk = {(p.parent.name, p.stem) for p in fixtures.glob("*/*.json") if p.stem != "versions"}
    assert on_disk == {(stack, scenario) for h, stack, scenario in CASES if h == held}
    for stack in EXPECTED[held]:
        versions = json.loads((fixtures / stack / "versions.json").read_text())
        assert versions["hand_built"] is False and versions["versions"], stack
        assert versions["recorded_by"] == f"fixtures/record/{held}/record_{stack}.py"


def ecosystem(held: str, stack: str) -> str:
    """Where a stack's app is written: the suffix of its `record_<stack>.*` app beside the
    recorder (node/record_ax.mjs, go/record_genkit_go.go, ...), or Python when the recorder is
    the app."""
    recorders = REPO / "fixtures" / "record" / held
    apps = [*recorders.glob(f"*/record_{stack}.*"), *recorders.glob(f"*/src/**/record_{stack}.*")]
    return min((app.suffix for app in apps), default=".py")


@pytest.mark.parametrize("held", sorted(SETS))
def test_each_set_has_enough_stacks_of_two_ecosystems(held: str) -> None:
    assert len(EXPECTED[held]) >= SETS[held]
    ecosystems = 1 if held in ONE_ECOSYSTEM else 2
    assert len({ecosystem(held, stack) for stack in EXPECTED[held]}) >= ecosystems, "ecosystems"


@pytest.mark.parametrize("share", ["heldout_fresh", "heldout_third", "heldout_fourth",
                                   "heldout_fifth", "heldout_sixth", "heldout_seventh",
                                   "heldout_eighth", "heldout_ninth", "heldout_tenth",
                                   "heldout_eleventh", "heldout_twelfth",
                                   "heldout_thirteenth", "heldout_fourteenth",
                                   "heldout_fifteenth", "heldout_sixteenth",
                                   "heldout_seventeenth", "heldout_eighteenth",
                                   "heldout_nineteenth", "heldout_twentieth",
                                   "heldout_twentyfirst", "heldout_twentysecond",
                                   "heldout_twentythird", "heldout_twentyfourth",
                                   "heldout_twentyfifth", "heldout_twentysixth",
                                   "heldout_twentyseventh", "heldout_twentyeighth",
                                   "heldout_twentyninth", "heldout_thirtieth",
                                   "heldout_thirtyfirst", "heldout_thirtysecond",
                                   "heldout_thirtythird", "heldout_thirtyfourth",
                                   "heldout_thirtyfifth"])
def test_a_later_share_repeats_no_recorded_stack(share: str) -> None:
    """Its stacks are in no other recorded set: not the in-repo fixtures, not the inference
    share, not another held-out set."""
    others = [TESTS / h / "fixtures" for h in SETS if h != share]
    others += [TESTS / "fixtures", TESTS / "inference_share" / "fixtures"]
    elsewhere = {p.name for d in others for p in d.iterdir() if p.is_dir()}
    assert not set(EXPECTED[share]) & elsewhere
