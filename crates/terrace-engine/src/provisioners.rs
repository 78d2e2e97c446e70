//! Resource provisioners as Terraform runs them. Only `local-exec` can run
//! here: `file` and `remote-exec` need an SSH or WinRM connection to the
//! new host, which terrace does not implement, so the validate walk (which
//! `plan` and `apply` start with) refuses them instead of silently skipping
//! them. Create-time provisioners run after a successful create, in
//! declaration order, with `self` as the new object; destroy-time ones
//! run before the object is deleted. A provisioner's messages (the
//! `Executing: [...]` line, then its output line by line) go to the UI
//! through [`Hooks`](crate::Hooks) as they arrive.

use crate::scope::EvalScope;
use crate::{CommandRunner, Hooks, LocalCommand};
use std::collections::BTreeMap;
use std::path::Path;
use terrace_addrs::{AbsResourceInstance, ConfigResource, ModuleInstance};
use terrace_config::loader::Config;
use terrace_config::model::{
    Provisioner, ProvisionerOnFailure, ProvisionerWhen, RemoveEndpoint, Resource,
};
use terrace_providers::{Attribute, Block};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::{Type, Value};

pub(crate) const LOCAL_EXEC: &str = "local-exec";

/// Provisioners Terraform ships that need a connection to a remote host.
const NEEDS_CONNECTION: [&str; 2] = ["file", "remote-exec"];

/// What the terminal shows instead of a provisioner's messages when its
/// configuration holds a sensitive value.
const SUPPRESSED: &str = "(output suppressed due to sensitive value in config)";

/// The arguments of a `local-exec` block.
pub(crate) fn local_exec_schema() -> Block {
    let optional = |ty: Type| Attribute {
        optional: true,
        ..Attribute::new(ty)
    };
    let mut attributes = BTreeMap::new();
    attributes.insert(
        "command".to_string(),
        Attribute {
            required: true,
            ..Attribute::new(Type::String)
        },
    );
    attributes.insert(
        "interpreter".to_string(),
        optional(Type::list(Type::String)),
    );
    attributes.insert("working_dir".to_string(), optional(Type::String));
    attributes.insert("environment".to_string(), optional(Type::map(Type::String)));
    attributes.insert("quiet".to_string(), optional(Type::Bool));
    Block {
        attributes,
        ..Block::default()
    }
}

/// The provisioners of a resource block that run at `when`.
pub(crate) fn of_resource(r: &Resource, when: ProvisionerWhen) -> Vec<&Provisioner> {
    r.managed
        .iter()
        .flat_map(|m| m.provisioners.iter())
        .filter(|p| p.when == when)
        .collect()
}

/// Every provisioner block of the configuration (resources and `removed`
/// blocks), checked for a type terrace can run: unknown types get
/// Terraform's "Missing required provisioner plugin" (sorted, as
/// Terraform sorts them), connection-based ones an explanation.
pub(crate) fn check_types(config: &Config) -> Diagnostics {
    let mut missing = Vec::new();
    let mut unsupported = Diagnostics::new();
    config.deep_each(&mut |c| {
        let resources = c
            .module
            .managed_resources
            .values()
            .flat_map(|r| r.managed.iter().flat_map(|m| m.provisioners.iter()));
        let removed = c.module.removed.iter().flat_map(|r| r.provisioners.iter());
        for p in resources.chain(removed) {
            if p.type_name == LOCAL_EXEC {
                continue;
            }
            if NEEDS_CONNECTION.contains(&p.type_name.as_str()) {
                let mut d = Diagnostic::error(
                    "Unsupported provisioner",
                    format!(
                        "The {:?} provisioner needs an SSH or WinRM connection to the remote host, which terrace does not support. terrace runs only \"local-exec\" provisioners.",
                        p.type_name
                    ),
                );
                d.subject = Some(p.type_range.clone());
                unsupported.push(d);
            } else {
                missing.push(Diagnostic::error(
                    "Missing required provisioner plugin",
                    format!(
                        "This configuration requires provisioner plugin {:?}, which isn't available. If you're intending to use an external provisioner plugin, you must install it manually into one of the plugin search directories before running {PRODUCT}.",
                        p.type_name
                    ),
                ));
            }
        }
    });
    missing.sort_by(|a, b| a.detail.cmp(&b.detail));
    missing.dedup_by(|a, b| a.detail == b.detail);
    missing.extend(unsupported);
    missing
}

/// The validate walk's check of one `local-exec` block: its arguments
/// decoded (with `self` unknown) and its command, when known, not empty.
pub(crate) fn validate(p: &Provisioner, scope: &EvalScope<'_, '_>) -> Diagnostics {
    if p.type_name != LOCAL_EXEC {
        return Diagnostics::new();
    }
    let (value, mut diags) = crate::common::decode_config(&p.config, &local_exec_schema(), scope);
    if has_errors(&diags) {
        return diags;
    }
    let (value, _) = value.unmark_deep();
    let command = attr(&value, "command");
    if command.is_known() && command.as_str().is_none_or(str::is_empty) {
        diags.push(empty_command(p));
    }
    diags
}

