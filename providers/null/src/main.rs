//! The `terraform-provider-null` plugin binary.

fn main() -> std::process::ExitCode {
    terrace_sdk::serve(provider_null::provider())
}
