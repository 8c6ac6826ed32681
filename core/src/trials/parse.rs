//! AgentAssay trials JSON (readers/trials.py) -> compact trials, in one pass over the bytes.
//!
//! This is the fast path of the Python reader, for the shapes trial files have: each trial's
//! agent, version, end time, error and its tool / model-call steps, already reduced to what the
//! state folds (interned names, a failed flag, the step's state hash). Anything else (a field of
//! an unexpected type, a step the span route must classify, a negative duration, malformed
//! JSON) makes `parse` give up, and the caller reads the file with the Python reader, which
//! gives the answer or the error message. So this never has to reproduce an error, only the
//! result of a file Python reads without one.

use std::borrow::Cow;
use std::fmt;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::convert::convert;
use super::raw::{give_up, other_values, Key, RawTrace, Scalar, TraceValue, TRACE_KEYS};

/// AgentAssay's TrialResult fields, plus the trial's agent name (readers/trials.py).
const TRIAL_KEYS: [&str; 9] = [
    "trial_id",
    "scenario_id",
    "trace",
    "passed",
    "score",
    "evaluation_details",
    "timestamp",
    "agent",
    "agent_name",
];

/// Interned names: tools, models, agents, versions.
#[derive(Default)]
pub struct Names {
    ids: HashMap<String, u32>,
    pub list: Vec<String>,
}

impl Names {
    pub fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        self.ids.insert(name.to_owned(), id);
        self.list.push(name.to_owned());
        id
    }

    pub fn get(&self, id: u32) -> &str {
        self.list.get(id as usize).map_or("", String::as_str)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Llm,
    Tool,
}

/// One tool or model-call step, as the state folds it.
pub struct Step {
    pub kind: Kind,
    /// the tool, or the model (None: the call named no model)
    pub subject: Option<u32>,
    pub failed: bool,
    pub state_hash: u64,
}

/// One trial's agent run.
pub struct Trial {
    pub agent: u32,
    pub version: Option<u32>,
    /// the trace-level model, when no model-call step names it
    pub model: Option<u32>,
    pub end_ns: i64,
    pub errored: bool,
    pub max_steps: bool,
    pub timeout: bool,
    pub steps: Vec<Step>,
}

/// Spans a trial stands for, by kind (the report's span counts).
#[derive(Default)]
pub struct Kinds {
    pub agent: u64,
    pub llm: u64,
    pub tool: u64,
    pub other: u64,
}

pub struct Config<'c> {
    pub state_attributes: &'c [String],
    pub max_spans: usize,
}

/// A whole file, read.
#[derive(Default)]
pub struct Parsed {
    pub names: Names,
    pub trials: Vec<Trial>,
    pub kinds: Kinds,
    /// ("label.key", where first seen) of keys the reader does not read
    pub unknown: Vec<(String, String)>,
    pub(super) unknown_seen: HashSet<String>,
    /// distinct (action, error) of steps that are neither tool nor model calls: Python decides
    /// whether the span route would classify them as something
    pub others: Vec<(Option<String>, Option<String>)>,
    pub(super) others_seen: HashSet<(Option<String>, Option<String>)>,
    /// distinct tool names
    pub tools: Vec<u32>,
    pub(super) tools_seen: HashSet<u32>,
    pub(super) state_hashes: HashMap<(Kind, Option<u32>, bool), u64>,
    /// what offline.py `input_kind` reads of the document: its keys when it is an object, its
    /// `format` string, and whether it is a list whose every trial has Zipkin's `traceId` and
    /// `id`
    pub doc_keys: Option<Vec<String>>,
    pub format: Option<String>,
    pub zipkin_keys: bool,
    pub(super) all_zipkin_keys: bool,
}

/// The file's trials, or None when the Python reader must read it.
pub fn parse(data: &[u8], config: &Config<'_>) -> Option<Parsed> {
    let data = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
    let mut parsed = Parsed::default();
    let mut de = serde_json::Deserializer::from_slice(data);
    DocSeed {
        parsed: &mut parsed,
        config,
    }
    .deserialize(&mut de)
    .ok()?;
    de.end().ok()?;
    Some(parsed)
}

/// The whole document: a list of trials, or an object holding them under `results`/`trials`.
struct DocSeed<'p, 'c> {
    parsed: &'p mut Parsed,
    config: &'p Config<'c>,
}

