//! What a file's trials add to each agent's state, summed per agent: state/facts.py's run facts
//! for every run, folded as state/coverage_state.py folds them, minus the caps (the caller
//! checks the totals fit under them, else reads the file the Python way). Tables keep the order
//! names were first seen in, as the per-run fold inserts them.

use std::collections::HashMap;

use indexmap::IndexMap;

use super::parse::{Kind, Parsed, Trial};
use crate::stable_hash::stable_hash_joined;

/// Boundary conditions (spec.CONDITIONS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Condition {
    MaxSteps,
    Timeout,
    CostLimit,
    EmptyInput,
    ErrorPath,
    ToolFailure,
}

impl Condition {
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "max_steps" => Condition::MaxSteps,
            "timeout" => Condition::Timeout,
            "cost_limit" => Condition::CostLimit,
            "empty_input" => Condition::EmptyInput,
            "error_path" => Condition::ErrorPath,
            "tool_failure" => Condition::ToolFailure,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Condition::MaxSteps => "max_steps",
            Condition::Timeout => "timeout",
            Condition::CostLimit => "cost_limit",
            Condition::EmptyInput => "empty_input",
            Condition::ErrorPath => "error_path",
            Condition::ToolFailure => "tool_failure",
        }
    }
}

/// What run_facts reads of one agent's spec.
pub struct AgentParams {
    pub by_tool: bool,
    pub max_depth: i64,
    pub restricted: Vec<bool>, // by name id
    pub max_steps: Option<i64>,
    pub timeout_s: Option<f64>,
    /// the cost condition for a run of no tokens and no cost (every trial run)
    pub cost_hit: bool,
    pub conditions: Vec<Condition>,
    pub max_path_samples: usize,
}

/// (end_ns, trial index): the order runs are sampled and remembered by.
pub type When = (i64, usize);

#[derive(Default)]
pub struct Version {
    pub first_ns: i64,
    pub runs: u64,
    pub passed: u64,
    pub tools: IndexMap<u32, u64>,
}

/// One agent's share of the file.
#[derive(Default)]
pub struct AgentFold {
    pub runs: u64,
    pub errors: u64,
    pub passed: u64,
    pub durations: Vec<f64>,
    /// (end_ns, trial, sorted tool names) per run, in file order
    pub tool_sets: Vec<(i64, usize, Vec<u32>)>,
    pub tools: IndexMap<u32, [u64; 2]>,
    /// per tool, [runs it failed in, of them the runs that ended without error] (state/faults.py)
    pub failed_tools: IndexMap<u32, [u64; 2]>,
    pub models: IndexMap<u32, u64>,
    pub paths: IndexMap<u64, u64>,
    /// the sampled paths (the earliest `max_path_samples` by first run): hash, first run,
    /// tokens
    pub samples: Vec<(u64, When, Vec<String>)>,
    pub states: IndexMap<u64, u64>,
    pub boundaries: IndexMap<Condition, u64>,
    pub restricted: IndexMap<(u32, bool), u64>,
    pub last_attempts: IndexMap<u32, Vec<When>>,
    pub versions: IndexMap<u32, Version>,
}

/// Restricted attempts remembered per tool (state/edges.py LAST_ATTEMPTS).
const LAST_ATTEMPTS: usize = 5;

/// A run's path tokens (facts.py `_path_token`) over `steps[:max_depth]` as Python slices it.
pub fn path_tokens<'a>(
    parsed: &'a Parsed,
    trial: &'a Trial,
    params: &AgentParams,
) -> impl Iterator<Item = (&'static str, Option<&'a str>)> + 'a {
    let len = trial.steps.len() as i64;
    let depth = if params.max_depth >= 0 {
        params.max_depth.min(len)
    } else {
        (len + params.max_depth).max(0)
    };
    let by_tool = params.by_tool;
    trial.steps[..depth as usize]
        .iter()
        .map(move |step| match (step.kind, by_tool) {
            (Kind::Tool, true) => ("tool:", Some(parsed.names.get(step.subject.unwrap_or(0)))),
            (Kind::Tool, false) => ("tool", None),
            (Kind::Llm, _) => ("llm", None),
        })
}

/// The path tokens joined by U+001F (what `stable_hash` hashes), into `out`.
fn joined_path(parsed: &Parsed, trial: &Trial, params: &AgentParams, out: &mut String) {
    out.clear();
    for (i, (word, name)) in path_tokens(parsed, trial, params).enumerate() {
        if i > 0 {
            out.push('\x1f');
        }
        out.push_str(word);
        out.push_str(name.unwrap_or(""));
    }
}

