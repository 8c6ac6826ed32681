//! The one root rule (docs/architecture.md#one-root-rule): whether a span starts a local
//! subtree, the unit run assembly closes when it ends. Every route to the engine takes it from
//! here: the core's own readers (protobuf, SDK spans) through [`Classifier::outcome`], and the
//! engine through `compiled.local_root` for a SpanRecord and after inference re-read a span.
//!
//! [`Classifier::outcome`]: super::py::Classifier::outcome

use pyo3::prelude::*;

use super::step::Kind;
use crate::door::door;

/// SpanKind.SERVER and CONSUMER as `SpanRecord.kind` holds them (the SDK's numbering, not
/// OTLP's).
const SPAN_KIND_SERVER: i64 = 1;
const SPAN_KIND_CONSUMER: i64 = 4;

/// A span starts a local subtree iff it has no parent, or its parent is remote and it is not
/// the server's half of a call: a tool, agent, model-call or workflow step on a span of kind
/// SERVER or CONSUMER (an MCP server's `tools/call`, an A2A server's `SendMessage`, a model
/// server's request, a durable engine's worker running the activity or child workflow another
/// scheduled, a task queue's worker running the task another sent: any such span, however it
/// was read), which waits for its caller's root (or the idle TTL) so the call counts once, in
/// the caller's run.
pub fn local_root(has_parent: bool, parent_remote: bool, span_kind: i64, kind: Kind) -> bool {
    let server_half = matches!(span_kind, SPAN_KIND_SERVER | SPAN_KIND_CONSUMER)
        && matches!(kind, Kind::Tool | Kind::Agent | Kind::Llm | Kind::Workflow);
    !has_parent || (parent_remote && !server_half)
}

/// `local_root` for Python (`compiled.local_root`): `step_kind` is a Step's kind string; one
/// that is no kind is no server's half.
#[pyfunction(name = "local_root")]
pub fn local_root_py(
    has_parent: bool,
    parent_remote: bool,
    span_kind: i64,
    step_kind: &str,
) -> PyResult<bool> {
    door(|| {
        let kind = Kind::parse(step_kind).unwrap_or(Kind::Other);
        Ok(local_root(has_parent, parent_remote, span_kind, kind))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_parentless_span_or_a_remote_child_that_is_no_server_half_is_a_root() {
        // (has parent, remote, span kind, step kind) -> root, worked out from the rule
        let cases = [
            (false, false, 0, Kind::Tool, true),
            (false, false, 1, Kind::Tool, true), // a SERVER tool span with no parent
            (true, false, 1, Kind::Tool, false), // a local parent: never a root
            (true, true, 0, Kind::Tool, true),   // INTERNAL under a remote parent
            (true, true, 1, Kind::Tool, false),  // the server's half of a tool call
            (true, true, 1, Kind::Agent, false), // ... of an agent call (A2A)
            (true, true, 1, Kind::Llm, false),   // ... of a model call (a model server's)
            (true, true, 1, Kind::Workflow, false), // ... of a child workflow (a worker's)
            (true, true, 1, Kind::Other, true),  // an HTTP server span: a run of its own
            (true, true, 2, Kind::Tool, true),   // CLIENT
            (true, true, 4, Kind::Llm, false),   // CONSUMER: a task queue's worker's half
            (true, true, 3, Kind::Llm, true),    // PRODUCER
        ];
        for (has_parent, remote, span_kind, kind, root) in cases {
            assert_eq!(
                local_root(has_parent, remote, span_kind, kind),
                root,
                "{has_parent} {remote} {span_kind} {kind:?}"
            );
        }
    }
}