fn empty_command(p: &Provisioner) -> Diagnostic {
    let mut d = Diagnostic::error(
        "Invalid local-exec provisioner command",
        "The command must be a non-empty string.",
    );
    d.subject = Some(p.config.missing_item_range());
    d
}

fn attr(v: &Value, name: &str) -> Value {
    v.as_attributes()
        .and_then(|a| a.get(name).cloned())
        .unwrap_or_else(|| Value::null(Type::Dynamic))
}

/// The destroy-time provisioners a `removed` block declares for `addr`,
/// with the module that declares them.
pub(crate) fn of_removed<'c>(
    root: &'c Config,
    addr: &ConfigResource,
) -> Option<(&'c Config, Vec<&'c Provisioner>)> {
    let names: Vec<String> = addr.module.names().iter().map(|n| n.to_string()).collect();
    for depth in 0..=names.len() {
        let Some(c) = root.descendant(&names[..depth]) else {
            continue;
        };
        for r in &c.module.removed {
            let Some(RemoveEndpoint::Resource(cr)) = &r.from else {
                continue;
            };
            let full: Vec<String> = names[..depth]
                .iter()
                .cloned()
                .chain(cr.module.names().iter().map(|n| n.to_string()))
                .collect();
            if full.as_slice() == names && cr.resource == addr.resource {
                let provs = r
                    .provisioners
                    .iter()
                    .filter(|p| p.when == ProvisionerWhen::Destroy)
                    .collect();
                return Some((c, provs));
            }
        }
    }
    None
}

/// The instance of the module `depth` levels deep on the way to `module`.
pub(crate) fn ancestor(module: &ModuleInstance, depth: usize) -> ModuleInstance {
    let mut m = module.clone();
    while m.len() > depth {
        m = m.parent();
    }
    m
}

/// Runs `provs` in order for `addr`. A failing provisioner with
/// `on_failure = fail` stops the rest and its error is returned; with
/// `continue` its error is dropped, as Terraform drops it.
pub(crate) fn run(
    provs: &[&Provisioner],
    scope: &EvalScope<'_, '_>,
    hooks: &dyn Hooks,
    addr: &AbsResourceInstance,
) -> Diagnostics {
    let mut diags = Diagnostics::new();
    let schema = local_exec_schema();
    let address = addr.to_string();
    for p in provs {
        let (config, d) = crate::common::decode_config(&p.config, &schema, scope);
        diags.extend(d);
        if has_errors(&diags) {
            return diags;
        }
        hooks.provisioning(addr, &p.type_name);
        let (config, marks) = config.unmark_deep();
        let sensitive = marks.is_sensitive();
        let emit = |line: &str| {
            hooks.provision_output(
                addr,
                &p.type_name,
                if sensitive { SUPPRESSED } else { line },
            )
        };
        let result = if p.type_name == LOCAL_EXEC {
            local_exec(
                &config,
                &scope.env.ctx.working_dir,
                scope.env.ctx.commands.as_ref(),
                &emit,
                &|| hooks.stopping(),
            )
        } else {
            // Refused by the validate walk; a plan made elsewhere may
            // still name one.
            Err(format!(
                "terrace cannot run the {:?} provisioner: only \"local-exec\" is supported.",
                p.type_name
            ))
        };
        hooks.provisioned(addr, &p.type_name, result.is_ok());
        let Err(detail) = result else { continue };
        if p.on_failure == ProvisionerOnFailure::Continue {
            continue;
        }
        let mut d = if detail.is_empty() {
            empty_command(p)
        } else {
            let summary = format!("{} provisioner error", p.type_name);
            Diagnostic::error(summary, detail)
        };
        d.subject = Some(p.config.missing_item_range());
        d.address = Some(address.clone());
        diags.push(d);
        return diags;
    }
    diags
}

