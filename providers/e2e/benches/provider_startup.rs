//! Provider start-up and plan latency as the engine experiences them,
//! through terrace-plugin's client: spawn to handshake (connection ready,
//! AutoMTLS included), to GetProviderSchema returned, and the latency of
//! PlanResourceChange for a resource being created. terrace's own
//! providers (built with terrace-sdk, release profile) side by side with
//! the Go `hashicorp/aws` 5.100.0 provider.
//!
//! Run with `scripts/bench-provider-startup` (or `cargo bench -p
//! provider-e2e --bench provider_startup -- [--runs N] [--plans N]
//! [--only NAME]`); the SDK provider binaries must already be built with
//! `--release` (the script does it).

use provider_e2e::positive_number;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use terrace_plugin::{LaunchConfig, NullLogSink, PluginProvider};
use terrace_providers::*;
use terrace_value::Value;

const AWS_EXECUTABLE: &str = terrace_testsupport::AWS_PROVIDER_EXECUTABLE;

/// One provider to measure: how to start it, configure it, and the
/// resource whose creation is planned.
struct Subject {
    name: &'static str,
    source: &'static str,
    executable: PathBuf,
    /// The provider configuration's attributes and nested blocks, given
    /// the provider's schema block.
    provider_config: fn(&Block, &Path) -> Value,
    resource: &'static str,
    resource_config: fn(&Block) -> Value,
}

struct Settings {
    runs: usize,
    plans: usize,
    only: Option<String>,
}

fn parse_args() -> Result<Settings, String> {
    let mut settings = Settings {
        runs: 5,
        plans: 200,
        only: None,
    };
    let mut args = std::env::args().skip(1);
    // `cargo bench` passes `--bench`; without it (`cargo test
    // --all-targets`) one launch and one plan per provider only check
    // that the benchmark works.
    let mut benchmarking = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => settings.runs = positive_number(&mut args, "--runs")?,
            "--plans" => settings.plans = positive_number(&mut args, "--plans")?,
            "--only" => settings.only = args.next(),
            "--bench" => benchmarking = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if !benchmarking {
        settings.runs = settings.runs.min(1);
        settings.plans = settings.plans.min(1);
    }
    Ok(settings)
}

/// A configuration object for `block`: the given attributes set, every
/// other one null, nested blocks empty (as Terraform sends them).
fn object(block: &Block, set: &[(&str, Value)]) -> Value {
    let mut attributes: BTreeMap<String, Value> = BTreeMap::new();
    for (name, attribute) in &block.attributes {
        attributes.insert(name.clone(), Value::null(attribute.implied_type()));
    }
    for (name, nested) in &block.block_types {
        let value = match nested.nesting {
            NestingMode::Single => Value::null(nested.implied_type()),
            NestingMode::Group => object(&nested.block, &[]),
            NestingMode::List => Value::list(nested.block.implied_type(), Vec::new()),
            NestingMode::Set => Value::set(nested.block.implied_type(), Vec::new()),
            NestingMode::Map => Value::map(nested.block.implied_type(), BTreeMap::new()),
        };
        attributes.insert(name.clone(), value);
    }
    for (name, value) in set {
        attributes.insert(name.to_string(), value.clone());
    }
    Value::object(attributes)
}

fn subjects(release_dir: &Path) -> Vec<Subject> {
    vec![
        Subject {
            name: "random (terrace-sdk)",
            source: "registry.terraform.io/hashicorp/random",
            executable: release_dir.join("terraform-provider-random"),
            provider_config: |block, _| object(block, &[]),
            resource: "random_string",
            resource_config: |block| object(block, &[("length", Value::int(16))]),
        },
        Subject {
            name: "kv (terrace-sdk)",
            source: "registry.terraform.io/terrace/kv",
            executable: release_dir.join("terraform-provider-kv"),
            provider_config: |block, scratch| {
                object(
                    block,
                    &[
                        ("directory", Value::string(scratch.display().to_string())),
                        ("namespace", Value::string("bench")),
                    ],
                )
            },
            resource: "kv_entry",
            resource_config: |block| {
                object(
                    block,
                    &[
                        ("key", Value::string("greeting")),
                        ("value", Value::string("hello")),
                    ],
                )
            },
        },
        Subject {
            name: "aws 5.100.0 (Go)",
            source: "registry.terraform.io/hashicorp/aws",
            executable: PathBuf::from(AWS_EXECUTABLE),
            provider_config: aws_config,
            resource: "aws_vpc",
            resource_config: |block| object(block, &[("cidr_block", Value::string("10.0.0.0/16"))]),
        },
    ]
}

/// A configuration under which the AWS provider configures and plans
/// without any network: fake credentials, nothing checked or looked up,
/// and the endpoints it could call pointed at a closed loopback port.
fn aws_config(block: &Block, _: &Path) -> Value {
    let endpoints_block = match block.block_types.get("endpoints") {
        Some(nested) => &nested.block,
        None => return object(block, &[]),
    };
    let nowhere = Value::string("http://127.0.0.1:1");
    let endpoints = object(
        endpoints_block,
        &[
            ("ec2", nowhere.clone()),
            ("s3", nowhere.clone()),
            ("sts", nowhere.clone()),
            ("iam", nowhere),
        ],
    );
    object(
        block,
        &[
            ("region", Value::string("us-east-1")),
            ("access_key", Value::string("bench")),
            ("secret_key", Value::string("bench")),
            ("skip_credentials_validation", Value::bool(true)),
            ("skip_requesting_account_id", Value::bool(true)),
            ("skip_metadata_api_check", Value::string("true")),
            ("skip_region_validation", Value::bool(true)),
            (
                "endpoints",
                Value::set(endpoints_block.implied_type(), vec![endpoints]),
            ),
        ],
    )
}

