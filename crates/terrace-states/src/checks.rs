//! Results of custom conditions (resource preconditions and
//! postconditions, output preconditions, `check` assertions, variable
//! validations) as a run left them: stored in the state (`check_results`)
//! and in saved plans, shown by `show -json` as `checks`.
//!
//! Results are kept per configuration object (a resource block, an output,
//! a `check` block, a variable, each in a static module path) and within it
//! per dynamic object (each instance in each module instance). The objects
//! are `None` when the run never learned which instances there are (the
//! expansion failed or was not reached): the aggregate is then unknown.
//!
//! The file format promises no order (terraform writes these entries in
//! the order of a Go map): results read from a file keep the order they
//! were read in, so the file is written back byte for byte; results a run
//! makes are sorted by address, so two runs with the same results write
//! the same bytes. Equality ignores order.

/// The outcome of one condition, of one object's conditions, or of all
/// objects of a configuration object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CheckStatus {
    /// Not evaluated, or the condition depends on values not known yet.
    Unknown,
    Pass,
    Fail,
    /// The condition or its message could not be evaluated.
    Error,
}

impl CheckStatus {
    /// The name the state file and the JSON output use.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Unknown => "unknown",
            CheckStatus::Pass => "pass",
            CheckStatus::Fail => "fail",
            CheckStatus::Error => "error",
        }
    }

    /// Any status this version does not know reads as unknown, so that a
    /// state written by a later version still loads.
    pub fn parse(s: &str) -> CheckStatus {
        match s {
            "pass" => CheckStatus::Pass,
            "fail" => CheckStatus::Fail,
            "error" => CheckStatus::Error,
            _ => CheckStatus::Unknown,
        }
    }

    /// Several statuses as one: an error anywhere wins, then a failure,
    /// then anything not known yet; nothing at all passes.
    pub fn summarize(statuses: impl IntoIterator<Item = CheckStatus>) -> CheckStatus {
        statuses
            .into_iter()
            .map(|s| match s {
                CheckStatus::Error => 3,
                CheckStatus::Fail => 2,
                CheckStatus::Unknown => 1,
                CheckStatus::Pass => 0,
            })
            .max()
            .map_or(CheckStatus::Pass, |rank| match rank {
                3 => CheckStatus::Error,
                2 => CheckStatus::Fail,
                1 => CheckStatus::Unknown,
                _ => CheckStatus::Pass,
            })
    }
}

/// What kind of configuration object declared the conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckableKind {
    Resource,
    OutputValue,
    Check,
    InputVariable,
}

impl CheckableKind {
    /// The `object_kind` of the state file.
    pub fn state_name(self) -> &'static str {
        match self {
            CheckableKind::Resource => "resource",
            CheckableKind::OutputValue => "output",
            CheckableKind::Check => "check",
            CheckableKind::InputVariable => "var",
        }
    }

    /// The `kind` of `show -json`'s `checks` addresses.
    pub fn json_name(self) -> &'static str {
        match self {
            CheckableKind::Resource => "resource",
            CheckableKind::OutputValue => "output_value",
            CheckableKind::Check => "check",
            CheckableKind::InputVariable => "var",
        }
    }

    pub fn parse_state_name(s: &str) -> Option<CheckableKind> {
        match s {
            "resource" => Some(CheckableKind::Resource),
            "output" => Some(CheckableKind::OutputValue),
            "check" => Some(CheckableKind::Check),
            "var" => Some(CheckableKind::InputVariable),
            _ => None,
        }
    }
}

/// The results of every configuration object with conditions.
#[derive(Clone, Debug, Default)]
pub struct CheckResults {
    configs: Vec<ConfigCheckResult>,
}

impl PartialEq for CheckResults {
    fn eq(&self, other: &CheckResults) -> bool {
        self.configs.len() == other.configs.len()
            && CheckResults::new(self.configs.clone()).configs
                == CheckResults::new(other.configs.clone()).configs
    }
}

impl Eq for CheckResults {}

/// One configuration object: `terraform_data.a`, `module.m.output.o`,
/// `check.health`, `var.n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigCheckResult {
    pub kind: CheckableKind,
    pub config_addr: String,
    pub status: CheckStatus,
    /// Sorted by `object_addr`; `None` when the objects are not known.
    pub objects: Option<Vec<ObjectCheckResult>>,
}

/// One dynamic object: `terraform_data.a[0]`, `module.m["x"].output.o`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectCheckResult {
    pub object_addr: String,
    pub status: CheckStatus,
    /// The messages of the conditions that failed, sorted.
    pub failure_messages: Vec<String>,
}

impl CheckResults {
    /// Results as a file listed them, in its order.
    pub fn in_file_order(configs: Vec<ConfigCheckResult>) -> CheckResults {
        CheckResults { configs }
    }

    /// Results from entries in any order, sorted by address.
    pub fn new(mut configs: Vec<ConfigCheckResult>) -> CheckResults {
        for c in &mut configs {
            if let Some(objects) = &mut c.objects {
                objects.sort_by(|a, b| a.object_addr.cmp(&b.object_addr));
                for o in objects.iter_mut() {
                    o.failure_messages.sort();
                }
            }
        }
        configs.sort_by(|a, b| a.config_addr.cmp(&b.config_addr));
        CheckResults { configs }
    }

