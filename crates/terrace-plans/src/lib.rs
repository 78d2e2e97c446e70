//! terrace-plans: what `plan` produces and everything that describes it.
//!
//! `model` is the plan itself (per-instance and output changes, the prior
//! and previous-run states); `render` prints it as Terraform's human plan
//! output; `planfile` saves and loads it for `plan -out` / `apply PLANFILE`;
//! `json` writes the `show -json` plan and state documents.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod hclfmt;
pub mod json;
mod jsonval;
pub mod model;
pub mod planfile;
pub mod render;
#[cfg(test)]
mod testutil;

pub use model::{
    Action, ActionReason, OutputChange, Plan, PlanMode, ResourceAttr, ResourceInstanceChange,
};
pub use render::{
    format_value, render_apply_summary, render_outputs, render_plan, render_plan_footer,
    render_plan_footer_with_generated, render_plan_items, PlanItemTexts, RenderOptions,
    SchemaLookup,
};
/// The results of custom conditions a plan carries.
pub use terrace_states::{CheckResults, CheckStatus};
