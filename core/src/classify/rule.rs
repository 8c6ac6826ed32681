//! An entry compiled for the hot path (semconv/convention.py `Rule`): whether it matches is
//! `Match`'s; this reads the fields and builds the span's Step.

use std::sync::Arc;

use super::entry::{Parsed, Raw};
use super::errors::{error_type, limit_signal, short_error_name};
use super::fields::build_step;
use super::hooks::{self, Hook};
use super::matching::{Condition, Match, Test};
use super::source::{Got, Source};
use super::step::{Kind, Step};
use super::values::{as_int, PLACEHOLDER_AGENT_NAMES, PLACEHOLDER_MODELS, PLACEHOLDER_TOOLS};
use crate::pystr;
use crate::span::{Span, Value};

/// The fields an entry may give sources for (convention.FIELDS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Name,
    Tool,
    Model,
    HandoffTo,
    HandoffFrom,
    FinishReason,
    Error,
    TokensIn,
    TokensOut,
}

impl Field {
    const ALL: [(Field, &'static str); 9] = [
        (Field::Name, "name"),
        (Field::Tool, "tool"),
        (Field::Model, "model"),
        (Field::HandoffTo, "handoff_to"),
        (Field::HandoffFrom, "handoff_from"),
        (Field::FinishReason, "finish_reason"),
        (Field::Error, "error"),
        (Field::TokensIn, "tokens_in"),
        (Field::TokensOut, "tokens_out"),
    ];
    /// The order `_fields` applies the fields other than the names in (an error before the
    /// token counts, since an empty answer is one without an error).
    const ORDER: [Field; 7] = [
        Field::Model,
        Field::FinishReason,
        Field::Error,
        Field::TokensIn,
        Field::TokensOut,
        Field::HandoffFrom,
        Field::HandoffTo,
    ];

    fn parse(name: &str) -> Parsed<Field> {
        Field::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(f, _)| *f)
            .ok_or_else(|| format!("not a field: {name:?}"))
    }

    /// Names a thing (convention.NAME_FIELDS): only a non-empty string yields, clipped.
    fn is_name(self) -> bool {
        !matches!(self, Field::Error | Field::TokensIn | Field::TokensOut)
    }

    /// The names that are no name: a source yielding one is passed over for the next.
    fn placeholders(self) -> &'static [&'static str] {
        match self {
            Field::Name => &PLACEHOLDER_AGENT_NAMES,
            Field::Model => &PLACEHOLDER_MODELS,
            Field::Tool => &PLACEHOLDER_TOOLS,
            _ => &[],
        }
    }
}

pub struct Rule {
    pub matches: Match,
    pub kind: Kind,
    /// `decode: json`: string values are JSON-quoted; unquote before comparing or reading
    pub decode: bool,
    sources: Vec<(Field, Vec<Source>)>,
    require: Vec<Field>,
    handoff_tool: bool,
    hook: Option<Hook>,
    /// the test of an attribute the span must carry: a table skips every rule gated on a key
    /// the span lacks with one lookup, and picks among them by the key's value
    pub gate: Option<Arc<Condition>>,
    more: Vec<Field>,
}

impl Rule {
    /// `user`: a spec's entry (RE2 patterns, no `code`); else a built-in table's.
    pub fn parse(entry: &Raw, user: bool) -> Parsed<Rule> {
        let raw_match = entry.get("match").ok_or("an entry without match")?;
        let matches = Match::parse(raw_match, entry.get("unless"))?;
        let kind_name = entry
            .get("kind")
            .and_then(Raw::as_str)
            .ok_or("an entry without kind")?;
        let kind = Kind::parse(kind_name).ok_or_else(|| format!("not a kind: {kind_name:?}"))?;
        let mut sources = Vec::new();
        for (field, name) in Field::ALL {
            if let Some(raw) = entry.get(name) {
                if *raw == Raw::Null {
                    continue;
                }
                let listed = raw.listed().iter().map(|s| Source::parse(s, user));
                let listed = listed.collect::<Parsed<Vec<_>>>()?;
                if field != Field::Error && listed.iter().any(|s| matches!(s, Source::Exception)) {
                    return Err(format!("{name}: only an error reads an exception event"));
                }
                sources.push((field, listed));
            }
        }
        let require = match entry.get("require") {
            Some(names) => names
                .texts()?
                .iter()
                .map(|n| Field::parse(n))
                .collect::<Parsed<_>>()?,
            None => Vec::new(),
        };
        let hook = match entry.get("code") {
            None => None,
            Some(_) if user => return Err("code: only a built-in entry names code".into()),
            Some(code) => {
                let name = code.as_str().ok_or("code: expected a string")?;
                Some(hooks::hook(name).ok_or_else(|| format!("code: no hook {name:?}"))?)
            }
        };
        let gate = matches
            .conditions
            .iter()
            .find(|c| !matches!(c.test, Test::Absent))
            .cloned();
        let more = Field::ORDER
            .into_iter()
            .filter(|f| sources.iter().any(|(s, _)| s == f))
            .collect();
        Ok(Rule {
            matches,
            kind,
            decode: entry.get("decode").and_then(Raw::as_str) == Some("json"),
            sources,
            require,
            handoff_tool: entry.get("handoff_tool").is_some_and(Raw::truthy),
            hook,
            gate,
            more,
        })
    }

