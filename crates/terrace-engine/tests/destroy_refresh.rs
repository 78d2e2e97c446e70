//! A destroy plan is made as terraform makes it: a normal plan first, for
//! its refresh (data sources read again, every object refreshed once),
//! then the destroy plan from the refreshed state without a second
//! refresh. The previous run's state stays the one the run started from.

mod support;

use std::sync::Mutex;
use support::{actions, Harness};
use terrace_addrs::AbsResourceInstance;
use terrace_engine::{Hooks, PlanOptions};
use terrace_plans::model::{Action, PlanMode};
use terrace_syntax::diagnostic::has_errors;

const REMOTE_STATE: &str = r#"{
  "version": 4,
  "terraform_version": "1.11.4",
  "serial": 1,
  "lineage": "00000000-0000-0000-0000-000000000002",
  "outputs": { "v": { "value": "hello", "type": "string" } },
  "resources": [],
  "check_results": null
}
"#;

const MAIN: &str = r#"
data "terraform_remote_state" "x" {
  backend = "local"
  config  = { path = "${path.module}/remote.tfstate" }
}

resource "terraform_data" "a" {
  input = data.terraform_remote_state.x.outputs.v
}
"#;

#[derive(Default)]
struct Heard(Mutex<Vec<String>>);

impl Hooks for Heard {
    fn refreshing(
        &self,
        addr: &AbsResourceInstance,
        _: Option<&terrace_states::DeposedKey>,
        _: Option<&str>,
    ) {
        if let Ok(mut h) = self.0.lock() {
            h.push(format!("refreshing {addr}"));
        }
    }
    fn apply_started(
        &self,
        addr: &AbsResourceInstance,
        _: Option<&terrace_states::DeposedKey>,
        action: Action,
        _: Option<&str>,
    ) {
        if let Ok(mut h) = self.0.lock() {
            h.push(format!("{action:?} {addr}"));
        }
    }
}

#[test]
fn destroy_plans_refresh_once_and_read_data_sources_first() {
    let mut h = Harness::new(&[("main.tf", MAIN), ("remote.tfstate", REMOTE_STATE)]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let before = h.state.clone();

    let heard = Heard::default();
    let ctx = h.context(&[]);
    let opts = PlanOptions {
        mode: PlanMode::Destroy,
        ..PlanOptions::default()
    };
    let (destroy, diags) = terrace_engine::plan(&ctx, &h.state, &opts, &heard);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert_eq!(actions(&destroy), ["terraform_data.a Delete"]);
    let mut heard = heard.0.into_inner().unwrap_or_else(|e| e.into_inner());
    heard.sort();
    assert_eq!(
        heard,
        [
            "Read data.terraform_remote_state.x",
            "refreshing terraform_data.a",
        ]
    );
    assert_eq!(
        support::state_addrs(&destroy.prev_run_state),
        support::state_addrs(&before)
    );
    // Without refreshing, neither happens.
    let quiet = Heard::default();
    let no_refresh = PlanOptions {
        refresh: false,
        ..opts
    };
    let (plan, diags) = terrace_engine::plan(&ctx, &h.state, &no_refresh, &quiet);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert_eq!(actions(&plan), ["terraform_data.a Delete"]);
    assert!(quiet.0.into_inner().unwrap_or_default().is_empty());
}
