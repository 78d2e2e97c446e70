//! The plan model: what `plan` decided for every resource instance and
//! output, and the states it was decided from. The engine builds it, the
//! renderer and the JSON writer describe it, the plan file stores it and
//! `apply` carries it out.
//!
//! Values are kept decoded (typed with the schema's implied type) with
//! their unknowns and sensitive marks, so nothing downstream needs the
//! schema to tell what is known or secret.

use std::collections::BTreeMap;
use std::fmt;
use terrace_addrs::{AbsProviderConfig, AbsProviderInstance, AbsResourceInstance, Target};
use terrace_providers::AttributePath;
use terrace_states::model::{DeposedKey, State};
use terrace_value::Value;

/// What apply is to do with one object (OpenTofu's `plans.Action`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Action {
    #[default]
    NoOp,
    Create,
    /// Data resources read during apply.
    Read,
    Update,
    DeleteThenCreate,
    CreateThenDelete,
    Delete,
    /// Removed from state without destroying the remote object.
    Forget,
}

impl Action {
    /// The marker in front of a change in the human plan (`-/+` and so on);
    /// two spaces for no-op, so columns still line up.
    pub fn symbol(self) -> &'static str {
        match self {
            Action::NoOp => "  ",
            Action::Create => "+",
            Action::Read => "<=",
            Action::Update => "~",
            Action::DeleteThenCreate => "-/+",
            Action::CreateThenDelete => "+/-",
            Action::Delete => "-",
            Action::Forget => ".",
        }
    }

    pub fn is_replace(self) -> bool {
        matches!(self, Action::DeleteThenCreate | Action::CreateThenDelete)
    }

    /// The names used by the JSON plan's `actions` array.
    pub fn json_actions(self) -> &'static [&'static str] {
        match self {
            Action::NoOp => &["no-op"],
            Action::Create => &["create"],
            Action::Read => &["read"],
            Action::Update => &["update"],
            Action::DeleteThenCreate => &["delete", "create"],
            Action::CreateThenDelete => &["create", "delete"],
            Action::Delete => &["delete"],
            Action::Forget => &["forget"],
        }
    }

    /// The inverse of [`Action::json_actions`].
    pub fn from_json_actions(actions: &[&str]) -> Option<Action> {
        Some(match actions {
            ["no-op"] => Action::NoOp,
            ["create"] => Action::Create,
            ["read"] => Action::Read,
            ["update"] => Action::Update,
            ["delete", "create"] => Action::DeleteThenCreate,
            ["create", "delete"] => Action::CreateThenDelete,
            ["delete"] => Action::Delete,
            ["forget"] => Action::Forget,
            _ => return None,
        })
    }
}

impl fmt::Display for Action {
    /// OpenTofu's stringer names, as logs and errors show them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::NoOp => "NoOp",
            Action::Create => "Create",
            Action::Read => "Read",
            Action::Update => "Update",
            Action::DeleteThenCreate => "DeleteThenCreate",
            Action::CreateThenDelete => "CreateThenDelete",
            Action::Delete => "Delete",
            Action::Forget => "Forget",
        })
    }
}

/// Why an action was chosen, for the user's benefit only (OpenTofu's
/// `ResourceInstanceChangeActionReason`); apply never looks at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ActionReason {
    #[default]
    None,
    ReplaceBecauseTainted,
    ReplaceByRequest,
    ReplaceByTriggers,
    ReplaceBecauseCannotUpdate,
    DeleteBecauseNoResourceConfig,
    DeleteBecauseWrongRepetition,
    DeleteBecauseCountIndex,
    DeleteBecauseEachKey,
    DeleteBecauseEnabledFalse,
    DeleteBecauseNoModule,
    DeleteBecauseNoMoveTarget,
    ReadBecauseConfigUnknown,
    ReadBecauseDependencyPending,
    ReadBecauseCheckNested,
    ForgotBecauseLifecycleDestroyInState,
    ForgotBecauseLifecycleDestroyInConfig,
}

