//! The `terraform-provider-local` plugin binary.

fn main() -> std::process::ExitCode {
    terrace_sdk::serve(provider_local::provider())
}
