//! The schema cache with the real AWS provider (hashicorp/aws 5.100.0,
//! which announces `get_provider_schema_optional`): a cold load asks the
//! provider and stores the schema, a warm load starts nothing, and a
//! launched provider is handed the cached schema without
//! `GetProviderSchema` ever reaching it (seen in the provider's own trace
//! log). Skipped, with a message, where the provider is not installed.

use std::path::Path;
use std::sync::{Arc, Mutex};
use terrace_plugin::{LaunchConfig, LogLevel, LogRecord, LogSink};
use terrace_providers::{CallFunctionRequest, Provider};
use terrace_schemacache::{launch, load_schema, SchemaCache, SchemaSource};
use terrace_value::Value;

const AWS: &str = terrace_testsupport::AWS_PROVIDER_EXECUTABLE;
const AWS_ADDR: &str = "registry.terraform.io/hashicorp/aws";

use terrace_testsupport::TempDir;

/// Keeps the `tf_rpc` field of every plugin log record.
#[derive(Default)]
struct RpcRecorder(Mutex<Vec<String>>);

impl LogSink for RpcRecorder {
    fn enabled(&self, _level: LogLevel) -> bool {
        true
    }
    fn log(&self, record: &LogRecord) {
        for (key, value) in &record.fields {
            if key == "tf_rpc" {
                if let Ok(mut rpcs) = self.0.lock() {
                    rpcs.push(value.clone());
                }
            }
        }
    }
}

impl RpcRecorder {
    fn rpcs(&self) -> Vec<String> {
        self.0.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn traced_config(recorder: &Arc<RpcRecorder>) -> LaunchConfig {
    let mut config = LaunchConfig::new(AWS_ADDR, AWS);
    config.env.push(("TF_LOG".into(), "trace".into()));
    config.log = recorder.clone();
    config
}

#[test]
fn aws_schema_is_cached_and_reused() {
    if !terrace_testsupport::require_path(Path::new(AWS), "the AWS provider") {
        return;
    }
    let tmp = TempDir::new("aws");
    let cache = SchemaCache::at(tmp.join("cache"));

    let cold = load_schema(&cache, LaunchConfig::new(AWS_ADDR, AWS)).unwrap();
    assert_eq!(cold.source, SchemaSource::Provider);
    assert!(cold.schema.server_capabilities.get_provider_schema_optional);
    assert!(cold.schema.resource_types.contains_key("aws_s3_bucket"));
    let digest = cold.digest.unwrap();
    assert_eq!(cache.get(&digest).as_ref(), Some(&*cold.schema));

    let warm = load_schema(&cache, LaunchConfig::new(AWS_ADDR, AWS)).unwrap();
    assert_eq!(warm.source, SchemaSource::Cache);
    assert_eq!(*warm.schema, *cold.schema);

    // A running provider gets the cached schema: GetProviderSchema never
    // reaches it, and calls that need the schema work.
    let recorder = Arc::new(RpcRecorder::default());
    let (provider, source) = launch(&cache, traced_config(&recorder)).unwrap();
    assert_eq!(source, SchemaSource::Cache);
    let response = provider.call_function(CallFunctionRequest {
        name: "arn_parse".into(),
        arguments: vec![Value::string("arn:aws:iam::123456789012:role/example")],
    });
    let parsed = response.result.unwrap();
    let attributes = parsed.as_attributes().unwrap();
    assert_eq!(
        attributes.get("account_id"),
        Some(&Value::string("123456789012"))
    );
    provider.close();
    let rpcs = recorder.rpcs();
    assert!(rpcs.iter().any(|r| r == "CallFunction"), "{rpcs:?}");
    assert!(!rpcs.iter().any(|r| r == "GetProviderSchema"), "{rpcs:?}");

    // A corrupt entry is a miss: the provider is asked, and the entry
    // rewritten.
    let entry = cache.dir().unwrap().join(format!("{}.json", digest.hex()));
    std::fs::write(&entry, b"{\"format\":1,").unwrap();
    let recorder = Arc::new(RpcRecorder::default());
    let (provider, source) = launch(&cache, traced_config(&recorder)).unwrap();
    assert_eq!(source, SchemaSource::Provider);
    provider.close();
    assert!(recorder.rpcs().iter().any(|r| r == "GetProviderSchema"));
    assert_eq!(cache.get(&digest).as_ref(), Some(&*cold.schema));
}
