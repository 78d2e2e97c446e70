//! Standalone traversals (`aws.west`, `module.x.y["k"]`), as HCL's
//! `ParseTraversalAbs` and `ParseTraversalPartial` read them: only
//! attribute and literal-index steps, plus `[*]` when splats are allowed.

use crate::ast::{SourceFile, Traversal, TraversalStep};
use crate::diagnostic::Diagnostics;
use crate::lexer::ScanMode;
use crate::parser::{ParsedStep, Parser};
use crate::pos::Span;
use crate::text::SpanMap;

/// A traversal that may contain `[*]` splat steps.
#[derive(Clone, Debug, PartialEq)]
pub struct PartialTraversal {
    pub root: String,
    pub root_span: Span,
    pub steps: Vec<PartialStep>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PartialStep {
    Step(TraversalStep),
    /// `[*]`: every element at this point.
    Splat {
        span: Span,
    },
}

impl PartialTraversal {
    /// The traversal without splats, or `None` if it has any.
    pub fn into_absolute(self) -> Option<Traversal> {
        let mut steps = Vec::with_capacity(self.steps.len());
        for s in self.steps {
            match s {
                PartialStep::Step(s) => steps.push(s),
                PartialStep::Splat { .. } => return None,
            }
        }
        Some(Traversal {
            root: self.root,
            root_span: self.root_span,
            steps,
        })
    }
}

pub(crate) fn parse_with(
    text: &str,
    source: &SourceFile,
    map: &SpanMap,
    allow_splat: bool,
) -> (Option<PartialTraversal>, Diagnostics) {
    let mut p = Parser::new(text, ScanMode::Normal, source, map);
    let parsed = p.parse_traversal(allow_splat);
    let t = parsed.map(|(root, root_span, steps)| PartialTraversal {
        root,
        root_span,
        steps: steps
            .into_iter()
            .map(|s| match s {
                ParsedStep::Step(s) => PartialStep::Step(s),
                ParsedStep::Splat(span) => PartialStep::Splat { span },
            })
            .collect(),
    });
    (t, p.diags)
}
