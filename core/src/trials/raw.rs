//! The JSON of a trial file as the reader reads it (serde visitors over borrowed bytes): keys,
//! the scalar fields read, `metadata`, steps and traces. A value of a type the reader does not
//! expect is kept as such (`Scalar::Other`), for `convert` to give up on where Python would
//! not read it as the fast path does.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::pystr::{self, MAX_NAME_CHARS};

/// AgentAssay's ExecutionTrace and StepTrace fields (readers/trials.py).
pub(super) const TRACE_KEYS: [&str; 13] = [
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
/// Times past this many ns are left to Python's unbounded ints.
pub(super) const MAX_NS: i64 = 1 << 62;
/// Why the fast path gave up; never shown (the Python reader reads the file instead).
const GIVE_UP: &str = "not a plain trials file";

pub(super) fn give_up<E: de::Error>() -> E {
    E::custom(GIVE_UP)
}

/// common.clip, borrowed.
pub(super) fn clip(name: &str) -> &str {
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
pub(super) use other_values;

/// A key, borrowed from the input when it has no escapes.
pub(super) struct Key<'de>(pub(super) Cow<'de, str>);

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
pub(super) enum Scalar<'de> {
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
    pub(super) fn opt_str(&self) -> Option<Option<&str>> {
        match self {
            Scalar::Absent | Scalar::Null => Some(None),
            Scalar::Str(s) => Some(Some(s)),
            _ => None,
        }
    }

    /// `x or y` over optional strings: the first non-empty one, else None.
    pub(super) fn truthy_str(&self) -> Option<Option<&str>> {
        self.opt_str().map(|s| s.filter(|s| !s.is_empty()))
    }

    /// `int(float(x or 0.0) * 1e6)`: a duration in ms as ns; None to give up.
    pub(super) fn duration_ns(&self) -> Option<i64> {
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
pub(super) struct Meta<'de> {
    pub(super) agent: Scalar<'de>,
    pub(super) agent_name: Scalar<'de>,
    pub(super) version: Scalar<'de>,
    pub(super) agent_version: Scalar<'de>,
    pub(super) error: Scalar<'de>,
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
pub(super) struct RawStep<'de> {
    pub(super) action: Scalar<'de>,
    pub(super) tool: Scalar<'de>,
    pub(super) model: Scalar<'de>,
    pub(super) duration: Scalar<'de>,
    pub(super) error: Scalar<'de>,
    pub(super) unknown: Vec<Cow<'de, str>>,
}

pub(super) struct StepValue<'de>(pub(super) Option<RawStep<'de>>);

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
pub(super) struct Steps<'de>(pub(super) Option<Vec<Option<RawStep<'de>>>>);

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
pub(super) struct RawTrace<'de> {
    pub(super) steps: Option<Steps<'de>>,
    pub(super) meta: Meta<'de>,
    pub(super) error: Scalar<'de>,
    pub(super) success_false: bool,
    pub(super) total: Scalar<'de>,
    pub(super) cost: Scalar<'de>,
    pub(super) model: Scalar<'de>,
    pub(super) unknown: Vec<Cow<'de, str>>,
}

impl<'de> RawTrace<'de> {
    /// Read the value of `key` if it is a trace field; false when it is not one.
    pub(super) fn field<A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error> {
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

pub(super) struct TraceValue<'de>(pub(super) Option<RawTrace<'de>>);

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
