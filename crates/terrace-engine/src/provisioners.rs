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
use crate::Hooks;
use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use terrace_addrs::{AbsResourceInstance, ConfigResource, ModuleInstance};
use terrace_config::loader::Config;
use terrace_config::model::{
    Provisioner, ProvisionerOnFailure, ProvisionerWhen, RemoveEndpoint, Resource,
};
use terrace_providers::{Attribute, Block};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::{Type, Value};

pub(crate) const LOCAL_EXEC: &str = "local-exec";

/// Provisioners Terraform ships that need a connection to a remote host.
const NEEDS_CONNECTION: [&str; 2] = ["file", "remote-exec"];

/// How much of a failed command's output its error repeats (the tail).
const MAX_ERROR_OUTPUT: usize = 8 * 1024;

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
                        "This configuration requires provisioner plugin {:?}, which isn't available. If you're intending to use an external provisioner plugin, you must install it manually into one of the plugin search directories before running Terraform.",
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
            local_exec(&config, &scope.env.ctx.working_dir, &emit, &|| {
                hooks.stopping()
            })
        } else {
            // Refused by the validate walk; a plan made elsewhere may
            // still name one.
            Err(format!(
                "terrace cannot run the {:?} provisioner: only \"local-exec\" is supported.",
                p.type_name
            ))
        };
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
    let fail = |err: String, output: &[u8]| {
        Err(format!(
            "Error running command '{command}': {err}. Output: {}",
            String::from_utf8_lossy(output)
        ))
    };

    let program = match resolve_program(&argv[0]) {
        Ok(p) => p,
        Err(e) => return fail(e, b""),
    };
    let dir = match &working_dir {
        Some(d) => {
            let full = base_dir.join(d);
            match std::fs::metadata(&full) {
                Ok(m) if m.is_dir() => full,
                Ok(_) => return fail(format!("chdir {d}: not a directory"), b""),
                Err(e) => return fail(format!("chdir {d}: {}", go_errno(&e)), b""),
            }
        }
        None => base_dir.to_path_buf(),
    };
    // One pipe for both streams keeps stdout and stderr interleaved as
    // the command wrote them.
    let (reader, writer) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => return fail(format!("pipe: {}", go_errno(&e)), b""),
    };
    let child = {
        let mut cmd = Command::new(&program);
        cmd.args(&argv[1..])
            .current_dir(&dir)
            .envs(env)
            .stdin(Stdio::null());
        match writer.try_clone() {
            Ok(w) => {
                cmd.stdout(w);
            }
            Err(e) => return fail(format!("pipe: {}", go_errno(&e)), b""),
        }
        cmd.stderr(writer);
        // Its own process group: Ctrl-C at the terminal reaches terrace
        // only, which decides, and a kill reaches the whole command.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        // `cmd` (holding the write ends) is dropped at the end of this
        // block, so the reader sees the end once the command exits.
        cmd.spawn()
    };
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            return fail(
                format!("fork/exec {}: {}", program.display(), go_errno(&e)),
                b"",
            )
        }
    };
    let mut tail: VecDeque<u8> = VecDeque::new();
    let group = i32::try_from(child.id()).unwrap_or(0);
    let finished = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !finished.load(std::sync::atomic::Ordering::SeqCst) {
                if stopping() && group > 0 {
                    // SAFETY: kill(2) has no memory-safety preconditions;
                    // the group is the command's own (process_group(0)).
                    unsafe {
                        libc::kill(-group, libc::SIGKILL);
                    }
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
        let mut lines = BufReader::new(reader);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match lines.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            tail.extend(buf.iter().copied());
            if tail.len() > MAX_ERROR_OUTPUT {
                tail.drain(..tail.len() - MAX_ERROR_OUTPUT);
            }
            let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
            emit(&String::from_utf8_lossy(line));
        }
        finished.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let output: Vec<u8> = tail.into_iter().collect();
    match child.wait() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => fail(exit_text(status), &output),
        Err(e) => fail(go_errno(&e), &output),
    }
}

/// Go's `exec.LookPath`: a name with a slash is used as it is, any other
/// is searched in `PATH`.
fn resolve_program(name: &str) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    if name.contains('/') {
        return Ok(PathBuf::from(name));
    }
    let not_found = || {
        format!(
            "exec: {}: executable file not found in $PATH",
            terrace_value::gostr::quote(name)
        )
    };
    if name.is_empty() {
        return Err(not_found());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let candidate = dir.join(name);
        if let Ok(m) = std::fs::metadata(&candidate) {
            if m.is_file() && m.permissions().mode() & 0o111 != 0 {
                return Ok(candidate);
            }
        }
    }
    Err(not_found())
}