impl ActionReason {
    /// Every reason, for tables and round-trip tests.
    pub const ALL: [ActionReason; 17] = [
        ActionReason::None,
        ActionReason::ReplaceBecauseTainted,
        ActionReason::ReplaceByRequest,
        ActionReason::ReplaceByTriggers,
        ActionReason::ReplaceBecauseCannotUpdate,
        ActionReason::DeleteBecauseNoResourceConfig,
        ActionReason::DeleteBecauseWrongRepetition,
        ActionReason::DeleteBecauseCountIndex,
        ActionReason::DeleteBecauseEachKey,
        ActionReason::DeleteBecauseEnabledFalse,
        ActionReason::DeleteBecauseNoModule,
        ActionReason::DeleteBecauseNoMoveTarget,
        ActionReason::ReadBecauseConfigUnknown,
        ActionReason::ReadBecauseDependencyPending,
        ActionReason::ReadBecauseCheckNested,
        ActionReason::ForgotBecauseLifecycleDestroyInState,
        ActionReason::ForgotBecauseLifecycleDestroyInConfig,
    ];

    /// The JSON plan's `action_reason`; absent for `None` and for the
    /// forget reasons, which the JSON format has no names for.
    pub fn json_name(self) -> Option<&'static str> {
        Some(match self {
            ActionReason::None
            | ActionReason::ForgotBecauseLifecycleDestroyInState
            | ActionReason::ForgotBecauseLifecycleDestroyInConfig => return None,
            ActionReason::ReplaceBecauseTainted => "replace_because_tainted",
            ActionReason::ReplaceByRequest => "replace_by_request",
            ActionReason::ReplaceByTriggers => "replace_by_triggers",
            ActionReason::ReplaceBecauseCannotUpdate => "replace_because_cannot_update",
            ActionReason::DeleteBecauseNoResourceConfig => "delete_because_no_resource_config",
            ActionReason::DeleteBecauseWrongRepetition => "delete_because_wrong_repetition",
            ActionReason::DeleteBecauseCountIndex => "delete_because_count_index",
            ActionReason::DeleteBecauseEachKey => "delete_because_each_key",
            ActionReason::DeleteBecauseEnabledFalse => "delete_because_enabled_false",
            ActionReason::DeleteBecauseNoModule => "delete_because_no_module",
            ActionReason::DeleteBecauseNoMoveTarget => "delete_because_no_move_target",
            ActionReason::ReadBecauseConfigUnknown => "read_because_config_unknown",
            ActionReason::ReadBecauseDependencyPending => "read_because_dependency_pending",
            ActionReason::ReadBecauseCheckNested => "read_because_check_nested",
        })
    }

    pub fn from_json_name(name: &str) -> Option<ActionReason> {
        ActionReason::ALL
            .into_iter()
            .find(|reason| reason.json_name() == Some(name))
    }

    /// OpenTofu's one-character code for the reason (`'\0'` for none), the
    /// plan file's encoding.
    pub fn code(self) -> char {
        match self {
            ActionReason::None => '\0',
            ActionReason::ReplaceBecauseTainted => 'T',
            ActionReason::ReplaceByRequest => 'R',
            ActionReason::ReplaceByTriggers => 'D',
            ActionReason::ReplaceBecauseCannotUpdate => 'F',
            ActionReason::DeleteBecauseNoResourceConfig => 'N',
            ActionReason::DeleteBecauseWrongRepetition => 'W',
            ActionReason::DeleteBecauseCountIndex => 'C',
            ActionReason::DeleteBecauseEachKey => 'E',
            ActionReason::DeleteBecauseEnabledFalse => 'L',
            ActionReason::DeleteBecauseNoModule => 'M',
            ActionReason::DeleteBecauseNoMoveTarget => 'A',
            ActionReason::ReadBecauseConfigUnknown => '?',
            ActionReason::ReadBecauseDependencyPending => '!',
            ActionReason::ReadBecauseCheckNested => '#',
            ActionReason::ForgotBecauseLifecycleDestroyInState => 'X',
            ActionReason::ForgotBecauseLifecycleDestroyInConfig => 'Y',
        }
    }

    pub fn from_code(code: char) -> Option<ActionReason> {
        ActionReason::ALL
            .into_iter()
            .find(|reason| reason.code() == code)
    }
}

/// What kind of plan was asked for (OpenTofu's `plans.Mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PlanMode {
    #[default]
    Normal,
    Destroy,
    RefreshOnly,
}

impl PlanMode {
    /// OpenTofu's `UIName`.
    pub fn ui_name(self) -> &'static str {
        match self {
            PlanMode::Normal => "normal",
            PlanMode::Destroy => "destroy",
            PlanMode::RefreshOnly => "refresh-only",
        }
    }
}