/// Runs one `local-exec` command, streaming its combined output through
/// `emit`. `Err` carries the error's detail; an empty one means the
/// command itself was empty.
/// An interrupt (`stopping`) kills the command and everything it started,
/// as Terraform does, so the apply can end.
fn local_exec(
    config: &Value,
    base_dir: &Path,
    runner: &dyn CommandRunner,
    emit: &dyn Fn(&str),
    stopping: &(dyn Fn() -> bool + Sync),
) -> Result<(), String> {
    let command = match attr(config, "command").as_str() {
        Some(c) if !c.is_empty() => c.to_string(),
        _ => return Err(String::new()),
    };
    let interpreter: Vec<String> = attr(config, "interpreter")
        .as_elements()
        .map(|es| {
            es.iter()
                .filter_map(|e| e.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut argv = if interpreter.is_empty() {
        vec!["/bin/sh".to_string(), "-c".to_string()]
    } else {
        interpreter
    };
    argv.push(command.clone());
    let env: Vec<(String, String)> = attr(config, "environment")
        .as_attributes()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default();
    let working_dir = attr(config, "working_dir").as_str().map(str::to_string);

    if attr(config, "quiet").as_bool() == Some(true) {
        emit("local-exec: Executing: Suppressed by quiet=true");
    } else {
        let quoted: Vec<String> = argv
            .iter()
            .map(|a| terrace_value::gostr::quote(a))
            .collect();
        emit(&format!("Executing: [{}]", quoted.join(" ")));
    }
    let local = LocalCommand {
        argv,
        env,
        base_dir: base_dir.to_path_buf(),
        working_dir,
    };
    runner.run(&local, emit, stopping).map_err(|failure| {
        format!(
            "Error running command '{command}': {}. Output: {}",
            failure.error,
            String::from_utf8_lossy(&failure.output)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CommandFailure;
    use std::sync::Mutex;

    fn config(pairs: &[(&str, Value)]) -> Value {
        Value::object(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    /// Records the command it is given and answers with `outcome`, after
    /// emitting `output`'s lines.
    struct Recorder {
        seen: Mutex<Vec<LocalCommand>>,
        output: &'static str,
        outcome: Result<(), CommandFailure>,
    }

    impl CommandRunner for Recorder {
        fn run(
            &self,
            command: &LocalCommand,
            emit: &dyn Fn(&str),
            _: &(dyn Fn() -> bool + Sync),
        ) -> Result<(), CommandFailure> {
            if let Ok(mut seen) = self.seen.lock() {
                seen.push(command.clone());
            }
            self.output.lines().for_each(emit);
            self.outcome.clone()
        }
    }

    fn run_local(cfg: &Value, runner: &Recorder) -> (Result<(), String>, Vec<String>) {
        let lines = Mutex::new(Vec::new());
        let emit = |l: &str| {
            if let Ok(mut g) = lines.lock() {
                g.push(l.to_string());
            }
        };
        let r = local_exec(cfg, Path::new("/work/dir"), runner, &emit, &|| false);
        (r, lines.into_inner().unwrap_or_default())
    }

    #[test]
    fn the_command_runs_under_its_interpreter_and_its_output_is_streamed() {
        let runner = Recorder {
            seen: Mutex::new(Vec::new()),
            output: "one\ntwo\nthree",
            outcome: Ok(()),
        };
        let cfg = config(&[(
            "command",
            Value::string("echo one; echo two >&2; printf 'three'"),
        )]);
        let (r, lines) = run_local(&cfg, &runner);
        assert_eq!(r, Ok(()));
        assert_eq!(
            lines,
            [
                r#"Executing: ["/bin/sh" "-c" "echo one; echo two >&2; printf 'three'"]"#,
                "one",
                "two",
                "three"
            ]
        );
        let interpreter = config(&[
            ("command", Value::string("x")),
            (
                "interpreter",
                Value::list(
                    Type::String,
                    vec![Value::string("bash"), Value::string("-e")],
                ),
            ),
        ]);
        assert_eq!(run_local(&interpreter, &runner).0, Ok(()));
        let seen = runner.seen.lock().map(|s| s.clone()).unwrap_or_default();
        assert_eq!(
            seen[0].argv,
            ["/bin/sh", "-c", "echo one; echo two >&2; printf 'three'"]
        );
        assert_eq!(seen[1].argv, ["bash", "-e", "x"]);
        assert_eq!(seen[1].base_dir, Path::new("/work/dir"));
    }

    #[test]
    fn failures_name_the_command_and_its_output() {
        let runner = Recorder {
            seen: Mutex::new(Vec::new()),
            output: "out",
            outcome: Err(CommandFailure {
                error: "exit status 3".to_string(),
                output: b"out\n".to_vec(),
            }),
        };
        let (r, _) = run_local(
            &config(&[("command", Value::string("echo out; exit 3"))]),
            &runner,
        );
        assert_eq!(
            r,
            Err(
                "Error running command 'echo out; exit 3': exit status 3. Output: out\n"
                    .to_string()
            )
        );
        // An empty command is refused before anything runs.
        let (r, lines) = run_local(&config(&[("command", Value::string(""))]), &runner);
        assert_eq!((r, lines.len()), (Err(String::new()), 0));
        assert_eq!(runner.seen.lock().map(|s| s.len()).unwrap_or_default(), 1);
    }

    #[test]
    fn environment_working_dir_and_quiet() {
        let runner = Recorder {
            seen: Mutex::new(Vec::new()),
            output: "hello",
            outcome: Ok(()),
        };
        let cfg = config(&[
            ("command", Value::string("echo $TERRACE_PV_X; pwd")),
            ("quiet", Value::bool(true)),
            ("working_dir", Value::string("sub")),
            (
                "environment",
                Value::map(
                    Type::String,
                    [("TERRACE_PV_X".to_string(), Value::string("hello"))]
                        .into_iter()
                        .collect(),
                ),
            ),
        ]);
        let (r, lines) = run_local(&cfg, &runner);
        assert_eq!(r, Ok(()));
        assert_eq!(
            lines,
            ["local-exec: Executing: Suppressed by quiet=true", "hello"]
        );
        let seen = runner.seen.lock().map(|s| s.clone()).unwrap_or_default();
        assert_eq!(seen[0].working_dir.as_deref(), Some("sub"));
        assert_eq!(
            seen[0].env,
            [("TERRACE_PV_X".to_string(), "hello".to_string())]
        );
    }
}
