//! AgentAssay trial files, read and folded in Rust (docs/core.md): `parse_trials` reads a file's
//! bytes with the GIL released and gives a `TrialFile`, or None when the Python reader must read
//! it (an unusual shape, or an error it words); `TrialFile.fold` gives each agent's share of the
//! state, which state/trial_fold.py adds to the CoverageState.

mod convert;
mod fold;
mod parse;
mod raw;

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::door::door;
use fold::{AgentFold, AgentParams, Condition};
use parse::{Config, Parsed};

/// A trials file read by `parse_trials`: its runs reduced to names, counts and hashes.
#[pyclass(module = "otel_agentcov._core", frozen)]
pub struct TrialFile {
    parsed: Parsed,
}

/// The trials in `data`, or None when the Python reader must read them.
#[pyfunction]
fn parse_trials(
    py: Python<'_>,
    data: &[u8],
    state_attributes: Vec<String>,
    max_spans: usize,
) -> PyResult<Option<TrialFile>> {
    door(|| {
        let config = Config {
            state_attributes: &state_attributes,
            max_spans,
        };
        let parsed = py.detach(|| parse::parse(data, &config));
        Ok(parsed.map(|parsed| TrialFile { parsed }))
    })
}

/// What `fold` takes per agent: (granularity is tool, max depth, restricted tool names, max
/// steps, timeout in s, cost condition hit, enabled conditions, path samples kept).
type Params = (
    bool,
    i64,
    Vec<String>,
    Option<i64>,
    Option<f64>,
    bool,
    Vec<String>,
    usize,
);

/// What `doc_shape` gives: (the document's keys, its `format`, whether it reads as Zipkin).
type DocShape<'a> = (Option<Vec<&'a str>>, Option<&'a str>, bool);

#[pymethods]
impl TrialFile {
    fn __len__(&self) -> PyResult<usize> {
        door(|| Ok(self.parsed.trials.len()))
    }

    /// The agents of the runs, in first-seen order.
    fn agents(&self) -> PyResult<Vec<&str>> {
        door(|| {
            let mut seen = vec![false; self.parsed.names.list.len()];
            let mut agents = Vec::new();
            for trial in &self.parsed.trials {
                if let Some(slot) = seen.get_mut(trial.agent as usize) {
                    if !*slot {
                        *slot = true;
                        agents.push(self.parsed.names.get(trial.agent));
                    }
                }
            }
            Ok(agents)
        })
    }

    /// What `input_kind` reads of the document: (its keys when it is an object, its `format`
    /// string, whether it is a list of objects that all have `traceId` and `id`).
    fn doc_shape(&self) -> PyResult<DocShape<'_>> {
        door(|| {
            let p = &self.parsed;
            let keys = p
                .doc_keys
                .as_ref()
                .map(|keys| keys.iter().map(String::as_str).collect());
            Ok((keys, p.format.as_deref(), p.zipkin_keys))
        })
    }

    /// The tool names called, each once.
    fn tools(&self) -> PyResult<Vec<&str>> {
        door(|| {
            let names = &self.parsed.names;
            Ok(self.parsed.tools.iter().map(|&id| names.get(id)).collect())
        })
    }

    /// (action, error) of each distinct step that is neither a tool nor a model call, as the
    /// file gives them (None: absent or blank).
    fn other_steps(&self) -> PyResult<Vec<(Option<&str>, Option<&str>)>> {
        door(|| {
            let others = self.parsed.others.iter();
            Ok(others.map(|(a, e)| (a.as_deref(), e.as_deref())).collect())
        })
    }

    /// ("label.key", where first seen) of every key the reader does not read.
    fn unknown_keys(&self) -> PyResult<Vec<(&str, &str)>> {
        door(|| {
            let unknown = self.parsed.unknown.iter();
            Ok(unknown.map(|(k, w)| (k.as_str(), w.as_str())).collect())
        })
    }

    /// Spans the trials stand for, by kind.
    fn kinds(&self) -> PyResult<Vec<(&'static str, u64)>> {
        door(|| {
            let k = &self.parsed.kinds;
            Ok(vec![
                ("agent", k.agent),
                ("llm", k.llm),
                ("tool", k.tool),
                ("other", k.other),
            ])
        })
    }

    /// Each agent's share of the state, for the agents in `params` (see state/trial_fold.py);
    /// trace ids are `trace_base` + the trial's index.
    fn fold<'py>(
        &self,
        py: Python<'py>,
        params: HashMap<String, Params>,
        trace_base: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        door(|| {
            let names = &self.parsed.names;
            let mut by_id = HashMap::new();
            for (agent, p) in params {
                let mut restricted = vec![false; names.list.len()];
                for tool in &p.2 {
                    if let Some(id) = names.list.iter().position(|n| n == tool) {
                        restricted[id] = true;
                    }
                }
                let conditions = p
                    .6
                    .iter()
                    .map(|c| Condition::from_name(c))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("unknown condition"))?;
                let Some(id) = names.list.iter().position(|n| *n == agent) else {
                    continue;
                };
                by_id.insert(
                    u32::try_from(id).unwrap_or(u32::MAX),
                    AgentParams {
                        by_tool: p.0,
                        max_depth: p.1,
                        restricted,
                        max_steps: p.3,
                        timeout_s: p.4,
                        cost_hit: p.5,
                        conditions,
                        max_path_samples: p.7,
                    },
                );
            }
            let folds = py.detach(|| fold::fold(&self.parsed, &by_id));
            let out = PyDict::new(py);
            let mut strings = Strings::new(py, &self.parsed);
            for (agent, agg) in &folds {
                out.set_item(
                    strings.get(*agent),
                    agent_dict(py, agg, &mut strings, &trace_base)?,
                )?;
            }
            Ok(out)
        })
    }
}

