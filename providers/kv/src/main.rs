//! The `terraform-provider-kv` plugin binary.

fn main() -> std::process::ExitCode {
    terrace_sdk::serve(provider_kv::provider())
}
