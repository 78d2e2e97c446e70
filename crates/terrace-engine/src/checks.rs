//! What one walk learns about custom conditions: for every configuration
//! object that declares any (resource preconditions and postconditions,
//! output preconditions, `check` assertions and the `check` block's scoped
//! data source, variable validations), which dynamic objects it expanded
//! to and the status of each of their conditions.
//!
//! Each walk starts from nothing: a plan records what the plan evaluated,
//! an apply what the apply evaluated (the apply starts knowing the objects
//! the plan found, so a condition it never reaches stays unknown rather
//! than disappearing). A condition not reported counts as unknown, so an
//! object whose expansion or evaluation was cut short by an error reads
//! as unknown, never as passed.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use terrace_addrs::ModuleInstance;
use terrace_config::loader::Config;
use terrace_states::{
    CheckResults, CheckStatus, CheckableKind, ConfigCheckResult, ObjectCheckResult,
};

/// Which list of conditions a rule comes from; with its index it names
/// one rule of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RuleKind {
    ResourcePrecondition,
    ResourcePostcondition,
    OutputPrecondition,
    CheckAssertion,
    /// A `check` block's scoped data source: read without errors.
    CheckDataResource,
    InputValidation,
}

#[derive(Default)]
struct ObjectRecord {
    statuses: HashMap<(RuleKind, usize), CheckStatus>,
    failures: Vec<String>,
}

struct Checkable {
    kind: CheckableKind,
    /// How many rules each object has.
    rule_count: usize,
    /// By dynamic address; `None` until the expansion is known.
    objects: Option<BTreeMap<String, ObjectRecord>>,
}

/// The conditions of one walk.
#[derive(Default)]
pub(crate) struct CheckTracker {
    checkables: Mutex<HashMap<String, Checkable>>,
    /// A destroy walk checks nothing: every status stays unknown, and of
    /// the objects only resources' and root outputs' are known (it does
    /// not expand variables or child modules' outputs for checking).
    destroy_walk: bool,
}

/// The static address prefix of a module path: `module.a.module.b.`, or
/// nothing for the root.
fn module_prefix(path: &[String]) -> String {
    path.iter().map(|name| format!("module.{name}.")).collect()
}

fn instance_prefix(module: &ModuleInstance) -> String {
    if module.is_root() {
        String::new()
    } else {
        format!("{module}.")
    }
}

/// `output.o`, `check.c`, `var.v` in a static module path, as the state
/// file names a configuration object.
pub(crate) fn config_addr(module: &terrace_addrs::Module, kind: &str, name: &str) -> String {
    if module.is_root() {
        format!("{kind}.{name}")
    } else {
        format!("{module}.{kind}.{name}")
    }
}

/// The same object in one module instance.
pub(crate) fn object_addr(module: &ModuleInstance, kind: &str, name: &str) -> String {
    format!("{}{kind}.{name}", instance_prefix(module))
}

impl CheckTracker {
    /// Every object of `config` (and its descendants) that declares
    /// conditions; objects without any are never recorded.
    pub(crate) fn for_config(config: &Config) -> CheckTracker {
        let mut checkables = HashMap::new();
        collect(config, &mut checkables);
        CheckTracker {
            checkables: Mutex::new(checkables),
            destroy_walk: false,
        }
    }

    /// The tracker of a destroy walk.
    pub(crate) fn for_destroy(mut self) -> CheckTracker {
        self.destroy_walk = true;
        self
    }

