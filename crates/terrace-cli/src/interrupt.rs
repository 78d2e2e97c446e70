//! Ctrl-C and SIGTERM during an operation, as terraform handles them. The
//! first interrupt asks the engine to stop starting work (running
//! providers are asked to stop): the run ends with "execution halted"
//! and exit status 1, and the state holds everything done. A second
//! interrupt leaves at once, but first saves the state: whatever the
//! apply journal holds is folded into it, then the plugins are killed.
//!
//! Before the operation is under way (while the configuration, the
//! variables and the state are read, none of which changes anything and
//! some of which can take long), the first interrupt ends the process at
//! once: there is nothing to finish or save.
//!
//! The signal handler only counts and wakes a watcher thread through a
//! pipe; everything else (printing, saving) happens on that thread.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicI32, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);
/// The write end of the watcher's pipe; -1 before `install`.
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);

/// Where the run is: one of the `PHASE_` values. Moving on from loading
/// and leaving on an interrupt are decided by one compare-and-swap each,
/// so the process never exits after the operation took its lock.
static PHASE: AtomicU8 = AtomicU8::new(PHASE_LOADING);
const PHASE_LOADING: u8 = 0;
const PHASE_UNDER_WAY: u8 = 1;
const PHASE_LEAVING: u8 = 2;

const INTERRUPTED_WHILE_LOADING: &str =
    "The operation had not started (nothing was locked or changed): stopped.";

extern "C" fn on_interrupt(_: libc::c_int) {
    // Only async-signal-safe work here.
    INTERRUPTS.fetch_add(1, Ordering::SeqCst);
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = [1u8];
        // SAFETY: write(2) is async-signal-safe and the buffer lives on
        // the stack for the call.
        unsafe {
            libc::write(fd, byte.as_ptr().cast(), 1);
        }
    }
}

type FatalSave = Box<dyn FnOnce() + Send>;

/// Whether Ctrl-C (or SIGTERM) was received, and what to save when a
/// second one ends the process.
#[derive(Clone)]
pub struct Interrupt {
    fatal_save: Arc<Mutex<Option<FatalSave>>>,
    /// `-json`: the notices are `log` messages of the machine-readable
    /// stream instead of text.
    json: bool,
}

const INTERRUPTED: &str = "Interrupt received.\nPlease wait for terrace to exit or data loss may occur.\nGracefully shutting down...";
const FATAL_INTERRUPT: &str =
    "Two interrupts received. Exiting immediately. Note that data loss may have occurred.";

impl Interrupt {
    pub fn install(json: bool) -> Interrupt {
        let interrupt = Interrupt {
            fatal_save: Arc::new(Mutex::new(None)),
            json,
        };
        let mut fds = [-1; 2];
        // SAFETY: `fds` has room for the two descriptors pipe2 returns.
        let piped = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0;
        if piped {
            WAKE_FD.store(fds[1], Ordering::SeqCst);
            // SAFETY: the read end was just created and is owned here.
            let reader = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fds[0]) };
            let watcher = interrupt.clone();
            std::thread::spawn(move || watcher.watch(reader));
        }
        let handler = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: installs a handler that only touches atomics and calls
        // async-signal-safe functions.
        unsafe {
            libc::signal(libc::SIGINT, handler);
            libc::signal(libc::SIGTERM, handler);
        }
        interrupt
    }

    pub fn requested(&self) -> bool {
        INTERRUPTS.load(Ordering::SeqCst) > 0
    }

    /// The operation is about to lock the state or change anything: from
    /// now on an interrupt stops it gracefully. `false` when an interrupt
    /// came first and the process is leaving: the caller must not start.
    pub fn operation_under_way(&self) -> bool {
        PHASE
            .compare_exchange(
                PHASE_LOADING,
                PHASE_UNDER_WAY,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
            || PHASE.load(Ordering::SeqCst) == PHASE_UNDER_WAY
    }

    /// What a second interrupt saves before the process exits; replaces
    /// any earlier one.
    pub fn on_fatal(&self, save: impl FnOnce() + Send + 'static) {
        *self
            .fatal_save
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Box::new(save));
    }

    fn watch(self, mut reader: std::fs::File) {
        let mut seen = 0usize;
        let mut byte = [0u8; 1];
        while let Ok(1) = reader.read(&mut byte) {
            let count = INTERRUPTS.load(Ordering::SeqCst);
            let leaving = PHASE
                .compare_exchange(
                    PHASE_LOADING,
                    PHASE_LEAVING,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                )
                .is_ok();
            if leaving {
                self.notice_received();
                eprintln!("{INTERRUPTED_WHILE_LOADING}");
                // Provider processes started to read schemas are ours.
                terrace_plugin::kill_all_plugins();
                let _ = std::io::stdout().flush();
                std::process::exit(1);
            }
            if count > seen && seen == 0 {
                self.notice_received();
                if self.json {
                    crate::json_ui::log("Stopping operation...");
                } else {
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "Stopping operation...");
                    let _ = out.flush();
                }
            }
            if count >= 2 {
                self.fatal();
            }
            seen = count;
        }
    }

    /// The first interrupt's notice, on stdout as terraform prints it.
    fn notice_received(&self) {
        if self.json {
            crate::json_ui::log(&format!("\n{INTERRUPTED}\n"));
        } else {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "\n{INTERRUPTED}\n");
            let _ = out.flush();
        }
    }

    /// The second interrupt: save, stop the plugins, leave.
    fn fatal(&self) -> ! {
        eprintln!("\n{FATAL_INTERRUPT}");
        let save = self
            .fatal_save
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(save) = save {
            save();
        }
        terrace_plugin::kill_all_plugins();
        let _ = std::io::stdout().flush();
        eprintln!("\nError: operation canceled\n");
        std::process::exit(1)
    }
}
