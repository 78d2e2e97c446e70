//! Where delete nodes sit in the apply graph: like OpenTofu's destroyers,
//! they are ordered only against other resources and their provider, and
//! do not wait for their module's expansion. Waiting for it makes a cycle
//! whenever a module's expansion depends on another module's resources
//! (the "wrapper" modules of terraform-aws-modules: a `for_each` module
//! whose items come from another wrapper's outputs).

mod support;

use support::{actions, state_addrs, Harness};
use terrace_syntax::diagnostic::has_errors;

const ROOT: &str = r#"
module "group_wrapped" {
  source = "./wg"
  items  = { one = {} }
}

module "stream_wrapped" {
  source = "./ws"
  items = {
    one = { group = module.group_wrapped.wrapper["one"].name }
  }
}
"#;

const GROUP_WRAPPER: &str = r#"
variable "items" {}
module "wrapper" {
  source   = "../group"
  for_each = var.items
}
output "wrapper" {
  value = module.wrapper
}
"#;

const STREAM_WRAPPER: &str = r#"
variable "items" {}
module "wrapper" {
  source   = "../stream"
  for_each = var.items
  group    = each.value.group
}
"#;

const GROUP: &str = r#"
resource "terraform_data" "this" {
  count = 1
  input = "g"
}
output "name" {
  value = terraform_data.this[0].output
}
"#;

const STREAM: &str = r#"
variable "group" {}
resource "terraform_data" "this" {
  count = 1
  input = var.group
}
"#;

#[test]
fn wrapper_modules_fed_by_another_wrappers_outputs_apply_and_destroy() {
    let mut h = Harness::new(&[
        ("main.tf", ROOT),
        ("wg/main.tf", GROUP_WRAPPER),
        ("ws/main.tf", STREAM_WRAPPER),
        ("group/main.tf", GROUP),
        ("stream/main.tf", STREAM),
    ]);
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        [
            "module.group_wrapped.module.wrapper[\"one\"].terraform_data.this[0] Create",
            "module.stream_wrapped.module.wrapper[\"one\"].terraform_data.this[0] Create",
        ]
    );
    let ctx = h.context(&[]);
    let (state, diags) = terrace_engine::apply(&ctx, &plan, &terrace_engine::NoHooks);
    assert!(
        !has_errors(&diags),
        "the apply graph has no cycle here: {diags:#?}"
    );
    h.state = state;
    assert_eq!(state_addrs(&h.state).len(), 2);
    let destroyed = h.destroy(&[]);
    assert_eq!(actions(&destroyed).len(), 2);
    assert!(state_addrs(&h.state).is_empty());
}
