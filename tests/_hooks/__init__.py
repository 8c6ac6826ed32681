"""The oracle's family code: the Python reading of what the built-in tables cannot say, each
hook under the `code` name a table entry gives (`tests/_rule.py` runs them). The package runs
the core's (core/src/classify/hooks.rs), held equal to these by tests/test_core_fields.py and
tests/test_core_classifier.py; the test-span rule (`testspans`) likewise.
"""

from __future__ import annotations

from collections.abc import Mapping

from _rule import Hook

from . import (
    agent_framework,
    genai,
    haystack,
    llama_index,
    logfire,
    openinference,
    semantic_kernel,
    smolagents,
)

HOOKS: Mapping[str, Hook] = {
    "genai.agent": genai.agent,
    "genai.guardrail": genai.guardrail,
    "openinference.agent": openinference.agent,
    "openinference.chain": openinference.chain,
    "llama_index.turn": llama_index.turn,
    "smolagents.run": smolagents.run,
    "semantic_kernel.finish_reason": semantic_kernel.finish_reason,
    "semantic_kernel.transfer": semantic_kernel.transfer,
    "logfire.max_turns": logfire.max_turns,
    "agent_framework.edge": agent_framework.edge,
    "haystack.budget": haystack.budget,
    "llama_index.traceloop_turn": llama_index.traceloop_turn,
}