/// The planned change of one resource instance object (the current object,
/// or a deposed one when `deposed` is set).
#[derive(Clone, Debug)]
pub struct ResourceInstanceChange {
    pub addr: AbsResourceInstance,
    /// The address in the previous run's state; differs from `addr` after
    /// a `moved` block.
    pub prev_run_addr: AbsResourceInstance,
    pub deposed: Option<DeposedKey>,
    pub provider: AbsProviderInstance,
    pub action: Action,
    pub action_reason: ActionReason,
    /// Typed with the schema's implied type; null for create.
    pub before: Value,
    /// May hold unknowns; null for delete. Sensitive parts are marked.
    pub after: Value,
    /// The attributes whose change forces replacement.
    pub required_replace: Vec<AttributePath>,
    /// The provider's private data, passed back to apply untouched.
    pub private: Vec<u8>,
    /// Set when the object is being imported: the import id.
    pub importing: Option<String>,
    /// Configuration generated for an import (`-generate-config-out`).
    pub generated_config: Option<String>,
    pub schema_version: u64,
}

impl ResourceInstanceChange {
    /// Whether the change was moved from another address.
    pub fn moved(&self) -> bool {
        self.addr != self.prev_run_addr
    }
}

/// The planned change of a root module output.
#[derive(Clone, Debug)]
pub struct OutputChange {
    pub name: String,
    pub action: Action,
    pub before: Value,
    pub after: Value,
    /// The output is declared `sensitive = true`.
    pub sensitive: bool,
}

/// An attribute of a resource instance that contributed to a planned
/// change; drift is shown only where it touches one (outside refresh-only
/// mode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceAttr {
    pub resource: AbsResourceInstance,
    pub attr: AttributePath,
}

/// A whole plan.
#[derive(Clone, Debug)]
pub struct Plan {
    pub mode: PlanMode,
    /// Root module input variable values.
    pub variable_values: BTreeMap<String, Value>,
    /// Sorted by address, then deposed key.
    pub changes: Vec<ResourceInstanceChange>,
    /// Objects changed outside of Terraform: prev-run state against the
    /// refreshed state, as `Update`/`Delete` changes.
    pub drift: Vec<ResourceInstanceChange>,
    /// Sorted by name.
    pub output_changes: Vec<OutputChange>,
    /// What planned changes depend on (OpenTofu's `RelevantAttributes`).
    pub relevant_attributes: Vec<ResourceAttr>,
    /// The refreshed state the plan applies to.
    pub prior_state: State,
    /// The state as the previous run left it (after upgrades and moves).
    pub prev_run_state: State,
    pub targets: Vec<Target>,
    pub excludes: Vec<Target>,
    pub force_replace: Vec<AbsResourceInstance>,
    /// Planning failed; the changes are incomplete.
    pub errored: bool,
    /// Planning failed where terraform has no plan at all (the
    /// configuration's moves or removals are wrong, the graph has a cycle,
    /// the refresh of a destroy plan failed): there is nothing to show,
    /// not even that planning failed.
    pub failed_without_plan: bool,
    pub applyable: bool,
    /// Every instance was planned (no deferrals, no targeting, no
    /// unavailable provider instance).
    pub complete: bool,
    /// Instances of provider configurations with `for_each` that could not
    /// be configured. Their resource instances were left out of the plan
    /// (each named by an error in `isolated_errors`, with the provider's
    /// own errors); everything else was planned, and the plan may be
    /// applied without them: one instance that is down (a region, an
    /// account) does not stop the others.
    pub unavailable_providers: Vec<AbsProviderInstance>,
    pub isolated_errors: Vec<terrace_syntax::Diagnostic>,
    /// Provider configurations whose `for_each` is not known until apply,
    /// and the resource instances bound to them, which this plan leaves
    /// for the next run (deferred provider expansion).
    pub deferred_providers: Vec<AbsProviderConfig>,
    pub deferred_resources: Vec<AbsResourceInstance>,
    /// RFC3339, what `plantimestamp()` returned.
    pub timestamp: String,
    /// The statuses of custom conditions as the plan found them (`None`
    /// when the configuration declares none).
    pub checks: Option<terrace_states::CheckResults>,
}

