//! The async runtime behind the blocking `Provider` calls. gRPC is async;
//! the engine is not required to be. One small runtime per terrace process
//! serves every plugin; a call spawns its future there and the calling
//! thread waits for the result, so calls may come from any thread,
//! including threads of another async runtime, without nesting runtimes.

use std::future::Future;
use std::sync::OnceLock;
use tokio::runtime::{Handle, Runtime};

/// The shared runtime's handle, created on first use.
pub(crate) fn handle() -> Result<Handle, String> {
    static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            // One worker: the runtime only moves bytes and decodes
            // messages, and with a second worker each call's wake-ups
            // cross between the two (measured: 10-15 % more CPU per call
            // for 20,000 resources of a Rust provider).
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("terrace-plugin")
                .enable_all()
                .build()
                .map_err(|e| format!("could not start the plugin runtime: {e}"))
        })
        .as_ref()
        .map(|runtime| runtime.handle().clone())
        .map_err(Clone::clone)
}

/// Runs `future` on the runtime and waits for it. `None` if the task
/// died (it panicked, or the runtime is shutting down).
pub(crate) fn run<F>(handle: &Handle, future: F) -> Option<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    handle.spawn(async move {
        let output = future.await;
        // The caller only goes away if its thread is gone; nothing to do.
        let _ = sender.send(output);
    });
    receiver.recv().ok()
}