/// Python strings for interned names, made once each.
struct Strings<'py> {
    py: Python<'py>,
    cache: Vec<Option<Bound<'py, PyString>>>,
    names: &'py [String],
}

impl<'py> Strings<'py> {
    fn new(py: Python<'py>, parsed: &'py Parsed) -> Self {
        Strings {
            py,
            cache: vec![None; parsed.names.list.len()],
            names: &parsed.names.list,
        }
    }

    fn get(&mut self, id: u32) -> Bound<'py, PyString> {
        let i = id as usize;
        if let Some(Some(s)) = self.cache.get(i) {
            return s.clone();
        }
        let s = PyString::new(self.py, self.names.get(i).map_or("", String::as_str));
        if let Some(slot) = self.cache.get_mut(i) {
            *slot = Some(s.clone());
        }
        s
    }
}

fn agent_dict<'py>(
    py: Python<'py>,
    agg: &AgentFold,
    strings: &mut Strings<'py>,
    trace_base: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let when = |end: i64, n: usize| -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, [end.into_pyobject(py)?.into_any(), trace_base.add(n)?])
    };
    d.set_item("runs", agg.runs)?;
    d.set_item("errors", agg.errors)?;
    d.set_item("passed", agg.passed)?;
    d.set_item("durations", PyList::new(py, &agg.durations)?)?;
    let tool_sets = PyList::empty(py);
    for (end, n, tools) in &agg.tool_sets {
        let names = PyTuple::new(py, tools.iter().map(|&t| strings.get(t)))?;
        tool_sets.append(PyTuple::new(
            py,
            [
                end.into_pyobject(py)?.into_any(),
                trace_base.add(*n)?,
                names.into_any(),
            ],
        )?)?;
    }
    d.set_item("tool_sets", tool_sets)?;
    let tools = PyDict::new(py);
    for (&tool, counts) in &agg.tools {
        tools.set_item(strings.get(tool), PyList::new(py, counts)?)?;
    }
    d.set_item("tools", tools)?;
    let models = PyDict::new(py);
    for (&model, &n) in &agg.models {
        models.set_item(strings.get(model), n)?;
    }
    d.set_item("models", models)?;
    let paths = PyDict::new(py);
    for (&key, &n) in &agg.paths {
        paths.set_item(key, n)?;
    }
    d.set_item("paths", paths)?;
    let (path_tokens, path_first) = (PyDict::new(py), PyDict::new(py));
    for (key, (end, first), tokens) in &agg.samples {
        path_tokens.set_item(key, PyTuple::new(py, tokens)?)?;
        path_first.set_item(key, when(*end, *first)?)?;
    }
    d.set_item("path_tokens", path_tokens)?;
    d.set_item("path_first", path_first)?;
    let states = PyDict::new(py);
    for (&key, &n) in &agg.states {
        states.set_item(key, n)?;
    }
    d.set_item("states", states)?;
    let boundaries = PyDict::new(py);
    for (condition, &n) in &agg.boundaries {
        boundaries.set_item(condition.name(), n)?;
    }
    d.set_item("boundaries", boundaries)?;
    let restricted = PyDict::new(py);
    for (&(tool, failed), &n) in &agg.restricted {
        let outcome = if failed { "failed" } else { "executed" };
        restricted.set_item((strings.get(tool), outcome), n)?;
    }
    d.set_item("restricted", restricted)?;
    let failed_tools = PyDict::new(py);
    for (&tool, &[failed, recovered]) in &agg.failed_tools {
        failed_tools.set_item(strings.get(tool), [failed, recovered])?;
    }
    d.set_item("failed_tools", failed_tools)?;
    let last_attempts = PyDict::new(py);
    for (&tool, attempts) in &agg.last_attempts {
        let list = PyList::empty(py);
        for &(end, n) in attempts {
            list.append(when(end, n)?)?;
        }
        last_attempts.set_item(strings.get(tool), list)?;
    }
    d.set_item("last_attempts", last_attempts)?;
    let versions = PyDict::new(py);
    for (&version, v) in &agg.versions {
        let tools = PyDict::new(py);
        for (&tool, &n) in &v.tools {
            tools.set_item(strings.get(tool), n)?;
        }
        versions.set_item(strings.get(version), (v.first_ns, v.runs, v.passed, tools))?;
    }
    d.set_item("versions", versions)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TrialFile>()?;
    m.add_function(wrap_pyfunction!(parse_trials, m)?)?;
    Ok(())
}
