//! The real `hashicorp/aws` 5.100.0 provider (protocol 5, built with the
//! Go SDK): launched with AutoMTLS and in plaintext, reattached in debug
//! mode, its schema read and checked against facts known from
//! `terraform providers schema -json`, a configuration validated, and the
//! process gone afterwards.

mod support;

use std::io::BufRead;
use std::sync::{Arc, Mutex};
use support::{assert_gone, aws_provider, config};
use terrace_plugin::{
    parse_reattach_providers, LaunchConfig, LogLevel, LogRecord, LogSink, NullLogSink,
    PluginProvider,
};
use terrace_providers::*;
use terrace_value::{Type, Value};

const AWS: &str = "registry.terraform.io/hashicorp/aws";

fn launch(auto_mtls: bool) -> Option<PluginProvider> {
    let executable = aws_provider()?;
    let mut config = LaunchConfig::new(AWS, executable);
    config.auto_mtls = auto_mtls;
    config.log = Arc::new(NullLogSink);
    match PluginProvider::launch(config) {
        Ok(provider) => Some(provider),
        Err(error) => panic!("the AWS provider should start: {error}"),
    }
}

fn check_schema(provider: &PluginProvider) {
    let response = provider.get_provider_schema();
    assert!(
        !response.diagnostics.has_errors(),
        "{}",
        response.diagnostics
    );
    let schema = &response.schema;
    assert!(
        schema.resource_types.len() > 1000,
        "{}",
        schema.resource_types.len()
    );
    assert!(
        schema.data_sources.len() > 500,
        "{}",
        schema.data_sources.len()
    );

    let bucket = &schema.resource_types["aws_s3_bucket"];
    let attribute = &bucket.block.attributes["bucket"];
    assert_eq!(attribute.ty, AttributeType::Type(Type::String));
    assert!(attribute.optional && attribute.computed && !attribute.required);
    assert!(bucket.block.attributes["tags"].optional);
    assert_eq!(
        bucket.block.attributes["tags"].implied_type(),
        Type::map(Type::String)
    );
    let website = &bucket.block.block_types["website"];
    assert_eq!(website.nesting, NestingMode::List);
    assert_eq!(website.max_items, 1);
    assert!(bucket.block.block_types.contains_key("timeouts"));
    let implied = bucket.implied_type();
    assert_eq!(implied.attribute_type("bucket"), Some(&Type::String));

    let instance = &schema.resource_types["aws_instance"];
    assert_eq!(
        instance.block.block_types["ebs_block_device"].nesting,
        NestingMode::Set
    );
    assert!(instance.version >= 1);

    assert!(schema.data_sources.contains_key("aws_caller_identity"));
    assert!(schema.provider.block.attributes.contains_key("region"));
    assert!(schema
        .provider
        .block
        .block_types
        .contains_key("assume_role"));
    // The AWS provider defines functions (arn_parse, arn_build, ...).
    assert!(schema.functions.contains_key("arn_parse"));
    assert!(schema.ephemeral_resources.contains_key("aws_kms_secrets"));
    assert!(schema.server_capabilities.get_provider_schema_optional);

    // The schema is fetched once and shared.
    assert!(Arc::ptr_eq(
        &response.schema,
        &provider.get_provider_schema().schema
    ));
}

fn check_validation(provider: &PluginProvider) {
    let schema = provider.get_provider_schema().schema;
    let bucket = &schema.resource_types["aws_s3_bucket"].block;
    let good = provider.validate_resource_config(ValidateResourceConfigRequest {
        type_name: "aws_s3_bucket".into(),
        config: config(bucket, &[("bucket", Value::string("terrace-test-bucket"))]),
        client_capabilities: ClientCapabilities::default(),
    });
    assert!(good.diagnostics.is_empty(), "{}", good.diagnostics);

    // Both `bucket` and `bucket_prefix` set: the provider says which
    // attribute is wrong.
    let bad = provider.validate_resource_config(ValidateResourceConfigRequest {
        type_name: "aws_s3_bucket".into(),
        config: config(
            bucket,
            &[
                ("bucket", Value::string("a")),
                ("bucket_prefix", Value::string("b")),
            ],
        ),
        client_capabilities: ClientCapabilities::default(),
    });
    assert!(bad.diagnostics.has_errors());
    assert!(
        bad.diagnostics
            .iter()
            .any(|d| d.attribute.as_ref().is_some_and(|p| !p.is_empty())),
        "{:?}",
        bad.diagnostics
    );

    let unknown = provider.validate_resource_config(ValidateResourceConfigRequest {
        type_name: "aws_no_such_thing".into(),
        config: Value::null(Type::Dynamic),
        client_capabilities: ClientCapabilities::default(),
    });
    assert_eq!(unknown.diagnostics.0[0].summary, "Unknown resource type");

    let provider_config = config(
        &schema.provider.block,
        &[("region", Value::string("us-east-1"))],
    );
    let validated = provider.validate_provider_config(ValidateProviderConfigRequest {
        config: provider_config,
    });
    assert!(
        !validated.diagnostics.has_errors(),
        "{}",
        validated.diagnostics
    );
    assert_eq!(
        validated
            .prepared_config
            .as_attributes()
            .and_then(|a| a.get("region"))
            .and_then(Value::as_str),
        Some("us-east-1")
    );

    let function = provider.call_function(CallFunctionRequest {
        name: "arn_parse".into(),
        arguments: vec![Value::string("arn:aws:s3:::my-bucket")],
    });
    let result = function.result.expect("arn_parse should succeed");
    assert_eq!(
        result
            .as_attributes()
            .and_then(|a| a.get("service"))
            .and_then(Value::as_str),
        Some("s3")
    );
    let failed = provider.call_function(CallFunctionRequest {
        name: "arn_parse".into(),
        arguments: vec![Value::string("not an arn")],
    });
    assert!(failed.result.is_err());

    assert!(provider.stop().is_empty());
}

