//! The commands `local-exec` provisioners run, started as Go's `os/exec`
//! starts them for terraform: the program looked up in `PATH`, stdout and
//! stderr through one pipe so their lines keep the order they were written
//! in, the command in its own process group (a Ctrl-C at the terminal
//! reaches terrace, which decides, and a kill reaches everything the
//! command started), and failures in Go's words. The engine decides what
//! to run; this is the only place that runs it.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::process::{Command, ExitStatus, Stdio};
use terrace_engine::{CommandFailure, CommandRunner, LocalCommand};
use terrace_gocompat::oserror::errno_text;

/// How much of a failed command's output its error quotes.
const MAX_ERROR_OUTPUT: usize = 8 * 1024;

/// Runs commands as processes of this machine.
pub struct ProcessCommandRunner;

impl CommandRunner for ProcessCommandRunner {
    fn run(
        &self,
        command: &LocalCommand,
        emit: &dyn Fn(&str),
        stopping: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), CommandFailure> {
        run_process(command, emit, stopping)
    }
}

fn run_process(
    command: &LocalCommand,
    emit: &dyn Fn(&str),
    stopping: &(dyn Fn() -> bool + Sync),
) -> Result<(), CommandFailure> {
    let fail = |error: String, output: &[u8]| {
        Err(CommandFailure {
            error,
            output: output.to_vec(),
        })
    };
    let Some((name, args)) = command.argv.split_first() else {
        return fail("exec: no command".to_string(), b"");
    };
    let program = match terrace_gocompat::exec::look_path(name) {
        Ok(p) => p,
        Err(e) => return fail(e, b""),
    };
    let dir = match &command.working_dir {
        Some(d) => {
            let full = command.base_dir.join(d);
            match std::fs::metadata(&full) {
                Ok(m) if m.is_dir() => full,
                Ok(_) => return fail(format!("chdir {d}: not a directory"), b""),
                Err(e) => return fail(format!("chdir {d}: {}", errno_text(&e)), b""),
            }
        }
        None => command.base_dir.clone(),
    };
    // One pipe for both streams keeps stdout and stderr interleaved as
    // the command wrote them.
    let (reader, writer) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => return fail(format!("pipe: {}", errno_text(&e)), b""),
    };
    let child = {
        let mut cmd = Command::new(&program);
        cmd.args(args)
            .current_dir(&dir)
            .envs(command.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        match writer.try_clone() {
            Ok(w) => {
                cmd.stdout(w);
            }
            Err(e) => return fail(format!("pipe: {}", errno_text(&e)), b""),
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
                format!("fork/exec {}: {}", program.display(), errno_text(&e)),
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
        Err(e) => fail(errno_text(&e), &output),
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
    use std::path::PathBuf;
    use std::sync::Mutex;

    fn shell(text: &str) -> LocalCommand {
        LocalCommand {
            argv: vec!["/bin/sh".into(), "-c".into(), text.into()],
            env: Vec::new(),
            base_dir: std::env::temp_dir(),
            working_dir: None,
        }
    }

    fn run(command: &LocalCommand) -> (Result<(), CommandFailure>, Vec<String>) {
        let lines = Mutex::new(Vec::new());
        let emit = |l: &str| {
            if let Ok(mut g) = lines.lock() {
                g.push(l.to_string());
            }
        };
        let r = ProcessCommandRunner.run(command, &emit, &|| false);
        (r, lines.into_inner().unwrap_or_default())
    }

    fn failure(error: &str, output: &str) -> Result<(), CommandFailure> {
        Err(CommandFailure {
            error: error.to_string(),
            output: output.as_bytes().to_vec(),
        })
    }

    #[test]
    fn an_interrupt_kills_the_command_and_what_it_started() {
        // `sh` starts `sleep`, which holds the output pipe: only a kill of
        // the whole group lets the run end before the sleep would.
        let r = ProcessCommandRunner.run(&shell("sleep 600; echo never"), &|_| {}, &|| true);
        assert_eq!(r, failure("signal: killed", ""));
    }

    #[test]
    fn streams_lines_of_both_streams_in_order() {
        let (r, lines) = run(&shell("echo one; echo two >&2; printf 'three'"));
        assert_eq!(r, Ok(()));
        assert_eq!(lines, ["one", "two", "three"]);
    }

    #[test]
    fn failures_are_worded_as_go_words_them() {
        let missing_interpreter = LocalCommand {
            argv: vec!["no-such-interpreter-x".into(), "x".into()],
            ..shell("x")
        };
        let missing_dir = LocalCommand {
            working_dir: Some("/no/such/dir".into()),
            ..shell("x")
        };
        let cases = [
            (shell("echo out; exit 3"), failure("exit status 3", "out\n")),
            (shell("kill -9 $$"), failure("signal: killed", "")),
            (
                missing_interpreter,
                failure(
                    "exec: \"no-such-interpreter-x\": executable file not found in $PATH",
                    "",
                ),
            ),
            (
                missing_dir,
                failure("chdir /no/such/dir: no such file or directory", ""),
            ),
        ];
        for (command, want) in cases {
            let (r, _) = run(&command);
            assert_eq!(r, want, "{command:?}");
        }
    }

    #[test]
    fn environment_and_working_dir() {
        let dir = std::env::temp_dir();
        let command = LocalCommand {
            env: vec![("TERRACE_PV_X".into(), "hello".into())],
            working_dir: Some(dir.to_string_lossy().into_owned()),
            base_dir: PathBuf::from("/"),
            ..shell("echo $TERRACE_PV_X; pwd")
        };
        let (r, lines) = run(&command);
        assert_eq!(r, Ok(()));
        let canonical = std::fs::canonicalize(&dir).unwrap_or(dir);
        assert_eq!(lines[0], "hello");
        assert_eq!(
            std::fs::canonicalize(&lines[1]).ok(),
            Some(canonical),
            "{lines:?}"
        );
    }
}