    /// A table may pick this rule by its gate's value (`_indexed`).
    pub fn indexed(&self) -> bool {
        !self.decode && self.gate.as_ref().is_some_and(|g| g.values().is_some())
    }

    fn sources(&self, field: Field) -> Option<&[Source]> {
        self.sources
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, s)| s.as_slice())
    }

    /// A name field's first value: a non-empty string that is no placeholder, clipped.
    fn read_name(&self, field: Field, span: &Span) -> Option<String> {
        for source in self.sources(field)? {
            if let Some(got) = source.read(span, self.decode, true) {
                let Value::Str(text) = &*got.value else {
                    continue;
                };
                let name = pystr::clip(text);
                if !field.placeholders().contains(&name.as_str()) {
                    return Some(name);
                }
            }
        }
        None
    }

    /// Another field's first value, as it is.
    fn read_value<'a>(&'a self, field: Field, span: &'a Span) -> Option<Got<'a>> {
        self.sources(field)?
            .iter()
            .find_map(|source| source.read(span, self.decode, false))
    }

    fn yields(&self, field: Field, span: &Span) -> bool {
        if field.is_name() {
            self.read_name(field, span).is_some()
        } else {
            self.read_value(field, span).is_some()
        }
    }

    /// An agent's or tool's name: its sources if the entry gives any, else the span name.
    fn name_of(&self, field: Field, span: &Span) -> Option<String> {
        if self.sources(field).is_some() {
            return self.read_name(field, span);
        }
        let name = pystr::clip(pystr::strip(&span.name));
        (!name.is_empty() && !field.placeholders().contains(&name.as_str())).then_some(name)
    }

    /// The span's Step, or None when a required field yields nothing (or the family's code
    /// says the entry does not apply after all).
    pub fn step(&self, span: &Span, state_attributes: &[String]) -> Option<Step> {
        if !self.require.iter().all(|&field| self.yields(field, span)) {
            return None;
        }
        let (mut kind, mut agent, mut tool) = (self.kind, None, None);
        if kind == Kind::Agent {
            agent = self.name_of(Field::Name, span);
        } else if kind == Kind::Tool {
            tool = self.name_of(Field::Tool, span);
            if tool.is_none() {
                kind = Kind::Other;
            }
        }
        let mut step = build_step(span, kind, state_attributes, agent, tool);
        for &field in &self.more {
            self.apply(field, &mut step, span);
        }
        if self.handoff_tool && step.kind == Kind::Tool {
            step.handoff_tool = true;
        }
        match self.hook {
            None => Some(step),
            Some(hook) => hook(span, step, state_attributes),
        }
    }

    /// One field's sources over the default build_step read from the GenAI keys.
    fn apply(&self, field: Field, step: &mut Step, span: &Span) {
        if field.is_name() {
            let Some(name) = self.read_name(field, span) else {
                return;
            };
            match field {
                Field::Model => step.model = Some(name),
                Field::FinishReason => step.finish_reason = name,
                Field::HandoffFrom => step.handoff_from = Some(name),
                Field::HandoffTo if step.kind == Kind::Tool => {
                    step.handoff_tool = true;
                    step.handoff_hint = Some(name);
                }
                Field::HandoffTo => step.handoff_to = Some(name),
                _ => {}
            }
            return;
        }
        let Some(Got { value, big }) = self.read_value(field, span) else {
            return;
        };
        match field {
            Field::Error => {
                let text = match (&*value, big) {
                    (Value::Bool(false), _) => return,
                    (Value::Str(s), _) => pystr::clip(s),
                    (Value::Int(_), Some(literal)) => pystr::clip(&literal),
                    (Value::Int(i), None) => i.to_string(),
                    (Value::BigInt(digits), _) => pystr::clip(digits),
                    _ => String::new(),
                };
                let error = if text.is_empty() {
                    error_type(span).unwrap_or_else(|| "_OTHER".to_owned())
                } else {
                    short_error_name(&text)
                };
                step.limit = limit_signal(span, Some(&error));
                step.error = Some(error);
            }
            Field::TokensIn => step.input_tokens = as_int(Some(&value)),
            Field::TokensOut => {
                step.output_tokens = as_int(Some(&value));
                if step.kind == Kind::Llm {
                    step.empty = step.output_tokens == 0 && step.error.is_none();
                }
            }
            _ => {}
        }
    }
}