#[test]
fn aws_provider_with_auto_mtls() {
    let Some(provider) = launch(true) else {
        return;
    };
    assert_eq!(provider.protocol_version(), 5);
    assert!(provider.uses_tls());
    check_schema(&provider);
    check_validation(&provider);
    let pid = provider.pid().expect("a launched provider has a pid");
    assert!(provider.close().is_empty());
    assert!(provider.exit_status().is_some());
    drop(provider);
    assert_gone(pid);
}

#[test]
fn aws_provider_in_plaintext() {
    let Some(provider) = launch(false) else {
        return;
    };
    assert!(!provider.uses_tls());
    let metadata = provider.get_metadata();
    assert!(
        !metadata.diagnostics.has_errors(),
        "{}",
        metadata.diagnostics
    );
    assert!(metadata.resources.iter().any(|r| r == "aws_s3_bucket"));
    let pid = provider.pid().expect("a launched provider has a pid");
    // Dropping without close shuts the plugin down too.
    drop(provider);
    assert_gone(pid);
}

#[test]
fn aws_provider_reattached_in_debug_mode() {
    let Some(executable) = aws_provider() else {
        return;
    };
    let mut child = std::process::Command::new(&executable)
        .arg("-debug")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the AWS provider runs in debug mode");
    let stdout = child.stdout.take().expect("stdout is piped");
    // Keep reading the provider's stdout: in debug mode it goes on writing
    // there, and would die of SIGPIPE if nobody read.
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(rest) = line.trim().strip_prefix("TF_REATTACH_PROVIDERS='") {
                let _ = sender.send(rest.trim_end_matches('\'').to_string());
            }
        }
    });
    let reattach = receiver
        .recv()
        .expect("the provider prints TF_REATTACH_PROVIDERS");
    let configs = parse_reattach_providers(&reattach).expect("valid TF_REATTACH_PROVIDERS");
    let config = &configs[AWS];
    assert!(config.test);
    assert_eq!(config.protocol_version, 5);
    assert_eq!(config.pid, Some(child.id() as i32));
    let provider = PluginProvider::reattach(AWS, config, Arc::new(NullLogSink))
        .expect("reattaching to the debug-mode provider");
    assert_eq!(provider.pid(), None);
    let schema = provider.get_provider_schema();
    assert!(!schema.diagnostics.has_errors(), "{}", schema.diagnostics);
    assert!(schema.schema.resource_types.contains_key("aws_s3_bucket"));
    drop(provider);
    // A provider started by hand keeps running after terrace is done.
    assert_eq!(child.try_wait().ok().flatten(), None);
    child.kill().expect("killing the debug-mode provider");
    child.wait().expect("reaping the debug-mode provider");
}

/// Keeps the records at DEBUG and above.
#[derive(Default)]
struct CollectingSink(Mutex<Vec<LogRecord>>);

impl LogSink for CollectingSink {
    fn enabled(&self, level: LogLevel) -> bool {
        level >= LogLevel::Debug
    }
    fn log(&self, record: &LogRecord) {
        if let Ok(mut records) = self.0.lock() {
            records.push(record.clone());
        }
    }
}

#[test]
fn aws_provider_log_reaches_the_sink_at_its_levels() {
    let Some(executable) = aws_provider() else {
        return;
    };
    let sink = Arc::new(CollectingSink::default());
    let mut config = LaunchConfig::new(AWS, executable);
    // The provider logs as much as its own TF_LOG asks for.
    config.env = vec![("TF_LOG".into(), "TRACE".into())];
    config.log = sink.clone();
    let provider = PluginProvider::launch(config).expect("the AWS provider starts");
    assert!(!provider.get_metadata().diagnostics.has_errors());
    provider.close();
    let records = sink.0.lock().map(|r| r.clone()).unwrap_or_default();
    assert!(!records.is_empty());
    assert!(records.iter().all(|r| r.level >= LogLevel::Debug));
    assert!(records.iter().all(|r| r
        .module
        .starts_with("provider.terraform-provider-aws_v5.100.0_x5")));
    // hclog's JSON was decoded: messages without the JSON around them,
    // the provider's timestamps and fields kept.
    let address = records
        .iter()
        .find(|r| r.message == "plugin address")
        .expect("go-plugin logs the address it listens on");
    assert_eq!(address.level, LogLevel::Debug);
    assert!(address.timestamp.is_some());
    assert!(address
        .fields
        .iter()
        .any(|(k, v)| k == "network" && v == "unix"));
}
