//! The `terraform-provider-null` plugin binary.

/// mimalloc rather than the system allocator: every call allocates and
/// frees many small buffers (frames, messages, values), and a plan of
/// thousands of resources makes tens of thousands of calls.
#[global_allocator]
static GLOBAL_ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    terrace_sdk::serve(provider_null::provider())
}
