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

use crate::classify::errors::{error_limit, short_error_name};
use crate::classify::fields::is_handoff_tool;
use crate::classify::step::Limit;
use crate::classify::values::{PLACEHOLDER_AGENT_NAMES, PLACEHOLDER_MODELS, PLACEHOLDER_TOOLS};
use crate::pystr::{self, MAX_NAME_CHARS};
use crate::stable_hash::stable_hash;

/// AgentAssay's TrialResult, ExecutionTrace and StepTrace fields (readers/trials.py).
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
const TRACE_KEYS: [&str; 13] = [
    "trace_id",
    "scenario_id",
    "steps",
    "input_data",
    "output_data",
    "success",
    "error",
    "total_duration_ms",
    "total_cost_usd",
    "model",
    "framework",
    "timestamp",
    "metadata",
];
const STEP_KEYS: [&str; 12] = [
    "step_id",
    "step_index",
    "action",
    "tool_name",
    "tool_input",
    "tool_output",
    "llm_input",
    "llm_output",
    "model",
    "timestamp",
    "duration_ms",
    "metadata",
];
/// readers/trial_runs.py's action words.
const LLM_ACTIONS: [&str; 5] = ["llm_response", "llm_call", "llm", "generation", "chat"];
const TOOL_ACTIONS: [&str; 3] = ["tool_call", "tool", "tool_use"];
const DEFAULT_AGENT: &str = "agent";
/// Times past this many ns are left to Python's unbounded ints.
const MAX_NS: i64 = 1 << 62;

/// Why the fast path gave up; never shown (the Python reader reads the file instead).
const GIVE_UP: &str = "not a plain trials file";

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
    unknown_seen: HashSet<String>,
    /// distinct (action, error) of steps that are neither tool nor model calls: Python decides
    /// whether the span route would classify them as something
    pub others: Vec<(Option<String>, Option<String>)>,
    others_seen: HashSet<(Option<String>, Option<String>)>,
    /// distinct tool names
    pub tools: Vec<u32>,
    tools_seen: HashSet<u32>,
    state_hashes: HashMap<(Kind, Option<u32>, bool), u64>,
    /// what offline.py `input_kind` reads of the document: its keys when it is an object, its
    /// `format` string, and whether it is a list whose every trial has Zipkin's `traceId` and
    /// `id`
    pub doc_keys: Option<Vec<String>>,
    pub format: Option<String>,
    pub zipkin_keys: bool,
    all_zipkin_keys: bool,
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

fn give_up<E: de::Error>() -> E {
    E::custom(GIVE_UP)
}

/// common.clip, borrowed.
fn clip(name: &str) -> &str {
    pystr::prefix(name, MAX_NAME_CHARS)
}

/// The `visit_*` of the JSON scalars (and, with `seq`, lists: their items are skipped), each
/// giving `$value`: for values read only when they are objects.
macro_rules! other_values {
    ($ty:ty, $value:expr) => {
        fn visit_unit<E: de::Error>(self) -> Result<$ty, E> {
            $value
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$ty, E> {
            $value
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$ty, E> {
            $value
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$ty, E> {
            $value
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$ty, E> {
            $value
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<$ty, E> {
            $value
        }
    };
    ($ty:ty, $value:expr, seq) => {
        other_values!($ty, $value);
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<$ty, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            $value
        }
    };
}

/// A key, borrowed from the input when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Any JSON value, kept only as far as the reader looks at it.
#[derive(Default)]
enum Scalar<'de> {
    #[default]
    Absent,
    Null,
    Bool(bool),
    Num(f64),
    Str(Cow<'de, str>),
    Other,
}

impl<'de> de::Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Null)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Bool(v))
            }
            // Python's float(int) rounds to nearest, ties to even, as `as f64` does
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Num(v))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Scalar<'de> {
    /// A field read as an optional string: Some("") is falsy in Python but still a string.
    /// Other types: None from the outer Option (give up).
    fn opt_str(&self) -> Option<Option<&str>> {
        match self {
            Scalar::Absent | Scalar::Null => Some(None),
            Scalar::Str(s) => Some(Some(s)),
            _ => None,
        }
    }

    /// `x or y` over optional strings: the first non-empty one, else None.
    fn truthy_str(&self) -> Option<Option<&str>> {
        self.opt_str().map(|s| s.filter(|s| !s.is_empty()))
    }

    /// `int(float(x or 0.0) * 1e6)`: a duration in ms as ns; None to give up.
    fn duration_ns(&self) -> Option<i64> {
        let ms = match self {
            Scalar::Absent | Scalar::Null | Scalar::Bool(false) => return Some(0),
            Scalar::Bool(true) => 1.0,
            Scalar::Num(v) => *v,
            _ => return None,
        };
        let ns = ms * 1e6;
        if !ns.is_finite() || ns.abs() >= MAX_NS as f64 {
            return None;
        }
        Some(ns.trunc() as i64)
    }
}

/// A `metadata` object's fields the reader reads; anything but an object reads as empty, as
/// `_get` on a non-mapping does.
#[derive(Default)]
struct Meta<'de> {
    agent: Scalar<'de>,
    agent_name: Scalar<'de>,
    version: Scalar<'de>,
    agent_version: Scalar<'de>,
    error: Scalar<'de>,
}