    pub fn configs(&self) -> &[ConfigCheckResult] {
        &self.configs
    }

    pub fn is_empty(&self) -> bool {
        self.configs.is_empty()
    }

    /// The results in the state file's shape, for other files that carry
    /// them (saved plans).
    pub fn to_json(&self) -> serde_json::Value {
        let configs = self.configs.iter().map(|c| {
            let objects = c.objects.as_ref().map(|objects| {
                objects
                    .iter()
                    .map(|o| {
                        serde_json::json!({
                            "object_addr": o.object_addr,
                            "status": o.status.as_str(),
                            "failure_messages": o.failure_messages,
                        })
                    })
                    .collect::<Vec<_>>()
            });
            serde_json::json!({
                "object_kind": c.kind.state_name(),
                "config_addr": c.config_addr,
                "status": c.status.as_str(),
                "objects": objects,
            })
        });
        serde_json::Value::Array(configs.collect())
    }

    /// Reads what [`CheckResults::to_json`] wrote.
    pub fn from_json(j: &serde_json::Value) -> Result<CheckResults, String> {
        let text = |v: &serde_json::Value, key: &str| -> Result<String, String> {
            v.get(key)
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("check result without {key}"))
        };
        let items = j.as_array().ok_or("check results are not a list")?;
        let mut configs = Vec::with_capacity(items.len());
        for c in items {
            let kind_name = text(c, "object_kind")?;
            let kind = CheckableKind::parse_state_name(&kind_name)
                .ok_or_else(|| format!("unknown kind of checkable object {kind_name:?}"))?;
            let objects = match c.get("objects") {
                None | Some(serde_json::Value::Null) => None,
                Some(list) => {
                    let list = list.as_array().ok_or("check objects are not a list")?;
                    let mut objects = Vec::with_capacity(list.len());
                    for o in list {
                        let failure_messages = match o.get("failure_messages") {
                            Some(serde_json::Value::Array(m)) => m
                                .iter()
                                .map(|m| m.as_str().map(str::to_string))
                                .collect::<Option<Vec<_>>>()
                                .ok_or("a failure message is not a string")?,
                            _ => Vec::new(),
                        };
                        objects.push(ObjectCheckResult {
                            object_addr: text(o, "object_addr")?,
                            status: CheckStatus::parse(&text(o, "status")?),
                            failure_messages,
                        });
                    }
                    Some(objects)
                }
            };
            configs.push(ConfigCheckResult {
                kind,
                config_addr: text(c, "config_addr")?,
                status: CheckStatus::parse(&text(c, "status")?),
                objects,
            });
        }
        Ok(CheckResults::in_file_order(configs))
    }

    pub fn get(&self, config_addr: &str) -> Option<&ConfigCheckResult> {
        self.configs.iter().find(|c| c.config_addr == config_addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_ranks_error_over_failure_over_unknown() {
        use CheckStatus::*;
        assert_eq!(CheckStatus::summarize([]), Pass);
        assert_eq!(CheckStatus::summarize([Pass, Pass]), Pass);
        assert_eq!(CheckStatus::summarize([Pass, Unknown]), Unknown);
        assert_eq!(CheckStatus::summarize([Unknown, Fail, Pass]), Fail);
        assert_eq!(CheckStatus::summarize([Fail, Error]), Error);
    }

    #[test]
    fn entries_are_kept_in_address_order_whatever_order_they_came_in() {
        let object = |addr: &str, msgs: &[&str]| ObjectCheckResult {
            object_addr: addr.to_string(),
            status: CheckStatus::Fail,
            failure_messages: msgs.iter().map(|m| m.to_string()).collect(),
        };
        let results = CheckResults::new(vec![
            ConfigCheckResult {
                kind: CheckableKind::Resource,
                config_addr: "terraform_data.a".into(),
                status: CheckStatus::Fail,
                objects: Some(vec![
                    object("terraform_data.a[1]", &["z", "a"]),
                    object("terraform_data.a[0]", &[]),
                ]),
            },
            ConfigCheckResult {
                kind: CheckableKind::Check,
                config_addr: "check.c".into(),
                status: CheckStatus::Unknown,
                objects: None,
            },
        ]);
        let addrs: Vec<&str> = results
            .configs()
            .iter()
            .map(|c| c.config_addr.as_str())
            .collect();
        assert_eq!(addrs, ["check.c", "terraform_data.a"]);
        let a = results
            .get("terraform_data.a")
            .and_then(|c| c.objects.as_ref());
        let a = a.map(|o| (o[0].object_addr.as_str(), o[1].failure_messages.clone()));
        assert_eq!(
            a,
            Some((
                "terraform_data.a[0]",
                vec!["a".to_string(), "z".to_string()]
            ))
        );
        assert!(results.get("check.zzz").is_none());
        let mut reversed = results.configs().to_vec();
        reversed.reverse();
        assert_eq!(CheckResults::in_file_order(reversed), results);
        assert_eq!(CheckResults::from_json(&results.to_json()), Ok(results));
    }
}
