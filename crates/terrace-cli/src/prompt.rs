//! Asking for root variables that have no value, as terraform does on a
//! terminal: each required variable without a value, in name order, as
//! `var.NAME`, its description, then `Enter a value:`. Sensitive values
//! are read without echo. Nothing is asked when standard input is not a
//! terminal or `-input=false` is given: the run then reports the missing
//! variable by name.

use std::io::{BufRead, Write};
use std::path::Path;
use terrace_config::input_variables::InputValues;

/// Whether standard input is a terminal a person can answer at.
pub fn stdin_is_terminal() -> bool {
    // SAFETY: isatty(2) only inspects the descriptor.
    unsafe { libc::isatty(0) == 1 }
}

/// Asks for every required root variable of the module in `dir` that
/// `inputs` has no value for, and adds the answers to `inputs`.
pub fn ask_for_missing_variables(dir: &Path, inputs: &mut InputValues, input_allowed: bool) {
    if !input_allowed || !stdin_is_terminal() {
        return;
    }
    let (Some(module), _) = terrace_config::loader::load_module_dir(dir) else {
        return;
    };
    for (name, variable) in &module.variables {
        if variable.default.is_some() || inputs.value_for(variable).is_some() {
            continue;
        }
        match ask(
            &format!("var.{name}"),
            variable.description.as_deref().unwrap_or(""),
            variable.sensitive,
        ) {
            Some(text) => inputs.add_entered(name, text),
            // End of input: nothing more can be asked.
            None => return,
        }
    }
}

/// One question; `None` at the end of input.
fn ask(query: &str, description: &str, secret: bool) -> Option<String> {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{query}");
    if !description.is_empty() {
        for line in description.lines() {
            let _ = writeln!(out, "  {line}");
        }
        let _ = writeln!(out);
    }
    let _ = write!(out, "  Enter a value: ");
    let _ = out.flush();
    drop(out);
    let echo_off = secret.then(EchoOff::new).flatten();
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line);
    drop(echo_off);
    if secret {
        outln!();
    }
    outln!();
    match read {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
    }
}

/// Terminal echo turned off until dropped.
pub(crate) struct EchoOff(libc::termios);

impl EchoOff {
    pub(crate) fn new() -> Option<EchoOff> {
        // SAFETY: termios is plain data; tcgetattr fills it.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: descriptor 0 is open; `saved` outlives the call.
        if unsafe { libc::tcgetattr(0, &mut saved) } != 0 {
            return None;
        }
        let mut quiet = saved;
        quiet.c_lflag &= !libc::ECHO;
        // SAFETY: as above, with a copy of the current settings.
        if unsafe { libc::tcsetattr(0, libc::TCSANOW, &quiet) } != 0 {
            return None;
        }
        Some(EchoOff(saved))
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `new`.
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.0);
        }
    }
}