impl<'de> de::Deserialize<'de> for Meta<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Meta<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Meta<'de>, A::Error> {
                let mut meta = Meta::default();
                while let Some(Key(key)) = map.next_key()? {
                    let slot = match key.as_ref() {
                        "agent" => &mut meta.agent,
                        "agent_name" => &mut meta.agent_name,
                        "version" => &mut meta.version,
                        "agent_version" => &mut meta.agent_version,
                        "error" => &mut meta.error,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = map.next_value()?;
                }
                Ok(meta)
            }
            other_values!(Meta<'de>, Ok(Meta::default()), seq);
        }
        d.deserialize_any(V)
    }
}

/// One step object's fields; `None` for a step that is not an object.
#[derive(Default)]
struct RawStep<'de> {
    action: Scalar<'de>,
    tool: Scalar<'de>,
    model: Scalar<'de>,
    duration: Scalar<'de>,
    error: Scalar<'de>,
    unknown: Vec<Cow<'de, str>>,
}

struct StepValue<'de>(Option<RawStep<'de>>);

impl<'de> de::Deserialize<'de> for StepValue<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StepValue<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a step object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StepValue<'de>, A::Error> {
                let mut step = RawStep::default();
                while let Some(Key(key)) = map.next_key()? {
                    match key.as_ref() {
                        "action" => step.action = map.next_value()?,
                        "tool_name" => step.tool = map.next_value()?,
                        "model" => step.model = map.next_value()?,
                        "duration_ms" => step.duration = map.next_value()?,
                        "metadata" => step.error = map.next_value::<Meta<'de>>()?.error,
                        k => {
                            if !STEP_KEYS.contains(&k) {
                                step.unknown.push(key);
                            }
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(StepValue(Some(step)))
            }
            other_values!(StepValue<'de>, Ok(StepValue(None)), seq);
        }
        d.deserialize_any(V)
    }
}

/// `steps`: Some(list) when it is a list.
struct Steps<'de>(Option<Vec<Option<RawStep<'de>>>>);

impl<'de> de::Deserialize<'de> for Steps<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Steps<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of steps")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Steps<'de>, A::Error> {
                let mut steps = Vec::with_capacity(seq.size_hint().unwrap_or(16));
                while let Some(StepValue(step)) = seq.next_element()? {
                    steps.push(step);
                }
                Ok(Steps(Some(steps)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Steps<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Steps(None))
            }
            other_values!(Steps<'de>, Ok(Steps(None)));
        }
        d.deserialize_any(V)
    }
}

/// An ExecutionTrace's fields (nested under `trace`, or the trial itself when it has none).
#[derive(Default)]
struct RawTrace<'de> {
    steps: Option<Steps<'de>>,
    meta: Meta<'de>,
    error: Scalar<'de>,
    success_false: bool,
    total: Scalar<'de>,
    cost: Scalar<'de>,
    model: Scalar<'de>,
    unknown: Vec<Cow<'de, str>>,
}

impl<'de> RawTrace<'de> {
    /// Read the value of `key` if it is a trace field; false when it is not one.
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "steps" => self.steps = Some(map.next_value()?),
            "metadata" => self.meta = map.next_value()?,
            "error" => self.error = map.next_value()?,
            "success" => self.success_false = matches!(map.next_value()?, Scalar::Bool(false)),
            "total_duration_ms" => self.total = map.next_value()?,
            "total_cost_usd" => self.cost = map.next_value()?,
            "model" => self.model = map.next_value()?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

struct TraceValue<'de>(Option<RawTrace<'de>>);

