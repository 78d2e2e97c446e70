//! Root variables without a value are asked for on a terminal (here a
//! pseudo-terminal made by `script`), in name order, with their
//! descriptions, sensitive ones without echo; without a terminal nothing
//! is asked and the missing variable is named.

mod engine_support;

use engine_support::{missing_tool, wait_until, Work};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const CONFIG: &str = r#"
variable "name" {
  type        = string
  description = "Your name"
}

variable "secret" {
  type      = string
  sensitive = true
}

output "o" {
  value = var.name
}
"#;

#[test]
fn missing_variables_are_asked_for_on_a_terminal() {
    let work = Work::new(
        "prompts",
        engine_support::Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", CONFIG);
    let command = format!("{} plan -no-color", env!("CARGO_BIN_EXE_terrace"));
    let child = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .current_dir(&work.dir)
        .env("TF_CLI_CONFIG_FILE", work.dir.with_extension("tfrc"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            missing_tool(&format!("`script` (util-linux) makes the terminal: {e}"));
            return;
        }
    };
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let seen = Arc::new(Mutex::new(String::new()));
    let reader = {
        let seen = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    let text = || seen.lock().unwrap().replace('\r', "");
    // Each answer only once its question is on the screen, so that the
    // terminal's settings at that moment decide the echo.
    wait_until("the first question", Duration::from_secs(60), text, |t| {
        t.contains("var.name\n  Your name\n\n  Enter a value: ")
    });
    stdin.write_all(b"alice\n").expect("answering");
    wait_until("the second question", Duration::from_secs(60), text, |t| {
        t.contains("var.secret\n  Enter a value: ")
    });
    stdin.write_all(b"hunter2\n").expect("answering");
    drop(stdin);
    let status = child.wait().expect("waiting");
    reader.join().expect("reading");
    let text = text();
    assert!(status.success(), "{text}");
    assert!(text.contains("  Enter a value: alice\n"), "{text}");
    assert!(
        !text.contains("hunter2"),
        "a sensitive answer is not echoed:\n{text}"
    );
    assert!(text.contains("+ o = \"alice\""), "{text}");

    let no_terminal = work.terrace(&["plan"]);
    assert_eq!(no_terminal.code, Some(1));
    assert!(no_terminal
        .stderr
        .contains("The root module input variable \"name\" is not set"));
}
