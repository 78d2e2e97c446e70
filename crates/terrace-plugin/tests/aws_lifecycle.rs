//! A managed resource's whole life through the real AWS provider, against
//! a local AWS API served by moto on loopback: configure, validate, plan,
//! apply (create), read, import, plan and apply a destroy, and a data
//! source. This exercises every value-carrying call of the tfplugin5
//! client with the provider's real schemas.

mod support;

use std::net::{Ipv4Addr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{assert_gone, aws_provider, config};
use terrace_plugin::{LaunchConfig, NullLogSink, PluginProvider};
use terrace_providers::*;
use terrace_value::Value;

const AWS: &str = "registry.terraform.io/hashicorp/aws";

/// moto's server on a free loopback port, stopped on drop.
struct Moto {
    child: Child,
    endpoint: String,
}

impl Moto {
    fn start() -> Option<Moto> {
        if !terrace_testsupport::require_program("moto_server", &["--help"]) {
            return None;
        }
        let port = terrace_testsupport::http::free_loopback_port().ok()?;
        let child = match Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => panic!("moto_server runs, but could not be started: {e}"),
        };
        let moto = Moto {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        // Bounded wait for it to listen; a failure to do so fails the test.
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "moto_server did not start listening"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(moto)
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn attribute<'a>(value: &'a Value, name: &str) -> &'a Value {
    value
        .as_attributes()
        .and_then(|attributes| attributes.get(name))
        .unwrap_or_else(|| panic!("no attribute {name} in {value:?}"))
}

#[test]
fn s3_bucket_lifecycle_against_moto() {
    let Some(executable) = aws_provider() else {
        return;
    };
    let Some(moto) = Moto::start() else {
        return;
    };
    let mut launch = LaunchConfig::new(AWS, executable);
    launch.log = Arc::new(NullLogSink);
    let provider = PluginProvider::launch(launch).expect("the AWS provider starts");
    let schema = provider.get_provider_schema();
    assert!(!schema.diagnostics.has_errors(), "{}", schema.diagnostics);
    let schema = schema.schema;

    // Provider configuration pointing every service used here at moto.
    let provider_block = &schema.provider.block;
    let endpoints_block = &provider_block.block_types["endpoints"].block;
    let endpoints = config(
        endpoints_block,
        &[
            ("s3", Value::string(&moto.endpoint)),
            ("sts", Value::string(&moto.endpoint)),
        ],
    );
    let provider_config = config(
        provider_block,
        &[
            ("region", Value::string("us-east-1")),
            ("access_key", Value::string("test")),
            ("secret_key", Value::string("test")),
            ("skip_credentials_validation", Value::bool(true)),
            ("skip_requesting_account_id", Value::bool(true)),
            ("skip_metadata_api_check", Value::string("true")),
            ("s3_use_path_style", Value::bool(true)),
            (
                "endpoints",
                Value::set(endpoints_block.implied_type(), vec![endpoints]),
            ),
        ],
    );
    let validated = provider.validate_provider_config(ValidateProviderConfigRequest {
        config: provider_config.clone(),
    });
    assert!(
        !validated.diagnostics.has_errors(),
        "{}",
        validated.diagnostics
    );
    let configured = provider.configure_provider(ConfigureProviderRequest {
        terraform_version: "1.11.4".into(),
        config: validated.prepared_config,
        client_capabilities: ClientCapabilities::default(),
    });
    assert!(
        !configured.diagnostics.has_errors(),
        "{}",
        configured.diagnostics
    );

    // A data source.
    let caller = provider.read_data_source(ReadDataSourceRequest {
        type_name: "aws_caller_identity".into(),
        config: config(&schema.data_sources["aws_caller_identity"].block, &[]),
        provider_meta: None,
        client_capabilities: ClientCapabilities::default(),
    });
    assert!(!caller.diagnostics.has_errors(), "{}", caller.diagnostics);
    assert!(attribute(&caller.state, "account_id").as_str().is_some());

    // Plan a create: prior state null, proposed state the configuration.
    let bucket_schema = &schema.resource_types["aws_s3_bucket"];
    let ty = bucket_schema.implied_type();
    let bucket_config = config(
        &bucket_schema.block,
        &[("bucket", Value::string("terrace-lifecycle-test"))],
    );
    let planned = provider.plan_resource_change(PlanResourceChangeRequest {
        type_name: "aws_s3_bucket".into(),
        prior_state: Value::null(ty.clone()),
        proposed_new_state: bucket_config.clone(),
        config: bucket_config.clone(),
        prior_private: Vec::new(),
        provider_meta: None,
        client_capabilities: ClientCapabilities::default(),
    });
    assert!(!planned.diagnostics.has_errors(), "{}", planned.diagnostics);
    assert!(planned.legacy_type_system);
    // Computed attributes are unknown until applied.
    assert!(!attribute(&planned.planned_state, "arn").is_known());
    assert_eq!(
        attribute(&planned.planned_state, "bucket").as_str(),
        Some("terrace-lifecycle-test")
    );

    let applied = provider.apply_resource_change(ApplyResourceChangeRequest {
        type_name: "aws_s3_bucket".into(),
        prior_state: Value::null(ty.clone()),
        planned_state: planned.planned_state,
        config: bucket_config.clone(),
        planned_private: planned.planned_private,
        provider_meta: None,
    });
    assert!(!applied.diagnostics.has_errors(), "{}", applied.diagnostics);
    let state = applied.new_state;
    assert_eq!(
        attribute(&state, "id").as_str(),
        Some("terrace-lifecycle-test")
    );
    assert_eq!(
        attribute(&state, "arn").as_str(),
        Some("arn:aws:s3:::terrace-lifecycle-test")
    );
    assert!(
        !applied.private.is_empty(),
        "the SDK keeps its schema version in private"
    );

    let read = provider.read_resource(ReadResourceRequest {
        type_name: "aws_s3_bucket".into(),
        prior_state: state.clone(),
        private: applied.private.clone(),
        provider_meta: None,
        client_capabilities: ClientCapabilities::default(),
    });
    assert!(!read.diagnostics.has_errors(), "{}", read.diagnostics);
    assert_eq!(
        attribute(&read.new_state, "bucket").as_str(),
        Some("terrace-lifecycle-test")
    );

    let imported = provider.import_resource_state(ImportResourceStateRequest {
        type_name: "aws_s3_bucket".into(),
        id: "terrace-lifecycle-test".into(),
        client_capabilities: ClientCapabilities::default(),
    });
    assert!(
        !imported.diagnostics.has_errors(),
        "{}",
        imported.diagnostics
    );
    assert_eq!(imported.imported_resources.len(), 1);
    assert_eq!(imported.imported_resources[0].type_name, "aws_s3_bucket");
    assert_eq!(
        attribute(&imported.imported_resources[0].state, "id").as_str(),
        Some("terrace-lifecycle-test")
    );

    // The state as written to a state file round-trips through an upgrade.
    let state_json =
        terrace_value::json::to_json_bytes(&read.new_state, &ty).expect("state encodes as JSON");
    let upgraded = provider.upgrade_resource_state(UpgradeResourceStateRequest {
        type_name: "aws_s3_bucket".into(),
        version: bucket_schema.version,
        raw_state: RawState {
            json: state_json,
            flatmap: Default::default(),
        },
    });
    assert!(
        !upgraded.diagnostics.has_errors(),
        "{}",
        upgraded.diagnostics
    );
    assert_eq!(
        attribute(&upgraded.upgraded_state, "arn").as_str(),
        Some("arn:aws:s3:::terrace-lifecycle-test")
    );

    // Destroy: the legacy SDK does not plan destroys, so the client
    // answers for it; apply with a null planned state deletes.
    let plan_destroy = provider.plan_resource_change(PlanResourceChangeRequest {
        type_name: "aws_s3_bucket".into(),
        prior_state: read.new_state.clone(),
        proposed_new_state: Value::null(ty.clone()),
        config: Value::null(ty.clone()),
        prior_private: read.private.clone(),
        provider_meta: None,
        client_capabilities: ClientCapabilities::default(),
    });
    assert!(plan_destroy.diagnostics.is_empty());
    assert!(plan_destroy.planned_state.is_null());
    let destroyed = provider.apply_resource_change(ApplyResourceChangeRequest {
        type_name: "aws_s3_bucket".into(),
        prior_state: read.new_state,
        planned_state: Value::null(ty.clone()),
        config: Value::null(ty.clone()),
        planned_private: read.private,
        provider_meta: None,
    });
    assert!(
        !destroyed.diagnostics.has_errors(),
        "{}",
        destroyed.diagnostics
    );
    assert!(destroyed.new_state.is_null());

    let gone = provider.read_resource(ReadResourceRequest {
        type_name: "aws_s3_bucket".into(),
        prior_state: state,
        private: Vec::new(),
        provider_meta: None,
        client_capabilities: ClientCapabilities::default(),
    });
    assert!(gone.new_state.is_null(), "{:?}", gone.new_state);

    let pid = provider.pid().expect("a launched provider has a pid");
    drop(provider);
    assert_gone(pid);
}