impl<'de> de::Deserialize<'de> for TraceValue<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TraceValue<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a trace object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TraceValue<'de>, A::Error> {
                let mut trace = RawTrace::default();
                while let Some(Key(key)) = map.next_key()? {
                    if !trace.field(&key, &mut map)? {
                        if !TRACE_KEYS.contains(&key.as_ref()) {
                            trace.unknown.push(key);
                        }
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(TraceValue(Some(trace)))
            }
            // anything else: the Python reader reports it
            other_values!(TraceValue<'de>, Err(give_up()), seq);
        }
        d.deserialize_any(V)
    }
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

fn note_unknown(parsed: &mut Parsed, label: &str, key: &str, where_: &dyn Fn() -> String) {
    let name = format!("{label}.{key}");
    if parsed.unknown_seen.insert(name.clone()) {
        parsed.unknown.push((name, where_()));
    }
}

fn lower_action(action: &Scalar<'_>) -> Option<String> {
    // `str(action).strip().lower() if action else ""`; only ASCII can spell an action word
    Some(match action.truthy_str()? {
        Some(a) => pystr::strip(a).to_ascii_lowercase(),
        None => String::new(),
    })
}

/// readers/trial_runs.py's `trace_to_runs` for one trace, or give up where it would take
/// another route or raise.
fn convert<E: de::Error>(
    parsed: &mut Parsed,
    config: &Config<'_>,
    trace: &RawTrace<'_>,
    trial_agent: Option<&str>,
    where_: &dyn Fn() -> String,
) -> Result<Trial, E> {
    let Some(Steps(Some(raw_steps))) = &trace.steps else {
        return Err(give_up());
    };
    // the agent: the trial's, else the trace metadata's `agent`, `agent_name`, else "agent"
    let name = match trial_agent {
        Some(name) => name,
        None => match trace.meta.agent.truthy_str().ok_or_else(give_up)? {
            Some(name) => name,
            None => trace
                .meta
                .agent_name
                .truthy_str()
                .ok_or_else(give_up)?
                .unwrap_or(DEFAULT_AGENT),
        },
    };
    if raw_steps.len() >= config.max_spans {
        return Err(give_up());
    }
    let agent = clip(name);
    if PLACEHOLDER_AGENT_NAMES.contains(&agent) {
        return Err(give_up());
    }
    let mut clock: i64 = 1;
    let mut steps = Vec::with_capacity(raw_steps.len());
    let (mut max_steps, mut timeout) = (false, false);
    for (i, raw) in raw_steps.iter().enumerate() {
        let Some(raw) = raw else {
            return Err(give_up());
        };
        for key in &raw.unknown {
            note_unknown(parsed, "step", key, &|| {
                format!("{}.trace.steps[{i}]", where_())
            });
        }
        let action = lower_action(&raw.action).ok_or_else(give_up)?;
        let duration = raw.duration.duration_ns().ok_or_else(give_up)?;
        let error = raw.error.truthy_str().ok_or_else(give_up)?;
        let tool = raw.tool.opt_str().ok_or_else(give_up)?;
        let model = raw.model.opt_str().ok_or_else(give_up)?;
        if duration < 0 {
            return Err(give_up()); // the span route's checks decide
        }
        let end = clock
            .checked_add(duration)
            .filter(|&t| t < MAX_NS)
            .ok_or_else(give_up)?;
        let tool_given = tool.is_some_and(|t| !t.is_empty());
        let llm_action = LLM_ACTIONS.contains(&action.as_str());
        let (kind, subject) =
            if TOOL_ACTIONS.contains(&action.as_str()) || (tool_given && !llm_action) {
                let tool = clip(tool.filter(|t| !t.is_empty()).ok_or_else(give_up)?);
                if PLACEHOLDER_TOOLS.contains(&tool) || is_handoff_tool(tool) {
                    return Err(give_up()); // no tool of its own, or a hand-off: the span route
                }
                (Kind::Tool, Some(tool))
            } else if llm_action || model.is_some_and(|m| !m.is_empty()) {
                let model = model.map(clip).filter(|m| !PLACEHOLDER_MODELS.contains(m));
                (Kind::Llm, model)
            } else {
                let other = (
                    raw.action.truthy_str().flatten().map(str::to_owned),
                    error.map(str::to_owned),
                );
                if parsed.others_seen.insert(other.clone()) {
                    parsed.others.push(other);
                }
                parsed.kinds.other += 1;
                clock = end + 1;
                continue;
            };
        let err = error.map(short_error_name);
        match err.as_deref().and_then(|e| error_limit(e, None)) {
            Some(Limit::MaxSteps) => max_steps = true,
            Some(Limit::Timeout) => timeout = true,
            None => {}
        }
        let subject_id = subject.map(|s| parsed.names.id(s));
        if kind == Kind::Tool {
            parsed.kinds.tool += 1;
            if let Some(id) = subject_id {
                if parsed.tools_seen.insert(id) {
                    parsed.tools.push(id);
                }
            }
        } else {
            parsed.kinds.llm += 1;
        }
        let state_hash = state_hash(parsed, config, kind, subject, subject_id, error);
        steps.push(Step {
            kind,
            subject: subject_id,
            failed: err.is_some(),
            state_hash,
        });
        clock = end + 1;
    }
    let trace_error = trace.error.opt_str().ok_or_else(give_up)?;
    let errored = trace_error.is_some_and(|e| !e.is_empty()) || trace.success_false;
    if errored {
        // error.type is the trace's `error` string, else "TrialFailed"; blank reads as _OTHER
        let error_type = trace_error.unwrap_or("TrialFailed");
        let err = if error_type.is_empty() {
            "_OTHER".to_owned()
        } else {
            short_error_name(error_type)
        };
        match error_limit(&err, None) {
            Some(Limit::MaxSteps) => max_steps = true,
            Some(Limit::Timeout) => timeout = true,
            None => {}
        }
    }
    let total = trace.total.duration_ns().ok_or_else(give_up)?;
    if matches!(trace.cost, Scalar::Num(c) if !c.is_finite()) {
        return Err(give_up()); // Python's float() of an integer this big raises
    }
    let version = match trace.meta.version.truthy_str().ok_or_else(give_up)? {
        Some(v) => Some(v),
        None => trace.meta.agent_version.truthy_str().ok_or_else(give_up)?,
    };
    let agent = parsed.names.id(agent);
    let version = version.map(|v| parsed.names.id(v));
    let model = match &trace.model {
        Scalar::Str(m) if !m.is_empty() && !PLACEHOLDER_MODELS.contains(&clip(m)) => {
            let id = parsed.names.id(clip(m));
            let named = steps
                .iter()
                .any(|s| s.kind == Kind::Llm && s.subject == Some(id));
            (!named).then_some(id)
        }
        _ => None,
    };
    parsed.kinds.agent += 1;
    Ok(Trial {
        agent,
        version,
        model,
        end_ns: total.max(clock),
        errored,
        max_steps,
        timeout,
        steps,
    })
}