    /// An apply's tracker: the objects the plan found are known from the
    /// start; their statuses are the apply's to find.
    pub(crate) fn for_apply(config: &Config, plan_results: Option<&CheckResults>) -> CheckTracker {
        let tracker = CheckTracker::for_config(config);
        if let Some(results) = plan_results {
            for c in results.configs() {
                if let Some(objects) = &c.objects {
                    tracker.report_objects(
                        &c.config_addr,
                        objects.iter().map(|o| o.object_addr.clone()),
                    );
                }
            }
        }
        tracker
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Checkable>> {
        self.checkables
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn has_checks(&self, config_addr: &str) -> bool {
        self.lock().contains_key(config_addr)
    }

    /// The dynamic objects `config_addr` expanded to. The first report
    /// stands (an apply keeps the plan's objects).
    pub(crate) fn report_objects(
        &self,
        config_addr: &str,
        objects: impl IntoIterator<Item = String>,
    ) {
        let mut checkables = self.lock();
        let Some(c) = checkables.get_mut(config_addr) else {
            return;
        };
        let unexpanded = c.kind == CheckableKind::InputVariable
            || (c.kind == CheckableKind::OutputValue && config_addr.starts_with("module."));
        if self.destroy_walk && unexpanded {
            return;
        }
        if c.objects.is_none() {
            c.objects = Some(
                objects
                    .into_iter()
                    .map(|o| (o, ObjectRecord::default()))
                    .collect(),
            );
        }
    }

    /// The status of rule `index` of `kind` on one object; `failure` is
    /// the message of a failed rule.
    pub(crate) fn report(
        &self,
        config_addr: &str,
        object_addr: &str,
        rule: (RuleKind, usize),
        status: CheckStatus,
        failure: Option<&str>,
    ) {
        let mut checkables = self.lock();
        let Some(c) = checkables.get_mut(config_addr) else {
            return;
        };
        if self.destroy_walk {
            return;
        }
        // An object the expansion did not announce (possible only when
        // its expansion failed and yet something evaluated it) is added
        // rather than lost.
        let objects = c.objects.get_or_insert_with(BTreeMap::new);
        let record = objects.entry(object_addr.to_string()).or_default();
        record.statuses.insert(rule, status);
        if let (CheckStatus::Fail, Some(message)) = (status, failure) {
            record.failures.push(message.to_string());
        }
    }

    /// The results as the state and the plan keep them.
    pub(crate) fn results(&self) -> Option<CheckResults> {
        let checkables = self.lock();
        let configs: Vec<ConfigCheckResult> = checkables
            .iter()
            .map(|(addr, c)| {
                let objects = c.objects.as_ref().map(|objects| {
                    objects
                        .iter()
                        .map(|(object_addr, record)| {
                            let unreported = c.rule_count.saturating_sub(record.statuses.len());
                            let status = CheckStatus::summarize(
                                record
                                    .statuses
                                    .values()
                                    .copied()
                                    .chain(std::iter::repeat_n(CheckStatus::Unknown, unreported)),
                            );
                            ObjectCheckResult {
                                object_addr: object_addr.clone(),
                                status,
                                failure_messages: record.failures.clone(),
                            }
                        })
                        .collect::<Vec<_>>()
                });
                let status = match &objects {
                    None => CheckStatus::Unknown,
                    Some(objects) => CheckStatus::summarize(objects.iter().map(|o| o.status)),
                };
                ConfigCheckResult {
                    kind: c.kind,
                    config_addr: addr.clone(),
                    status,
                    objects,
                }
            })
            .collect();
        (!configs.is_empty()).then(|| CheckResults::new(configs))
    }
}

fn collect(config: &Config, into: &mut HashMap<String, Checkable>) {
    let prefix = module_prefix(&config.path);
    let module = &config.module;
    let mut add = |addr: String, kind: CheckableKind, rule_count: usize| {
        if rule_count > 0 {
            into.insert(
                addr,
                Checkable {
                    kind,
                    rule_count,
                    objects: None,
                },
            );
        }
    };
    for r in module
        .managed_resources
        .values()
        .chain(module.data_resources.values())
        .chain(module.ephemeral_resources.values())
    {
        add(
            format!("{prefix}{}", r.address()),
            CheckableKind::Resource,
            r.preconditions.len() + r.postconditions.len(),
        );
    }
    for (name, o) in &module.outputs {
        add(
            format!("{prefix}output.{name}"),
            CheckableKind::OutputValue,
            o.preconditions.len(),
        );
    }
    for (name, c) in &module.checks {
        add(
            format!("{prefix}check.{name}"),
            CheckableKind::Check,
            c.asserts.len() + usize::from(c.data_resource.is_some()),
        );
    }
    for (name, v) in &module.variables {
        add(
            format!("{prefix}var.{name}"),
            CheckableKind::InputVariable,
            v.validations.len(),
        );
    }
    for child in config.children.values() {
        collect(child, into);
    }
}