impl<'de> DeserializeSeed<'de> for DocSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DocSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("trials")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.parsed.all_zipkin_keys = true;
        read_trials(self.parsed, self.config, "", seq)?;
        self.parsed.zipkin_keys = self.parsed.all_zipkin_keys && !self.parsed.trials.is_empty();
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut found = false;
        let mut keys = Vec::new();
        while let Some(Key(key)) = map.next_key()? {
            keys.push(key.clone().into_owned());
            if key == "format" {
                if let Scalar::Str(format) = map.next_value()? {
                    self.parsed.format = Some(format.into_owned());
                }
            } else if key == "results" || key == "trials" {
                if found {
                    return Err(give_up()); // which list Python reads: leave it to Python
                }
                found = map.next_value_seed(TrialsSeed {
                    parsed: &mut *self.parsed,
                    config: self.config,
                    key: &key,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        self.parsed.doc_keys = Some(keys);
        if found {
            Ok(())
        } else {
            Err(give_up())
        }
    }
}

/// The value of `results` / `trials`: true when it was the list of trials.
struct TrialsSeed<'p, 'c, 'k> {
    parsed: &'p mut Parsed,
    config: &'p Config<'c>,
    key: &'k str,
}

impl<'de> DeserializeSeed<'de> for TrialsSeed<'_, '_, '_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TrialsSeed<'_, '_, '_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of trials")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        read_trials(self.parsed, self.config, self.key, seq).map(|()| true)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    other_values!(bool, Ok(false));
}

fn read_trials<'de, A: SeqAccess<'de>>(
    parsed: &mut Parsed,
    config: &Config<'_>,
    key: &str,
    mut seq: A,
) -> Result<(), A::Error> {
    let mut n = 0usize;
    while let Some(()) = seq.next_element_seed(TrialSeed {
        parsed: &mut *parsed,
        config,
        key,
        n,
    })? {
        n += 1;
    }
    Ok(())
}

/// One trial object, read and converted.
struct TrialSeed<'p, 'c, 'k> {
    parsed: &'p mut Parsed,
    config: &'p Config<'c>,
    key: &'k str,
    n: usize,
}

impl<'de> DeserializeSeed<'de> for TrialSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        // a trial that is not an object is an error the Python reader words
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TrialSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a trial object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // Whether the object is a TrialResult (with `trace`) or a bare trace is known only at
        // its end: read it both ways, then use the one it is.
        let mut nested: Option<RawTrace<'de>> = None;
        let mut bare = RawTrace::default();
        let mut trial_unknown: Vec<Cow<'de, str>> = Vec::new();
        let (mut agent, mut agent_name) = (Scalar::Absent, Scalar::Absent);
        let (mut trace_id_key, mut id_key) = (false, false);
        while let Some(Key(key)) = map.next_key()? {
            trace_id_key |= key == "traceId";
            id_key |= key == "id";
            if !TRIAL_KEYS.contains(&key.as_ref()) {
                trial_unknown.push(key.clone());
            }
            match key.as_ref() {
                "trace" => nested = map.next_value::<TraceValue<'de>>()?.0,
                "agent" => agent = map.next_value()?,
                "agent_name" => agent_name = map.next_value()?,
                k => {
                    if !bare.field(k, &mut map)? {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            if !TRACE_KEYS.contains(&key.as_ref()) {
                bare.unknown.push(key);
            }
        }
        let where_ = || format!("{}[{}]", self.key, self.n);
        let parsed = self.parsed;
        parsed.all_zipkin_keys &= trace_id_key && id_key;
        let (trace, trial_agent) = match nested {
            Some(trace) => {
                for key in &trial_unknown {
                    note_unknown(parsed, "trial", key, &where_);
                }
                // `agent or agent_name`: a string (or nothing), else Python reports it
                let first = agent.truthy_str().ok_or_else(give_up)?;
                let value = match first {
                    Some(name) => Some(name.to_owned()),
                    None => agent_name
                        .truthy_str()
                        .ok_or_else(give_up)?
                        .map(str::to_owned),
                };
                (trace, value)
            }
            None => (bare, None),
        };
        for key in &trace.unknown {
            note_unknown(parsed, "trace", key, &where_);
        }
        let trial = convert(parsed, self.config, &trace, trial_agent.as_deref(), &where_)?;
        parsed.trials.push(trial);
        Ok(())
    }
}

pub(super) fn note_unknown(
    parsed: &mut Parsed,
    label: &str,
    key: &str,
    where_: &dyn Fn() -> String,
) {
    let name = format!("{label}.{key}");
    if parsed.unknown_seen.insert(name.clone()) {
        parsed.unknown.push((name, where_()));
    }
}