/// What one launch measured.
struct Startup {
    handshake: Duration,
    schema: Duration,
    resource_types: usize,
}

fn fail(subject: &Subject, step: &str, diagnostics: &Diagnostics) -> String {
    format!("{}: {step} failed: {diagnostics}", subject.name)
}

/// Launches the provider once: start-up times, then (when `plans` > 0)
/// configures it and times `plans` PlanResourceChange calls.
fn run_once(
    subject: &Subject,
    scratch: &Path,
    plans: usize,
    latencies: &mut Vec<Duration>,
) -> Result<Startup, String> {
    let mut config = LaunchConfig::new(subject.source, &subject.executable);
    config.log = Arc::new(NullLogSink);
    let start = Instant::now();
    let provider =
        PluginProvider::launch(config).map_err(|e| format!("{}: launch: {e}", subject.name))?;
    let handshake = start.elapsed();
    let schema = provider.get_provider_schema();
    let schema_time = start.elapsed();
    if schema.diagnostics.has_errors() {
        return Err(fail(subject, "GetProviderSchema", &schema.diagnostics));
    }
    let schema = schema.schema;
    let startup = Startup {
        handshake,
        schema: schema_time,
        resource_types: schema.resource_types.len(),
    };
    if plans > 0 {
        let provider_config = (subject.provider_config)(&schema.provider.block, scratch);
        let validated = provider.validate_provider_config(ValidateProviderConfigRequest {
            config: provider_config,
        });
        if validated.diagnostics.has_errors() {
            return Err(fail(
                subject,
                "ValidateProviderConfig",
                &validated.diagnostics,
            ));
        }
        let configured = provider.configure_provider(ConfigureProviderRequest {
            terraform_version: "1.11.4".into(),
            config: validated.prepared_config,
            client_capabilities: ClientCapabilities::default(),
        });
        if configured.diagnostics.has_errors() {
            return Err(fail(subject, "ConfigureProvider", &configured.diagnostics));
        }
        let resource = schema
            .resource_types
            .get(subject.resource)
            .ok_or_else(|| format!("{}: no resource type {}", subject.name, subject.resource))?;
        let config = (subject.resource_config)(&resource.block);
        for _ in 0..plans {
            // For a new object Terraform proposes the configuration
            // itself, computed attributes null.
            let request = PlanResourceChangeRequest {
                type_name: subject.resource.into(),
                prior_state: Value::null(resource.implied_type()),
                proposed_new_state: config.clone(),
                config: config.clone(),
                prior_private: Vec::new(),
                provider_meta: None,
                client_capabilities: ClientCapabilities::default(),
            };
            let started = Instant::now();
            let planned = provider.plan_resource_change(request);
            latencies.push(started.elapsed());
            if planned.diagnostics.has_errors() {
                return Err(fail(subject, "PlanResourceChange", &planned.diagnostics));
            }
        }
    }
    let closed = provider.close();
    if closed.has_errors() {
        return Err(fail(subject, "close", &closed));
    }
    Ok(startup)
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    // Nearest-rank percentile.
    let rank = (fraction * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    percentile(values, 0.5)
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let settings = match parse_args() {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("provider_startup: {message}");
            std::process::exit(2);
        }
    };
    // The bench runs from <target>/release/deps; the providers are built
    // into <target>/release.
    let release_dir = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.to_path_buf()))
        .unwrap_or_default();
    let scratch = std::env::temp_dir().join(format!("terrace-bench-kv-{}", std::process::id()));
    println!(
        "{} launches per provider, {} PlanResourceChange calls per launch",
        settings.runs, settings.plans
    );
    println!(
        "| provider | resource types | spawn → handshake | spawn → schema | plan median | plan p95 |"
    );
    println!("|---|---|---|---|---|---|");
    let mut failed = false;
    for subject in subjects(&release_dir) {
        if settings
            .only
            .as_deref()
            .is_some_and(|only| !subject.name.starts_with(only))
        {
            continue;
        }
        if !subject.executable.is_file() {
            eprintln!(
                "{}: skipped, no executable at {}",
                subject.name,
                subject.executable.display()
            );
            continue;
        }
        // One launch, not timed, to bring the executable into the page
        // cache: every figure is a warm start.
        let mut latencies = Vec::new();
        if let Err(message) = run_once(&subject, &scratch, 0, &mut latencies) {
            eprintln!("{message}");
            failed = true;
            continue;
        }
        let mut handshakes = Vec::new();
        let mut schemas = Vec::new();
        let mut types = 0;
        let mut error = None;
        for _ in 0..settings.runs {
            match run_once(&subject, &scratch, settings.plans, &mut latencies) {
                Ok(startup) => {
                    handshakes.push(startup.handshake);
                    schemas.push(startup.schema);
                    types = startup.resource_types;
                }
                Err(message) => {
                    error = Some(message);
                    break;
                }
            }
        }
        if let Some(message) = error {
            eprintln!("{message}");
            failed = true;
            continue;
        }
        latencies.sort();
        println!(
            "| {} | {types} | {} | {} | {} | {} |",
            subject.name,
            ms(median(&mut handshakes)),
            ms(median(&mut schemas)),
            ms(percentile(&latencies, 0.5)),
            ms(percentile(&latencies, 0.95)),
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if failed {
        std::process::exit(1);
    }
}