/// An OS error as Go words it (`no such file or directory`).
fn go_errno(e: &std::io::Error) -> String {
    let Some(code) = e.raw_os_error() else {
        return e.to_string();
    };
    let text = std::io::Error::from_raw_os_error(code).to_string();
    let text = match text.find(" (os error") {
        Some(i) => &text[..i],
        None => text.as_str(),
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Go's `ProcessState.String()` for a command that did not succeed.
fn exit_text(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    let Some(sig) = status.signal() else {
        return "exit status -1".to_string();
    };
    let name = match sig {
        1 => "hangup".to_string(),
        2 => "interrupt".to_string(),
        3 => "quit".to_string(),
        4 => "illegal instruction".to_string(),
        5 => "trace/breakpoint trap".to_string(),
        6 => "aborted".to_string(),
        7 => "bus error".to_string(),
        8 => "floating point exception".to_string(),
        9 => "killed".to_string(),
        10 => "user defined signal 1".to_string(),
        11 => "segmentation fault".to_string(),
        12 => "user defined signal 2".to_string(),
        13 => "broken pipe".to_string(),
        14 => "alarm clock".to_string(),
        15 => "terminated".to_string(),
        n => format!("signal {n}"),
    };
    if status.core_dumped() {
        format!("signal: {name} (core dumped)")
    } else {
        format!("signal: {name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn config(pairs: &[(&str, Value)]) -> Value {
        Value::object(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn run_local(cfg: &Value) -> (Result<(), String>, Vec<String>) {
        let lines = Mutex::new(Vec::new());
        let emit = |l: &str| {
            if let Ok(mut g) = lines.lock() {
                g.push(l.to_string());
            }
        };
        let r = local_exec(cfg, &std::env::temp_dir(), &emit, &|| false);
        (r, lines.into_inner().unwrap_or_default())
    }

    #[test]
    fn an_interrupt_kills_the_command_and_what_it_started() {
        // `sh` starts `sleep`, which holds the output pipe: only a kill of
        // the whole group lets the run end before the sleep would.
        let cfg = config(&[("command", Value::string("sleep 600; echo never"))]);
        let r = local_exec(&cfg, &std::env::temp_dir(), &|_| {}, &|| true);
        assert_eq!(
            r,
            Err("Error running command 'sleep 600; echo never': signal: killed. Output: ".into())
        );
    }

    #[test]
    fn streams_lines_of_both_streams_in_order() {
        let cfg = config(&[(
            "command",
            Value::string("echo one; echo two >&2; printf 'three'"),
        )]);
        let (r, lines) = run_local(&cfg);
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
    }

    #[test]
    fn failures_are_worded_as_go_words_them() {
        let cases: &[(&[(&str, Value)], &str)] = &[
            (
                &[("command", Value::string("echo out; exit 3"))],
                "Error running command 'echo out; exit 3': exit status 3. Output: out\n",
            ),
            (
                &[("command", Value::string("kill -9 $$"))],
                "Error running command 'kill -9 $$': signal: killed. Output: ",
            ),
            (
                &[
                    ("command", Value::string("x")),
                    (
                        "interpreter",
                        Value::list(Type::String, vec![Value::string("no-such-interpreter-x")]),
                    ),
                ],
                "Error running command 'x': exec: \"no-such-interpreter-x\": executable file not found in $PATH. Output: ",
            ),
            (
                &[
                    ("command", Value::string("x")),
                    ("working_dir", Value::string("/no/such/dir")),
                ],
                "Error running command 'x': chdir /no/such/dir: no such file or directory. Output: ",
            ),
            (&[("command", Value::string(""))], ""),
        ];
        for (pairs, want) in cases {
            let (r, _) = run_local(&config(pairs));
            assert_eq!(r, Err(want.to_string()), "{pairs:?}");
        }
    }

    #[test]
    fn environment_working_dir_and_quiet() {
        let dir = std::env::temp_dir();
        let cfg = config(&[
            ("command", Value::string("echo $TERRACE_PV_X; pwd")),
            ("quiet", Value::bool(true)),
            ("working_dir", Value::string(dir.to_string_lossy())),
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
        let (r, lines) = run_local(&cfg);
        assert_eq!(r, Ok(()));
        let canonical = std::fs::canonicalize(&dir).unwrap_or(dir);
        assert_eq!(lines[0], "local-exec: Executing: Suppressed by quiet=true");
        assert_eq!(lines[1], "hello");
        assert_eq!(
            std::fs::canonicalize(&lines[2]).ok(),
            Some(canonical),
            "{lines:?}"
        );
    }

    #[test]
    fn go_error_strings() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(go_errno(&e), "no such file or directory");
        let e = std::io::Error::from_raw_os_error(13);
        assert_eq!(go_errno(&e), "permission denied");
    }
}
