//! A convention table (semconv/table.py): rules in order, the first that matches a span and
//! yields a Step classifies it.
//!
//! Shaped for the hot path as the Python reference is: the rules a scope's spans can match are
//! worked out once per scope name (bounded, as scope names come from telemetry); consecutive
//! rules gated on the same attribute form a segment, skipped with one lookup when a span lacks
//! it and otherwise narrowed by the attribute's value; a segment of rules that test only span
//! names is skipped when no name test holds.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use regex::Regex;

use super::matching::{Key, Match};
use super::rule::Rule;
use super::step::Step;
use crate::span::Span;

/// Scope names come from telemetry: the per-scope cache stays bounded (table._SCOPE_CACHE_LIMIT).
const SCOPE_CACHE_LIMIT: usize = 4096;
/// ... in bytes too: a longer name (no instrumentation's is) is worked out each time, not kept.
/// Bytes, where Python counts characters: either way nothing longer than 1 KiB is kept.
const SCOPE_KEY_BYTES: usize = 256;

/// A rule with the part of its match left to test (None: nothing left).
struct Check {
    left: Option<Match>,
    rule: Arc<Rule>,
}

struct Segment {
    /// the attribute every rule here needs (None: no such attribute)
    key: Option<String>,
    /// span-name tests of which one must hold for any rule here to match (None: any name)
    names: Option<Vec<Arc<Regex>>>,
    checks: Vec<Check>,
    /// the rules a value of `key` may match ...
    by_value: Option<HashMap<Key, Vec<Check>>>,
    /// ... and those for a value no rule names
    other_values: Vec<Check>,
}

/// Rules of one run with their matches for a scope, before a segment indexes them.
type Group = Vec<(Match, Arc<Rule>)>;

fn left(m: Match) -> Option<Match> {
    (!m.trivial()).then_some(m)
}

/// The rules a span whose gate attribute holds `value` may match (the gate test done).
fn for_value(group: &[(Match, Arc<Rule>)], value: &Key) -> Vec<Check> {
    let mut checks = Vec::new();
    for (m, rule) in group {
        match rule.gate.as_ref().filter(|_| rule.indexed()) {
            None => checks.push(Check {
                left: left(m.clone()),
                rule: rule.clone(),
            }),
            Some(gate) if gate.values().is_some_and(|v| v.contains(value)) => {
                checks.push(Check {
                    left: left(m.without(gate)),
                    rule: rule.clone(),
                });
            }
            Some(_) => {}
        }
    }
    checks
}

fn segment(key: Option<String>, group: Group) -> Segment {
    let plain = || {
        group.iter().map(|(m, r)| Check {
            left: left(m.clone()),
            rule: r.clone(),
        })
    };
    let indexed = key.is_some() && group.iter().any(|(_, r)| r.indexed());
    if !indexed {
        let names = if key.is_none() {
            group
                .iter()
                .map(|(m, _)| m.name.clone())
                .collect::<Option<Vec<_>>>()
        } else {
            None
        };
        return Segment {
            key,
            names,
            checks: plain().collect(),
            by_value: None,
            other_values: Vec::new(),
        };
    }
    let mut by_value = HashMap::new();
    for (_, rule) in &group {
        if let (true, Some(values)) = (rule.indexed(), rule.gate.as_ref().and_then(|g| g.values()))
        {
            for value in values {
                if !by_value.contains_key(value) {
                    by_value.insert(value.clone(), for_value(&group, value));
                }
            }
        }
    }
    let other_values = plain().filter(|c| !c.rule.indexed()).collect();
    Segment {
        key,
        names: None,
        checks: plain().collect(),
        by_value: Some(by_value),
        other_values,
    }
}

/// The rules that can match spans of `scope`, their scope tests decided, in runs of
/// consecutive rules gated on the same attribute key (or on none).
fn segments(rules: &[Arc<Rule>], scope: &str) -> Vec<Segment> {
    let mut runs: Vec<(Option<String>, Group)> = Vec::new();
    for rule in rules {
        let Some(m) = rule.matches.for_scope(scope) else {
            continue;
        };
        let key = rule.gate.as_ref().map(|g| g.key.clone());
        match runs.last_mut() {
            Some((last, group)) if *last == key => group.push((m, rule.clone())),
            _ => runs.push((key, vec![(m, rule.clone())])),
        }
    }
    runs.into_iter()
        .map(|(key, group)| segment(key, group))
        .collect()
}

/// Rules in order, most specific first.
pub struct Table {
    pub rules: Arc<[Arc<Rule>]>,
    by_scope: RwLock<HashMap<String, Arc<Vec<Segment>>>>,
}

impl Table {
    pub fn new(rules: Arc<[Arc<Rule>]>) -> Table {
        Table {
            rules,
            by_scope: RwLock::new(HashMap::new()),
        }
    }

    fn candidates(&self, scope: &str) -> Arc<Vec<Segment>> {
        if let Ok(cache) = self.by_scope.read() {
            if let Some(found) = cache.get(scope) {
                return found.clone();
            }
        }
        let found = Arc::new(segments(&self.rules, scope));
        if let Ok(mut cache) = self.by_scope.write() {
            if scope.len() <= SCOPE_KEY_BYTES && cache.len() < SCOPE_CACHE_LIMIT {
                cache.insert(scope.to_owned(), found.clone());
            }
        }
        found
    }

    /// The Step of the first rule that matches `span` and yields one, or None.
    pub fn classify(&self, span: &Span, state_attributes: &[String]) -> Option<Step> {
        let attrs = &span.attributes;
        for segment in self.candidates(&span.scope_name).iter() {
            let checks = match &segment.key {
                Some(key) => {
                    let Some(value) = attrs.get(key) else {
                        continue;
                    };
                    match &segment.by_value {
                        Some(by_value) => Key::of_value(value)
                            .and_then(|k| by_value.get(&k))
                            .unwrap_or(&segment.other_values),
                        None => &segment.checks,
                    }
                }
                None => {
                    if let Some(names) = &segment.names {
                        if !names.iter().any(|n| n.is_match(&span.name)) {
                            continue;
                        }
                    }
                    &segment.checks
                }
            };
            for check in checks {
                let holds = check
                    .left
                    .as_ref()
                    .is_none_or(|m| m.span_holds(span, check.rule.decode));
                if holds {
                    if let Some(step) = check.rule.step(span, state_attributes) {
                        return Some(step);
                    }
                }
            }
        }
        None
    }
}
