//! The `terraform-provider-random` plugin binary.

fn main() -> std::process::ExitCode {
    terrace_sdk::serve(provider_random::provider())
}
