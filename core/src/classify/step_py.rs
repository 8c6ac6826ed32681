//! A Rust `Step` as the Python `semconv.step.Step` everything downstream reads (the assembler,
//! the judge, the state), and back (for the Python classifier's steps handed to the core's hooks
//! in tests). Built by one positional call of the dataclass, the class the caller hands in (the
//! core imports nothing from the package): it runs once per span.

use super::step::{Kind, Limit, Step};
use crate::span::Text;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple, PyType};
use pyo3::IntoPyObjectExt;

/// The interned Python constant of a kind (`"llm"`...): the same object every time.
fn kind_str(py: Python<'_>, kind: Kind) -> &Bound<'_, PyString> {
    match kind {
        Kind::Llm => pyo3::intern!(py, "llm"),
        Kind::Tool => pyo3::intern!(py, "tool"),
        Kind::Agent => pyo3::intern!(py, "agent"),
        Kind::Handoff => pyo3::intern!(py, "handoff"),
        Kind::Workflow => pyo3::intern!(py, "workflow"),
        Kind::Other => pyo3::intern!(py, "other"),
        Kind::Plan => pyo3::intern!(py, "plan"),
        Kind::Guardrail => pyo3::intern!(py, "guardrail"),
    }
}

fn limit_str(py: Python<'_>, limit: Limit) -> &Bound<'_, PyString> {
    match limit {
        Limit::MaxSteps => pyo3::intern!(py, "max_steps"),
        Limit::Timeout => pyo3::intern!(py, "timeout"),
    }
}

/// The Python Step of `step` (its `content` left None), an instance of `class`.
pub fn step_to_py<'py>(class: &Bound<'py, PyType>, step: &Step) -> PyResult<Bound<'py, PyAny>> {
    let py = class.py();
    fn any<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: T) -> PyResult<Bound<'py, PyAny>> {
        v.into_bound_py_any(py)
    }
    let args: [Bound<'py, PyAny>; 45] = [
        any(py, step.trace_id)?,
        any(py, step.span_id)?,
        any(py, step.parent_id)?,
        kind_str(py, step.kind).clone().into_any(),
        any(py, step.start_ns)?,
        any(py, step.end_ns)?,
        any(py, &step.fallback_agent)?,
        any(py, &step.agent)?,
        any(py, &step.tool)?,
        any(py, &step.model)?,
        any(py, &step.error)?,
        match step.limit {
            Some(limit) => limit_str(py, limit).clone().into_any(),
            None => py.None().into_bound(py),
        },
        any(py, &step.finish_reason)?,
        any(py, step.input_tokens)?,
        any(py, step.output_tokens)?,
        any(py, step.cost_usd)?,
        any(py, step.empty)?,
        any(py, &step.handoff_from)?,
        any(py, &step.handoff_to)?,
        any(py, step.handoff_tool)?,
        any(py, &step.handoff_hint)?,
        any(py, step.graph_candidate)?,
        any(py, &step.decision)?,
        PyTuple::new(py, &step.tool_definitions)?.into_any(),
        PyTuple::new(py, &step.requested_tools)?.into_any(),
        any(py, step.input_chars)?,
        PyTuple::new(py, &step.scores)?.into_any(),
        PyTuple::new(
            py,
            step.state_extra
                .iter()
                .map(|s| s.to_py(py))
                .collect::<PyResult<Vec<_>>>()?,
        )?
        .into_any(),
        any(py, &step.context)?,
        any(py, &step.resource_context)?,
        any(py, step.step_limit)?,
        any(py, step.turn)?,
        any(py, &step.version)?,
        any(py, &step.call_id)?,
        any(py, step.cost_amount)?,
        any(py, &step.cost_currency)?,
        any(py, step.turn_count)?,
        any(py, &step.fault)?,
        any(py, false)?, // event: the core classifies spans, never events
        any(py, "")?,    // inferred: set by Python's inference after the core's tables
        PyTuple::new(py, &step.skill_definitions)?.into_any(),
        any(py, &step.skill)?,
        any(py, step.skill_resource)?,
        any(py, None::<String>)?, // own_name: set by Python's inference
        any(py, step.settled)?,
    ];
    class.call1(PyTuple::new(py, args)?)
}

/// A Python Step as a Rust one (its `content` is not carried).
pub fn step_from_py(step: &Bound<'_, PyAny>) -> PyResult<Step> {
    fn get<'py, T: FromPyObjectOwned<'py>>(step: &Bound<'py, PyAny>, name: &str) -> PyResult<T> {
        step.getattr(name)?.extract().map_err(Into::into)
    }
    let kind: String = get(step, "kind")?;
    let limit: Option<String> = get(step, "limit")?;
    Ok(Step {
        trace_id: get(step, "trace_id")?,
        span_id: get(step, "span_id")?,
        parent_id: get(step, "parent_id")?,
        kind: Kind::parse(&kind).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!("not a step kind: {kind:?}"))
        })?,
        start_ns: get(step, "start_ns")?,
        end_ns: get(step, "end_ns")?,
        fallback_agent: get(step, "fallback_agent")?,
        agent: get(step, "agent")?,
        tool: get(step, "tool")?,
        model: get(step, "model")?,
        error: get(step, "error")?,
        limit: match limit {
            None => None,
            Some(text) => Some(Limit::parse(&text).ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!("not a limit: {text:?}"))
            })?),
        },
        finish_reason: get(step, "finish_reason")?,
        input_tokens: get(step, "input_tokens")?,
        output_tokens: get(step, "output_tokens")?,
        cost_usd: get(step, "cost_usd")?,
        empty: get(step, "empty")?,
        handoff_from: get(step, "handoff_from")?,
        handoff_to: get(step, "handoff_to")?,
        handoff_tool: get(step, "handoff_tool")?,
        handoff_hint: get(step, "handoff_hint")?,
        graph_candidate: get(step, "graph_candidate")?,
        decision: get(step, "decision")?,
        tool_definitions: get(step, "tool_definitions")?,
        requested_tools: get(step, "requested_tools")?,
        input_chars: get(step, "input_chars")?,
        scores: get(step, "scores")?,
        state_extra: step
            .getattr("state_extra")?
            .try_iter()?
            .map(|s| Text::from_py(s?.cast::<PyString>()?))
            .collect::<PyResult<_>>()?,
        context: get(step, "context")?,
        resource_context: get(step, "resource_context")?,
        step_limit: get(step, "step_limit")?,
        turn: get(step, "turn")?,
        version: get(step, "version")?,
        call_id: get(step, "call_id")?,
        cost_amount: get(step, "cost_amount")?,
        cost_currency: get(step, "cost_currency")?,
        turn_count: get(step, "turn_count")?,
        fault: get(step, "fault")?,
        skill_definitions: get(step, "skill_definitions")?,
        skill: get(step, "skill")?,
        skill_resource: get(step, "skill_resource")?,
        settled: get(step, "settled")?,
    })
}