impl Plan {
    /// A plan with nothing in it, over `state`.
    pub fn empty(mode: PlanMode, state: State) -> Plan {
        Plan {
            mode,
            variable_values: BTreeMap::new(),
            changes: Vec::new(),
            drift: Vec::new(),
            output_changes: Vec::new(),
            relevant_attributes: Vec::new(),
            prior_state: state.clone(),
            prev_run_state: state,
            targets: Vec::new(),
            excludes: Vec::new(),
            force_replace: Vec::new(),
            errored: false,
            failed_without_plan: false,
            applyable: false,
            complete: true,
            unavailable_providers: Vec::new(),
            isolated_errors: Vec::new(),
            deferred_providers: Vec::new(),
            deferred_resources: Vec::new(),
            timestamp: String::new(),
            checks: None,
        }
    }

    /// Whether no resource instance or output would change (OpenTofu's
    /// `Changes.Empty`: only no-op changes, or none).
    pub fn changes_empty(&self) -> bool {
        self.changes.iter().all(|c| c.action == Action::NoOp)
            && self.output_changes.iter().all(|c| c.action == Action::NoOp)
    }

    /// Whether applying the plan does anything: never for an errored plan;
    /// in refresh-only mode only when the refreshed state differs from the
    /// previous run's (drift, or root output values now known to differ:
    /// output changes still unknown do not count); otherwise when any
    /// change is not a no-op.
    pub fn can_apply(&self) -> bool {
        if self.errored {
            return false;
        }
        if self.mode == PlanMode::RefreshOnly {
            return !self.drift.is_empty()
                || !outputs_equal(&self.prior_state, &self.prev_run_state);
        }
        !self.changes_empty()
    }

    /// Sorts changes by address (deposed objects after the current one) and
    /// outputs by name, the order every writer relies on.
    pub fn sort(&mut self) {
        // A plan has one change per object, so no two changes compare
        // equal and an unstable sort (which needs no buffer the size of
        // the list) gives the same order. A current object (no deposed
        // key) comes before its deposed ones.
        let order = |a: &ResourceInstanceChange, b: &ResourceInstanceChange| {
            a.addr.cmp(&b.addr).then_with(|| a.deposed.cmp(&b.deposed))
        };
        self.changes.sort_unstable_by(order);
        self.drift.sort_unstable_by(order);
        self.output_changes.sort_by(|a, b| a.name.cmp(&b.name));
    }

    pub fn change(&self, addr: &AbsResourceInstance) -> Option<&ResourceInstanceChange> {
        self.changes
            .iter()
            .find(|c| &c.addr == addr && c.deposed.is_none())
    }
}

/// Whether the two states' root outputs are the same, outputs whose
/// value is not known yet left out (they are not saved).
fn outputs_equal(a: &State, b: &State) -> bool {
    let known = |s: &State| {
        s.outputs
            .iter()
            .filter(|(_, o)| o.value.is_wholly_known())
            .count()
    };
    known(a) == known(b)
        && a.outputs
            .iter()
            .filter(|(_, o)| o.value.is_wholly_known())
            .all(|(name, x)| {
                b.outputs
                    .get(name)
                    .is_some_and(|y| x.sensitive == y.sensitive && x.value.raw_equals(&y.value))
            })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_symbols_and_json_names_round_trip() {
        let cases = [
            (Action::NoOp, "  ", "no-op"),
            (Action::Create, "+", "create"),
            (Action::Read, "<=", "read"),
            (Action::Update, "~", "update"),
            (Action::DeleteThenCreate, "-/+", "delete,create"),
            (Action::CreateThenDelete, "+/-", "create,delete"),
            (Action::Delete, "-", "delete"),
            (Action::Forget, ".", "forget"),
        ];
        for (action, symbol, json) in cases {
            assert_eq!(action.symbol(), symbol);
            assert_eq!(action.json_actions().join(","), json);
            let names: Vec<&str> = json.split(',').collect();
            assert_eq!(Action::from_json_actions(&names), Some(action));
        }
        assert_eq!(Action::from_json_actions(&["delete", "delete"]), None);
    }

    #[test]
    fn action_reasons_round_trip_through_names_and_codes() {
        for reason in ActionReason::ALL {
            if let Some(name) = reason.json_name() {
                assert_eq!(ActionReason::from_json_name(name), Some(reason));
            }
            assert_eq!(ActionReason::from_code(reason.code()), Some(reason));
        }
    }
}