/// Fold every trial of an agent in `params` into that agent's share.
pub fn fold(parsed: &Parsed, params: &HashMap<u32, AgentParams>) -> IndexMap<u32, AgentFold> {
    let mut out: IndexMap<u32, AgentFold> = IndexMap::new();
    let mut firsts: HashMap<u32, IndexMap<u64, (When, usize)>> = HashMap::new();
    let mut joined = String::new();
    for (n, trial) in parsed.trials.iter().enumerate() {
        let Some(p) = params.get(&trial.agent) else {
            continue;
        };
        let agg = out.entry(trial.agent).or_default();
        let when: When = (trial.end_ns, n);
        let mut calls: IndexMap<(u32, bool), u64> = IndexMap::new();
        let mut attempts: IndexMap<(u32, bool), u64> = IndexMap::new();
        let mut models: IndexMap<u32, u64> = IndexMap::new();
        let (mut llm_calls, mut llm_failed, mut tool_failed) = (0i64, false, false);
        for step in &trial.steps {
            match step.kind {
                Kind::Tool => {
                    let Some(tool) = step.subject else { continue };
                    *calls.entry((tool, step.failed)).or_default() += 1;
                    tool_failed |= step.failed;
                    if p.restricted.get(tool as usize).copied().unwrap_or(false) {
                        *attempts.entry((tool, step.failed)).or_default() += 1;
                    }
                }
                Kind::Llm => {
                    llm_calls += 1;
                    llm_failed |= step.failed;
                    if let Some(model) = step.subject {
                        *models.entry(model).or_default() += 1;
                    }
                }
            }
        }
        if let Some(model) = trial.model {
            *models.entry(model).or_default() += 1;
        }
        let passed = !trial.errored && attempts.is_empty();
        let duration_s = trial.end_ns.max(0) as f64 / 1e9;
        // outcomes
        agg.runs += 1;
        agg.errors += u64::from(trial.errored);
        agg.passed += u64::from(passed);
        agg.durations.push(duration_s);
        // inventory
        let mut called: Vec<u32> = Vec::new();
        for (&(tool, failed), &count) in &calls {
            agg.tools.entry(tool).or_default()[usize::from(failed)] += count;
            if failed {
                let row = agg.failed_tools.entry(tool).or_default();
                row[0] += 1;
                row[1] += u64::from(!trial.errored);
            }
            if !called.contains(&tool) {
                called.push(tool);
            }
        }
        called.sort_by(|a, b| parsed.names.get(*a).cmp(parsed.names.get(*b)));
        agg.tool_sets.push((trial.end_ns, n, called));
        for (&model, &count) in &models {
            *agg.models.entry(model).or_default() += count;
        }
        // diversity
        joined_path(parsed, trial, p, &mut joined);
        let key = stable_hash_joined(&joined);
        *agg.paths.entry(key).or_default() += 1;
        let first = firsts
            .entry(trial.agent)
            .or_default()
            .entry(key)
            .or_insert((when, n));
        if when < first.0 {
            *first = (when, n);
        }
        for step in &trial.steps {
            *agg.states.entry(step.state_hash).or_default() += 1;
        }
        // edges
        for condition in &p.conditions {
            let hit = match condition {
                Condition::MaxSteps => {
                    trial.max_steps || p.max_steps.is_some_and(|m| llm_calls >= m)
                }
                Condition::Timeout => trial.timeout || p.timeout_s.is_some_and(|t| duration_s >= t),
                Condition::CostLimit => p.cost_hit,
                Condition::EmptyInput => false, // trials carry no input size
                Condition::ErrorPath => trial.errored || llm_failed,
                Condition::ToolFailure => tool_failed,
            };
            if hit {
                *agg.boundaries.entry(*condition).or_default() += 1;
            }
        }
        for (&(tool, failed), &count) in &attempts {
            *agg.restricted.entry((tool, failed)).or_default() += count;
            let kept = agg.last_attempts.entry(tool).or_default();
            if !kept.contains(&when) {
                kept.push(when);
                kept.sort_unstable();
                if kept.len() > LAST_ATTEMPTS {
                    kept.remove(0);
                }
            }
        }
        // versions
        if let Some(version) = trial.version {
            let entry = agg.versions.entry(version).or_insert_with(|| Version {
                first_ns: trial.end_ns,
                ..Version::default()
            });
            entry.first_ns = entry.first_ns.min(trial.end_ns);
            entry.runs += 1;
            entry.passed += u64::from(passed);
            for (&(tool, _), &count) in &calls {
                *entry.tools.entry(tool).or_default() += count;
            }
        }
    }
    // the path sample: the earliest paths by (first run, hash), as state/diversity.py keeps them
    for (agent, agg) in &mut out {
        let Some(p) = params.get(agent) else { continue };
        let mut sample: Vec<(u64, (When, usize))> = firsts
            .remove(agent)
            .unwrap_or_default()
            .into_iter()
            .collect();
        sample.sort_unstable_by_key(|&(key, (when, _))| (when, key));
        sample.truncate(p.max_path_samples);
        agg.samples = sample
            .into_iter()
            .map(|(key, (when, n))| {
                let tokens = path_tokens(parsed, &parsed.trials[n], p)
                    .map(|(word, name)| format!("{word}{}", name.unwrap_or("")))
                    .collect();
                (key, when, tokens)
            })
            .collect();
    }
    out
}