/// `stable_hash` of the step's state key (state/facts.py `_state_key`): kind, subject, outcome,
/// finish reason (none for trials) and the spec's state attributes of the step's span.
fn state_hash(
    parsed: &mut Parsed,
    config: &Config<'_>,
    kind: Kind,
    subject: Option<&str>,
    subject_id: Option<u32>,
    error: Option<&str>,
) -> u64 {
    let kind_token = if kind == Kind::Tool { "tool" } else { "llm" };
    let outcome = if error.is_some() { "error" } else { "ok" };
    if config.state_attributes.is_empty() {
        let key = (kind, subject_id, error.is_some());
        if let Some(&hash) = parsed.state_hashes.get(&key) {
            return hash;
        }
        let hash = stable_hash([kind_token, subject.unwrap_or(""), outcome, ""]);
        parsed.state_hashes.insert(key, hash);
        return hash;
    }
    // the step span's attributes (trial_runs.py `_step_span`), as str(attrs.get(a, ""))
    let extra = config
        .state_attributes
        .iter()
        .map(|attribute| match attribute.as_str() {
            "gen_ai.operation.name" => {
                if kind == Kind::Tool {
                    "execute_tool"
                } else {
                    "chat"
                }
            }
            "gen_ai.tool.name" if kind == Kind::Tool => subject.unwrap_or(""),
            "gen_ai.request.model" if kind == Kind::Llm => subject.unwrap_or(""),
            "error.type" => error.unwrap_or(""),
            _ => "",
        });
    stable_hash(
        [kind_token, subject.unwrap_or(""), outcome, ""]
            .into_iter()
            .chain(extra),
    )
}
