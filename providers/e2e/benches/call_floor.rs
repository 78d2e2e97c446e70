//! The floor under a no-op plan of many resources of a Rust provider: the
//! three calls such a plan makes for each managed resource instance
//! (UpgradeResourceState of the stored JSON, ReadResource to refresh,
//! PlanResourceChange), made through terrace-plugin's client to the
//! release `null` provider from as many threads as the engine's default
//! parallelism, and nothing else: no configuration, no state file, no
//! graph. What a whole `terrace plan` takes beyond this is the engine's.
//!
//! Run with `scripts/bench-call-floor` (or `cargo bench -p provider-e2e
//! --bench call_floor -- [--resources N] [--threads N]`); the null
//! provider must already be built with `--release` (the script does it).

use provider_e2e::positive_number;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;
use terrace_plugin::{LaunchConfig, NullLogSink, PluginProvider};
use terrace_providers::*;
use terrace_value::{Type, Value};

struct Settings {
    resources: usize,
    threads: usize,
    benchmarking: bool,
}

fn parse_args() -> Result<Settings, String> {
    let mut settings = Settings {
        resources: 20_000,
        threads: 10,
        benchmarking: false,
    };
    let mut args = std::env::args().skip(1);
    // Without `--bench` (`cargo test --all-targets`) a few resources only
    // check that the benchmark works.
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--resources" => settings.resources = positive_number(&mut args, "--resources")?,
            "--threads" => settings.threads = positive_number(&mut args, "--threads")?,
            "--bench" => settings.benchmarking = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if !settings.benchmarking {
        settings.resources = settings.resources.min(20);
    }
    Ok(settings)
}

/// User and system CPU seconds of a process, from `/proc/PID/stat`.
fn cpu_seconds(pid: &str) -> Result<f64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| format!("reading /proc/{pid}/stat: {e}"))?;
    // The fields after the command name, which is in parentheses and may
    // itself hold spaces.
    let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |index: usize| -> Result<f64, String> {
        fields
            .get(index)
            .and_then(|field| field.parse::<f64>().ok())
            .ok_or_else(|| format!("/proc/{pid}/stat has no CPU field {index}"))
    };
    // utime and stime are the 14th and 15th fields; the name was the 2nd.
    let per_second = 100.0; // USER_HZ on Linux
    Ok((ticks(11)? + ticks(12)?) / per_second)
}

/// One resource's calls, as the engine makes them for a no-op plan.
fn plan_one(provider: &PluginProvider, index: usize) -> Result<(), String> {
    let json =
        format!(r#"{{"id":"{index}","triggers":{{"index":"{index}","name":"null-{index}"}}}}"#);
    let upgraded = provider.upgrade_resource_state(UpgradeResourceStateRequest {
        type_name: "null_resource".into(),
        version: 0,
        raw_state: RawState {
            json: json.into_bytes(),
            flatmap: BTreeMap::new(),
        },
    });
    if upgraded.diagnostics.has_errors() {
        return Err(format!("UpgradeResourceState: {}", upgraded.diagnostics));
    }
    let read = provider.read_resource(ReadResourceRequest {
        type_name: "null_resource".into(),
        prior_state: upgraded.upgraded_state,
        private: Vec::new(),
        provider_meta: None,
        client_capabilities: ClientCapabilities::default(),
    });
    if read.diagnostics.has_errors() {
        return Err(format!("ReadResource: {}", read.diagnostics));
    }
    // The configuration, and what the engine proposes from it and the
    // prior state: the computed `id` kept.
    let triggers = Value::map(
        Type::String,
        BTreeMap::from([
            ("index".to_string(), Value::string(index.to_string())),
            ("name".to_string(), Value::string(format!("null-{index}"))),
        ]),
    );
    let config = Value::object(BTreeMap::from([
        ("id".to_string(), Value::null(Type::String)),
        ("triggers".to_string(), triggers.clone()),
    ]));
    let proposed = Value::object(BTreeMap::from([
        ("id".to_string(), Value::string(index.to_string())),
        ("triggers".to_string(), triggers),
    ]));
    let planned = provider.plan_resource_change(PlanResourceChangeRequest {
        type_name: "null_resource".into(),
        prior_state: read.new_state,
        proposed_new_state: proposed,
        config,
        prior_private: read.private,
        provider_meta: None,
        client_capabilities: ClientCapabilities::default(),
    });
    if planned.diagnostics.has_errors() {
        return Err(format!("PlanResourceChange: {}", planned.diagnostics));
    }
    Ok(())
}

fn main() {
    let settings = match parse_args() {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("call_floor: {message}");
            std::process::exit(2);
        }
    };
    if let Err(message) = run(&settings) {
        eprintln!("call_floor: {message}");
        std::process::exit(1);
    }
}

fn run(settings: &Settings) -> Result<(), String> {
    // The bench runs from <target>/release/deps; the providers are built
    // into <target>/release.
    let executable = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("terraform-provider-null")))
        .unwrap_or_default();
    if !executable.is_file() && !settings.benchmarking {
        eprintln!(
            "call_floor: skipped, no null provider at {}",
            executable.display()
        );
        return Ok(());
    }
    if !executable.is_file() {
        return Err(format!(
            "no null provider at {}: build it with `cargo build --release -p terraform-provider-null`",
            executable.display()
        ));
    }
    let mut config = LaunchConfig::new("registry.terraform.io/hashicorp/null", &executable);
    config.log = Arc::new(NullLogSink);
    let provider = PluginProvider::launch(config).map_err(|e| format!("launch: {e}"))?;
    let pid = provider
        .pid()
        .map(|pid| pid.to_string())
        .ok_or("the provider has no process id")?;
    let schema = provider.get_provider_schema();
    if schema.diagnostics.has_errors() {
        return Err(format!("GetProviderSchema: {}", schema.diagnostics));
    }
    let configured = provider.configure_provider(ConfigureProviderRequest {
        terraform_version: "1.11.4".into(),
        config: Value::object(BTreeMap::new()),
        client_capabilities: ClientCapabilities::default(),
    });
    if configured.diagnostics.has_errors() {
        return Err(format!("ConfigureProvider: {}", configured.diagnostics));
    }

    let own_before = cpu_seconds("self")?;
    let provider_before = cpu_seconds(&pid)?;
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..settings.threads)
            .map(|_| {
                scope.spawn(|| loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= settings.resources {
                        return Ok(());
                    }
                    plan_one(&provider, index)?;
                })
            })
            .collect();
        workers
            .into_iter()
            .filter_map(|worker| match worker.join() {
                Ok(Ok(())) => None,
                Ok(Err(message)) => Some(message),
                Err(_) => Some("a worker panicked".to_string()),
            })
            .collect()
    });
    let wall = started.elapsed().as_secs_f64();
    let own = cpu_seconds("self")? - own_before;
    let provider_cpu = cpu_seconds(&pid)? - provider_before;
    provider.close();
    if let Some(message) = failures.first() {
        return Err(message.clone());
    }
    let calls = settings.resources * 3;
    println!(
        "| resources | threads | calls | wall | CPU, host side | CPU, provider | CPU per call, both |"
    );
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {} | {} | {} | {:.2} s | {:.2} s | {:.2} s | {:.0} µs |",
        settings.resources,
        settings.threads,
        calls,
        wall,
        own,
        provider_cpu,
        (own + provider_cpu) / calls as f64 * 1e6,
    );
    Ok(())
}
