//! OpenTofu's tests of provider iteration (provider `for_each`, instance
//! keys in `provider` arguments and `providers` maps), ported as facts:
//! each test here writes its own configuration and assertions for what
//! the OpenTofu test it names checks. The table in docs/CONFORMANCE.md
//! ("Provider iteration: OpenTofu's tests ported") maps every test here to
//! its OpenTofu counterpart.
//!
//! The provider is an in-memory `hashicorp/test` whose every call is
//! written to a ledger with the `region` of the provider instance that
//! served it, so a test can tell which instance created, read, imported
//! or destroyed each object.

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use support::{actions, load, state_addrs, state_attr, write_dir};
use terrace_addrs::{AbsProviderConfig, AbsResourceInstance, InstanceKey, Target};
use terrace_config::input_variables::InputValues;
use terrace_config::loader::LoadOptions;
use terrace_engine::{Context, NoHooks, PlanOptions, ProviderFactory};
use terrace_plans::model::{Plan, PlanMode};
use terrace_providers::*;
use terrace_states::model::{DeposedKey, ObjectState, ObjectStatus, State};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Severity;
use terrace_value::{Type, Value};

// ---------------------------------------------------------------------------
// The ledger provider.

/// What the in-memory cloud holds, and every call made to it.
#[derive(Default)]
struct Ledger {
    objects: Mutex<BTreeMap<String, Value>>,
    next: AtomicU64,
    /// `verb subject @region` lines, in call order.
    events: Mutex<Vec<String>>,
    function_calls: AtomicU64,
}

impl Ledger {
    fn log(&self, line: String) {
        if let Ok(mut e) = self.events.lock() {
            e.push(line);
        }
    }

    fn events(&self) -> Vec<String> {
        self.events.lock().map(|e| e.clone()).unwrap_or_default()
    }

    /// The events starting with `verb `, sorted.
    fn events_of(&self, verb: &str) -> Vec<String> {
        let prefix = format!("{verb} ");
        let mut out: Vec<String> = self
            .events()
            .into_iter()
            .filter(|e| e.starts_with(&prefix))
            .collect();
        out.sort();
        out
    }

    fn clear_events(&self) {
        if let Ok(mut e) = self.events.lock() {
            e.clear();
        }
    }

    /// Puts an object into the cloud as if an earlier run had created it.
    fn seed(&self, id: &str, input: &str, region: &str) -> Value {
        let v = thing(id, input, region);
        if let Ok(mut o) = self.objects.lock() {
            o.insert(id.to_string(), v.clone());
        }
        v
    }
}

fn thing(id: &str, input: &str, region: &str) -> Value {
    Value::object(BTreeMap::from([
        ("id".to_string(), Value::string(id)),
        ("input".to_string(), Value::string(input)),
        ("region".to_string(), Value::string(region)),
    ]))
}

struct LedgerProvider {
    ledger: Arc<Ledger>,
    region: Mutex<Option<String>>,
}

fn attribute(ty: Type, optional: bool, computed: bool) -> Attribute {
    Attribute {
        optional,
        computed,
        ..Attribute::new(ty)
    }
}

fn ledger_schema() -> ProviderSchema {
    let mut provider = Block::default();
    provider
        .attributes
        .insert("region".into(), attribute(Type::String, true, false));
    let mut thing = Block::default();
    thing
        .attributes
        .insert("id".into(), attribute(Type::String, false, true));
    thing
        .attributes
        .insert("input".into(), attribute(Type::String, true, false));
    thing
        .attributes
        .insert("region".into(), attribute(Type::String, false, true));
    let mut data = Block::default();
    data.attributes
        .insert("input".into(), attribute(Type::String, true, false));
    data.attributes
        .insert("region".into(), attribute(Type::String, false, true));
    let is_arn = FunctionSpec {
        parameters: vec![FunctionParameter {
            name: "arn".into(),
            ty: Type::String,
            allow_null_value: false,
            allow_unknown_values: false,
            description: String::new(),
            description_kind: StringKind::Plain,
        }],
        variadic_parameter: None,
        return_type: Type::Bool,
        summary: String::new(),
        description: String::new(),
        description_kind: StringKind::Plain,
        deprecation_message: String::new(),
    };
    ProviderSchema {
        provider: Schema {
            version: 0,
            block: provider,
        },
        resource_types: BTreeMap::from([(
            "test_thing".to_string(),
            Schema {
                version: 0,
                block: thing,
            },
        )]),
        data_sources: BTreeMap::from([(
            "test_data".to_string(),
            Schema {
                version: 0,
                block: data,
            },
        )]),
        functions: BTreeMap::from([("is_arn".to_string(), is_arn)]),
        ..ProviderSchema::default()
    }
}

fn attr_of(v: &Value, name: &str) -> Value {
    v.as_attributes()
        .and_then(|a| a.get(name).cloned())
        .unwrap_or_else(|| Value::null(Type::String))
}

fn text_of(v: &Value, name: &str) -> String {
    attr_of(v, name).as_str().unwrap_or("<null>").to_string()
}

fn with_attr(v: &Value, name: &str, x: Value) -> Value {
    let mut a = v
        .as_attributes()
        .map(terrace_value::Attrs::to_map)
        .unwrap_or_default();
    a.insert(name.to_string(), x);
    Value::object(a)
}

impl LedgerProvider {
    /// The region this instance was configured with; "unconfigured" before
    /// ConfigureProvider, so a call through the wrong instance shows.
    fn region(&self) -> String {
        self.region
            .lock()
            .ok()
            .and_then(|r| r.clone())
            .unwrap_or_else(|| "unconfigured".into())
    }
}

impl Provider for LedgerProvider {
    fn get_metadata(&self) -> GetMetadataResponse {
        GetMetadataResponse::default()
    }
    fn get_provider_schema(&self) -> GetProviderSchemaResponse {
        GetProviderSchemaResponse {
            schema: Arc::new(ledger_schema()),
            diagnostics: Diagnostics::new(),
        }
    }
    fn validate_provider_config(
        &self,
        r: ValidateProviderConfigRequest,
    ) -> ValidateProviderConfigResponse {
        ValidateProviderConfigResponse {
            prepared_config: r.config,
            diagnostics: Diagnostics::new(),
        }
    }
    fn validate_resource_config(
        &self,
        _: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse {
        ValidateResourceConfigResponse::default()
    }
    fn validate_data_resource_config(
        &self,
        _: ValidateDataResourceConfigRequest,
    ) -> ValidateDataResourceConfigResponse {
        ValidateDataResourceConfigResponse::default()
    }
    fn validate_ephemeral_resource_config(
        &self,
        _: ValidateEphemeralResourceConfigRequest,
    ) -> ValidateEphemeralResourceConfigResponse {
        ValidateEphemeralResourceConfigResponse::default()
    }
    fn upgrade_resource_state(
        &self,
        r: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        let ty = ledger_schema().resource_types["test_thing"].implied_type();
        match terrace_value::json::from_json(&r.raw_state.json, &ty) {
            Ok(v) => UpgradeResourceStateResponse {
                upgraded_state: v,
                diagnostics: Diagnostics::new(),
            },
            Err(e) => UpgradeResourceStateResponse {
                upgraded_state: Value::null(ty),
                diagnostics: Diagnostic::error("Unreadable state", e.to_string()).into(),
            },
        }
    }
    fn configure_provider(&self, r: ConfigureProviderRequest) -> ConfigureProviderResponse {
        let region = attr_of(&r.config, "region")
            .as_str()
            .unwrap_or("default")
            .to_string();
        self.ledger.log(format!("configure @{region}"));
        if let Ok(mut g) = self.region.lock() {
            *g = Some(region);
        }
        ConfigureProviderResponse::default()
    }
    fn read_resource(&self, r: ReadResourceRequest) -> ReadResourceResponse {
        let id = text_of(&r.prior_state, "id");
        self.ledger.log(format!("read {id} @{}", self.region()));
        let found = self
            .ledger
            .objects
            .lock()
            .ok()
            .and_then(|o| o.get(&id).cloned());
        let ty = ledger_schema().resource_types["test_thing"].implied_type();
        ReadResourceResponse {
            new_state: found.unwrap_or_else(|| Value::null(ty)),
            private: r.private,
            deferred: None,
            diagnostics: Diagnostics::new(),
        }
    }
    fn plan_resource_change(&self, r: PlanResourceChangeRequest) -> PlanResourceChangeResponse {
        let mut planned = r.proposed_new_state.clone();
        if !planned.is_null() {
            if r.prior_state.is_null() {
                planned = with_attr(&planned, "id", Value::unknown(Type::String));
                planned = with_attr(&planned, "region", Value::string(self.region()));
            } else {
                planned = with_attr(&planned, "id", attr_of(&r.prior_state, "id"));
                planned = with_attr(&planned, "region", attr_of(&r.prior_state, "region"));
            }
        }
        PlanResourceChangeResponse {
            planned_state: planned,
            requires_replace: Vec::new(),
            planned_private: Vec::new(),
            legacy_type_system: false,
            deferred: None,
            diagnostics: Diagnostics::new(),
        }
    }
    fn apply_resource_change(&self, r: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse {
        let region = self.region();
        let mut new = r.planned_state.clone();
        if new.is_null() {
            let id = text_of(&r.prior_state, "id");
            self.ledger.log(format!("delete {id} @{region}"));
            if let Ok(mut o) = self.ledger.objects.lock() {
                o.remove(&id);
            }
        } else {
            if !attr_of(&new, "id").is_known() {
                let n = self.ledger.next.fetch_add(1, Ordering::SeqCst);
                new = with_attr(&new, "id", Value::string(format!("obj-{n}")));
                self.ledger
                    .log(format!("create {} @{region}", text_of(&new, "input")));
            } else {
                self.ledger
                    .log(format!("update {} @{region}", text_of(&new, "id")));
            }
            if let Ok(mut o) = self.ledger.objects.lock() {
                o.insert(text_of(&new, "id"), new.clone());
            }
        }
        ApplyResourceChangeResponse {
            new_state: new,
            private: Vec::new(),
            legacy_type_system: false,
            diagnostics: Diagnostics::new(),
        }
    }
    fn import_resource_state(&self, r: ImportResourceStateRequest) -> ImportResourceStateResponse {
        let region = self.region();
        self.ledger.log(format!("import {} @{region}", r.id));
        let v = self.ledger.seed(&r.id, "imported", &region);
        ImportResourceStateResponse {
            imported_resources: vec![ImportedResource {
                type_name: r.type_name,
                state: v,
                private: Vec::new(),
            }],
            deferred: None,
            diagnostics: Diagnostics::new(),
        }
    }
    fn move_resource_state(&self, _: MoveResourceStateRequest) -> MoveResourceStateResponse {
        MoveResourceStateResponse {
            target_state: Value::dynamic(),
            target_private: Vec::new(),
            diagnostics: Diagnostic::error("Unsupported", "").into(),
        }
    }
    fn read_data_source(&self, r: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let region = self.region();
        self.ledger.log(format!(
            "read-data {} @{region}",
            text_of(&r.config, "input")
        ));
        ReadDataSourceResponse {
            state: with_attr(&r.config, "region", Value::string(region)),
            deferred: None,
            diagnostics: Diagnostics::new(),
        }
    }
    fn open_ephemeral_resource(
        &self,
        _: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        OpenEphemeralResourceResponse {
            result: Value::dynamic(),
            private: None,
            renew_at: None,
            deferred: None,
            diagnostics: Diagnostic::error("Unsupported", "").into(),
        }
    }
    fn renew_ephemeral_resource(
        &self,
        _: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse::default()
    }
    fn close_ephemeral_resource(
        &self,
        _: CloseEphemeralResourceRequest,
    ) -> CloseEphemeralResourceResponse {
        CloseEphemeralResourceResponse::default()
    }
    fn get_functions(&self) -> GetFunctionsResponse {
        GetFunctionsResponse::default()
    }
    fn call_function(&self, r: CallFunctionRequest) -> CallFunctionResponse {
        self.ledger.function_calls.fetch_add(1, Ordering::SeqCst);
        let arn = r
            .arguments
            .first()
            .and_then(|a| a.as_str().map(str::to_string));
        CallFunctionResponse {
            result: match (r.name.as_str(), arn) {
                ("is_arn", Some(a)) => Ok(Value::bool(a.starts_with("arn:"))),
                _ => Err(FunctionError::new("no such function")),
            },
        }
    }
    fn stop(&self) -> Diagnostics {
        Diagnostics::new()
    }
    fn close(&self) -> Diagnostics {
        Diagnostics::new()
    }
}

struct LedgerFactory {
    ledger: Arc<Ledger>,
    dir: PathBuf,
}

impl ProviderFactory for LedgerFactory {
    fn schema(
        &self,
        p: &terrace_addrs::Provider,
    ) -> Result<Arc<ProviderSchema>, terrace_syntax::Diagnostics> {
        if p.type_name() == "test" {
            Ok(Arc::new(ledger_schema()))
        } else if p.is_builtin() && p.type_name() == "terraform" {
            Ok(Arc::new(terrace_builtin::TerraformProvider::schema()))
        } else {
            Err(vec![terrace_syntax::Diagnostic::error(
                "Unknown provider",
                p.to_string(),
            )])
        }
    }
    fn start(
        &self,
        p: &terrace_addrs::Provider,
    ) -> Result<Arc<dyn Provider>, terrace_syntax::Diagnostics> {
        if p.type_name() == "test" {
            Ok(Arc::new(LedgerProvider {
                ledger: self.ledger.clone(),
                region: Mutex::new(None),
            }))
        } else {
            Ok(Arc::new(terrace_builtin::TerraformProvider::new(
                self.dir.clone(),
            )))
        }
    }
}

// ---------------------------------------------------------------------------
// The harness: a configuration directory, the state between runs, and the
// ledger.

struct Peer {
    ledger: Arc<Ledger>,
    dir: PathBuf,
    state: State,
}

const TEST_ADDR: &str = "registry.terraform.io/hashicorp/test";

impl Peer {
    fn new(files: &[(&str, &str)]) -> Peer {
        Peer {
            ledger: Arc::new(Ledger::default()),
            dir: write_dir(files),
            state: State::new_with_lineage("peer"),
        }
    }

    /// Replaces the configuration (the state and the cloud stay).
    fn rewrite(&mut self, files: &[(&str, &str)]) {
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::create_dir_all(&self.dir);
        for (name, text) in files {
            let p = self.dir.join(name);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).expect("create test dir");
            }
            std::fs::write(p, text).expect("write test file");
        }
    }

    fn context(&self) -> Context {
        let (config, variables) = load(&self.dir, &[]);
        Context {
            config: Arc::new(config),
            providers: Arc::new(LedgerFactory {
                ledger: self.ledger.clone(),
                dir: self.dir.clone(),
            }),
            variables,
            workspace: "default".into(),
            working_dir: self.dir.clone(),
            parallelism: 4,
            terraform_version: "1.11.4".into(),
            commands: Arc::new(terrace_engine::NoCommandRunner),
        }
    }

    fn try_plan(&self, opts: &PlanOptions) -> (Plan, terrace_syntax::Diagnostics) {
        terrace_engine::plan(&self.context(), &self.state, opts, &NoHooks)
    }

    fn plan(&self) -> Plan {
        let (plan, diags) = self.try_plan(&PlanOptions::default());
        assert!(!has_errors(&diags), "plan errors: {diags:#?}");
        plan
    }

    fn apply(&mut self, plan: &Plan) {
        let (state, diags) = terrace_engine::apply(&self.context(), plan, &NoHooks);
        assert!(!has_errors(&diags), "apply errors: {diags:#?}");
        self.state = state;
    }

    /// Plans with `opts` and applies, as `terrace apply` does.
    fn apply_with(&mut self, opts: &PlanOptions) -> Plan {
        let (plan, diags) = self.try_plan(opts);
        assert!(!has_errors(&diags), "plan errors: {diags:#?}");
        self.apply(&plan);
        plan
    }

    fn apply_config(&mut self) -> Plan {
        self.apply_with(&PlanOptions::default())
    }

    fn destroy(&mut self) -> Plan {
        self.apply_with(&destroy_mode())
    }

    /// The summaries of the errors planning gives.
    fn plan_errors(&self) -> Vec<terrace_syntax::Diagnostic> {
        let (plan, diags) = self.try_plan(&PlanOptions::default());
        assert!(plan.errored || has_errors(&diags));
        diags.into_iter().filter(|d| d.is_error()).collect()
    }

    /// The provider instance a state instance is bound to, as text.
    fn bound(&self, addr: &str) -> Option<String> {
        let addr = AbsResourceInstance::parse_str(addr).ok()?;
        self.state.provider_instance(&addr).map(|p| p.to_string())
    }

    /// Writes the state to a state file and reads it back, as the CLI does
    /// between runs.
    fn round_trip_state(&mut self) {
        let bytes = terrace_states::statefile::write(&self.state);
        match terrace_states::statefile::read(&bytes) {
            Ok((state, diags)) => {
                assert!(!has_errors(&diags), "{diags:#?}");
                self.state = state;
            }
            Err(diags) => panic!("state does not read back: {diags:#?}"),
        }
    }
}

fn destroy_mode() -> PlanOptions {
    PlanOptions {
        mode: PlanMode::Destroy,
        ..PlanOptions::default()
    }
}

fn instance_of(config: &str, key: &str) -> String {
    format!("provider[\"{TEST_ADDR}\"].{config}[\"{key}\"]")
}

fn provider_config(text: &str) -> AbsProviderConfig {
    AbsProviderConfig::parse_str(text).expect("provider configuration address")
}

fn resource_instance(text: &str) -> AbsResourceInstance {
    AbsResourceInstance::parse_str(text).expect("resource instance address")
}

fn object(v: &Value, status: ObjectStatus) -> ObjectState {
    let mut o = ObjectState::from_value(v, 0).expect("encode object");
    o.status = status;
    o
}

fn summaries(diags: &[terrace_syntax::Diagnostic]) -> Vec<String> {
    diags.iter().map(|d| d.summary.clone()).collect()
}

/// Loads and validates a configuration as `terrace validate` does,
/// returning every diagnostic.
fn config_diagnostics(files: &[(&str, &str)]) -> Vec<terrace_syntax::Diagnostic> {
    let dir = write_dir(files);
    let opts = LoadOptions {
        input_values: Arc::new(InputValues::from_text(std::iter::empty())),
        ..LoadOptions::default()
    };
    terrace_config::validation::load_and_validate(&dir, &opts, None).diagnostics
}

// ---------------------------------------------------------------------------
// Resources and data sources bound to provider instances.

/// Which provider instances exist (`providers`), which resource instances
/// (`resources`), and the key every `*_direct` instance uses.
fn iteration_locals(providers: &str, members: &str) -> String {
    format!(
        r#"
locals {{
  direct    = "primary"
  providers = {providers}
  members   = {members}
}}
"#
    )
}

const BOTH_REGIONS: &str = r#"{ primary = "eu-west-1", secondary = "eu-west-2" }"#;
const PRIMARY_REGION: &str = r#"{ primary = "eu-west-1" }"#;
const BOTH_MEMBERS: &str = r#"["primary", "secondary"]"#;
const PRIMARY_MEMBER: &str = r#"["primary"]"#;

const ITERATED_PROVIDER: &str = r#"
provider "test" {
  alias    = "al"
  for_each = local.providers
  region   = each.value
}
"#;

const RESOURCES_BY_KEY: &str = r#"
resource "test_thing" "a" {
  for_each = toset(local.members)
  provider = test.al[each.key]
  input    = "a-${each.key}"
}
data "test_data" "b" {
  for_each = toset(local.members)
  provider = test.al[each.key]
  input    = "b-${each.key}"
}
resource "test_thing" "a_direct" {
  for_each = toset(local.members)
  provider = test.al[local.direct]
  input    = "a_direct-${each.key}"
}
data "test_data" "b_direct" {
  for_each = toset(local.members)
  provider = test.al[local.direct]
  input    = "b_direct-${each.key}"
}
"#;

fn resource_iteration(
    providers: &str,
    members: &str,
    with_resources: bool,
) -> Vec<(String, String)> {
    let mut files = vec![
        (
            "locals.tf".to_string(),
            iteration_locals(providers, members),
        ),
        ("providers.tf".to_string(), ITERATED_PROVIDER.to_string()),
    ];
    if with_resources {
        files.push(("resources.tf".to_string(), RESOURCES_BY_KEY.to_string()));
    }
    files
}

fn as_refs(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

/// Applies the configuration with both provider instances and both
/// members, checking where every object went.
fn apply_complete_resources(p: &mut Peer) {
    p.apply_config();
    for key in ["primary", "secondary"] {
        assert_eq!(
            p.bound(&format!("test_thing.a[\"{key}\"]")),
            Some(instance_of("al", key))
        );
        assert_eq!(
            p.bound(&format!("test_thing.a_direct[\"{key}\"]")),
            Some(instance_of("al", "primary"))
        );
    }
    let created = p.ledger.events_of("create");
    assert_eq!(
        created,
        [
            "create a-primary @eu-west-1",
            "create a-secondary @eu-west-2",
            "create a_direct-primary @eu-west-1",
            "create a_direct-secondary @eu-west-1",
        ]
    );
    let read = p.ledger.events_of("read-data");
    assert_eq!(
        read,
        [
            "read-data b-primary @eu-west-1",
            "read-data b-secondary @eu-west-2",
            "read-data b_direct-primary @eu-west-1",
            "read-data b_direct-secondary @eu-west-1",
        ]
    );
    // Planning and applying each configure both instances, and nothing else.
    let mut configured = p.ledger.events_of("configure");
    configured.dedup();
    assert_eq!(configured, ["configure @eu-west-1", "configure @eu-west-2"]);
}

/// The region of the provider instance each `delete` event ran in, by the
/// input of the object deleted.
fn deletions(p: &Peer, before: &BTreeMap<String, Value>) -> Vec<String> {
    let mut out: Vec<String> = p
        .ledger
        .events_of("delete")
        .into_iter()
        .map(|e| {
            let mut parts = e.split(' ');
            let id = parts.nth(1).unwrap_or_default().to_string();
            let region = parts.next().unwrap_or_default();
            let input = before.get(&id).map(|v| text_of(v, "input")).unwrap_or(id);
            format!("{input} {region}")
        })
        .collect();
    out.sort();
    out
}

fn cloud(p: &Peer) -> BTreeMap<String, Value> {
    p.ledger
        .objects
        .lock()
        .map(|o| o.clone())
        .unwrap_or_default()
}

/// OpenTofu: `TestContext2Apply_providerResourceIteration`, subtest
/// `apply_destroy` (internal/tofu/context_apply2_test.go). Each instance
/// records the provider instance its key selects; destroying uses them.
#[test]
fn resource_iteration_apply_then_destroy() {
    let files = resource_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_resources(&mut p);
    let before = cloud(&p);
    p.destroy();
    assert!(p.state.resources.is_empty(), "{:?}", state_addrs(&p.state));
    assert_eq!(
        deletions(&p, &before),
        [
            "a-primary @eu-west-1",
            "a-secondary @eu-west-2",
            "a_direct-primary @eu-west-1",
            "a_direct-secondary @eu-west-1",
        ]
    );
}

/// OpenTofu: `TestContext2Apply_providerResourceIteration`, subtest
/// `apply_removed` (internal/tofu/context_apply2_test.go). With the
/// resource blocks gone and the provider instances kept, every object is
/// destroyed by the provider instance it was created with.
#[test]
fn resource_iteration_removed_resources_are_destroyed() {
    let files = resource_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_resources(&mut p);
    let before = cloud(&p);
    p.rewrite(&as_refs(&resource_iteration(
        BOTH_REGIONS,
        PRIMARY_MEMBER,
        false,
    )));
    let plan = p.apply_config();
    assert_eq!(
        actions(&plan),
        [
            "test_thing.a[\"primary\"] Delete",
            "test_thing.a[\"secondary\"] Delete",
            "test_thing.a_direct[\"primary\"] Delete",
            "test_thing.a_direct[\"secondary\"] Delete",
        ]
    );
    assert!(p.state.resources.is_empty(), "{:?}", state_addrs(&p.state));
    assert_eq!(
        deletions(&p, &before),
        [
            "a-primary @eu-west-1",
            "a-secondary @eu-west-2",
            "a_direct-primary @eu-west-1",
            "a_direct-secondary @eu-west-1",
        ]
    );
}

/// OpenTofu: `TestContext2Apply_providerResourceIteration`, subtest
/// `apply_orphan_destroy` (internal/tofu/context_apply2_test.go). Dropping
/// a member while its provider instance stays destroys just that member,
/// through its own provider instance; a destroy then removes the rest.
#[test]
fn resource_iteration_orphaned_member_is_destroyed() {
    let files = resource_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_resources(&mut p);
    let before = cloud(&p);
    p.rewrite(&as_refs(&resource_iteration(
        BOTH_REGIONS,
        PRIMARY_MEMBER,
        true,
    )));
    p.apply_config();
    assert_eq!(
        state_addrs(&p.state),
        [
            "data.test_data.b[\"primary\"]",
            "data.test_data.b_direct[\"primary\"]",
            "test_thing.a[\"primary\"]",
            "test_thing.a_direct[\"primary\"]"
        ]
    );
    assert_eq!(
        deletions(&p, &before),
        ["a-secondary @eu-west-2", "a_direct-secondary @eu-west-1"]
    );
    p.destroy();
    assert!(p.state.resources.is_empty());
    assert!(cloud(&p).is_empty());
}

/// OpenTofu: `TestContext2Apply_providerResourceIteration`, subtest
/// `provider_key_removed_apply` (internal/tofu/context_apply2_test.go).
/// Removing a provider instance that a declared resource instance still
/// selects is "Provider instance not present".
#[test]
fn resource_iteration_removed_provider_key_is_refused() {
    let files = resource_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_resources(&mut p);
    p.rewrite(&as_refs(&resource_iteration(
        PRIMARY_REGION,
        BOTH_MEMBERS,
        true,
    )));
    let errors = p.plan_errors();
    assert!(
        summaries(&errors).contains(&"Provider instance not present".to_string()),
        "{errors:#?}"
    );
    assert!(
        errors
            .iter()
            .any(|d| d.detail.contains(&instance_of("al", "secondary"))),
        "{errors:#?}"
    );
}

/// OpenTofu: `TestContext2Apply_providerResourceIteration`, subtest
/// `empty` (internal/tofu/context_apply2_test.go). Removing everything,
/// the provider configuration too, leaves objects no configuration can
/// destroy: "Provider configuration not present".
#[test]
fn resource_iteration_everything_removed_is_refused() {
    let files = resource_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_resources(&mut p);
    p.rewrite(&[]);
    let errors = p.plan_errors();
    assert!(
        summaries(&errors).contains(&"Provider configuration not present".to_string()),
        "{errors:#?}"
    );
}

// ---------------------------------------------------------------------------
// Module instances given provider instances through `providers`.

const MODULE_CALLS: &str = r#"
module "mod" {
  source   = "./mod"
  for_each = toset(local.members)
  providers = {
    test = test.al[each.key]
  }
  name = "mod-${each.key}"
}
module "mod_direct" {
  source   = "./mod"
  for_each = toset(local.members)
  providers = {
    test = test.al[local.direct]
  }
  name = "mod_direct-${each.key}"
}
"#;

const MODULE_BODY: &str = r#"
variable "name" { type = string }
resource "test_thing" "a" {
  input = var.name
}
data "test_data" "b" {
  input = var.name
}
"#;

fn module_iteration(providers: &str, members: &str, with_calls: bool) -> Vec<(String, String)> {
    let mut files = vec![
        (
            "locals.tf".to_string(),
            iteration_locals(providers, members),
        ),
        ("providers.tf".to_string(), ITERATED_PROVIDER.to_string()),
    ];
    if with_calls {
        files.push(("modules.tf".to_string(), MODULE_CALLS.to_string()));
        files.push(("mod/main.tf".to_string(), MODULE_BODY.to_string()));
    }
    files
}

fn apply_complete_modules(p: &mut Peer) {
    p.apply_config();
    for key in ["primary", "secondary"] {
        assert_eq!(
            p.bound(&format!("module.mod[\"{key}\"].test_thing.a")),
            Some(instance_of("al", key))
        );
        assert_eq!(
            p.bound(&format!("module.mod_direct[\"{key}\"].test_thing.a")),
            Some(instance_of("al", "primary"))
        );
    }
    assert_eq!(
        p.ledger.events_of("create"),
        [
            "create mod-primary @eu-west-1",
            "create mod-secondary @eu-west-2",
            "create mod_direct-primary @eu-west-1",
            "create mod_direct-secondary @eu-west-1",
        ]
    );
    assert_eq!(
        p.ledger.events_of("read-data"),
        [
            "read-data mod-primary @eu-west-1",
            "read-data mod-secondary @eu-west-2",
            "read-data mod_direct-primary @eu-west-1",
            "read-data mod_direct-secondary @eu-west-1",
        ]
    );
}

/// OpenTofu: `TestContext2Apply_providerModuleIteration`, subtest
/// `apply_destroy` (internal/tofu/context_apply2_test.go).
#[test]
fn module_iteration_apply_then_destroy() {
    let files = module_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_modules(&mut p);
    let before = cloud(&p);
    p.destroy();
    assert!(p.state.resources.is_empty(), "{:?}", state_addrs(&p.state));
    assert_eq!(
        deletions(&p, &before),
        [
            "mod-primary @eu-west-1",
            "mod-secondary @eu-west-2",
            "mod_direct-primary @eu-west-1",
            "mod_direct-secondary @eu-west-1",
        ]
    );
}

/// OpenTofu: `TestContext2Apply_providerModuleIteration`, subtest
/// `apply_removed` (internal/tofu/context_apply2_test.go). The module
/// calls are gone; the objects in their instances are destroyed through
/// the provider instances the state recorded for them.
#[test]
fn module_iteration_removed_calls_are_destroyed() {
    let files = module_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_modules(&mut p);
    let before = cloud(&p);
    p.rewrite(&as_refs(&module_iteration(
        BOTH_REGIONS,
        PRIMARY_MEMBER,
        false,
    )));
    p.apply_config();
    assert!(p.state.resources.is_empty(), "{:?}", state_addrs(&p.state));
    assert_eq!(
        deletions(&p, &before),
        [
            "mod-primary @eu-west-1",
            "mod-secondary @eu-west-2",
            "mod_direct-primary @eu-west-1",
            "mod_direct-secondary @eu-west-1",
        ]
    );
}

/// OpenTofu: `TestContext2Apply_providerModuleIteration`, subtest
/// `apply_orphan_destroy` (internal/tofu/context_apply2_test.go).
#[test]
fn module_iteration_orphaned_instance_is_destroyed() {
    let files = module_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_modules(&mut p);
    let before = cloud(&p);
    p.rewrite(&as_refs(&module_iteration(
        BOTH_REGIONS,
        PRIMARY_MEMBER,
        true,
    )));
    p.apply_config();
    assert_eq!(
        state_addrs(&p.state),
        [
            "module.mod[\"primary\"].data.test_data.b",
            "module.mod[\"primary\"].test_thing.a",
            "module.mod_direct[\"primary\"].data.test_data.b",
            "module.mod_direct[\"primary\"].test_thing.a"
        ]
    );
    assert_eq!(
        deletions(&p, &before),
        [
            "mod-secondary @eu-west-2",
            "mod_direct-secondary @eu-west-1"
        ]
    );
    p.destroy();
    assert!(p.state.resources.is_empty());
    assert!(cloud(&p).is_empty());
}

/// OpenTofu: `TestContext2Apply_providerModuleIteration`, subtest
/// `provider_key_removed_apply` (internal/tofu/context_apply2_test.go).
#[test]
fn module_iteration_removed_provider_key_is_refused() {
    let files = module_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_modules(&mut p);
    p.rewrite(&as_refs(&module_iteration(
        PRIMARY_REGION,
        BOTH_MEMBERS,
        true,
    )));
    let errors = p.plan_errors();
    assert!(
        summaries(&errors).contains(&"Provider instance not present".to_string()),
        "{errors:#?}"
    );
    assert!(
        errors
            .iter()
            .any(|d| d.detail.contains(&instance_of("al", "secondary"))),
        "{errors:#?}"
    );
}

/// OpenTofu: `TestContext2Apply_providerModuleIteration`, subtest `empty`
/// (internal/tofu/context_apply2_test.go).
#[test]
fn module_iteration_everything_removed_is_refused() {
    let files = module_iteration(BOTH_REGIONS, BOTH_MEMBERS, true);
    let mut p = Peer::new(&as_refs(&files));
    apply_complete_modules(&mut p);
    p.rewrite(&[]);
    let errors = p.plan_errors();
    assert!(
        summaries(&errors).contains(&"Provider configuration not present".to_string()),
        "{errors:#?}"
    );
}

// ---------------------------------------------------------------------------
// Renamed provider configurations under -target and -exclude.

fn renamed(alias: &str, with_first: bool) -> String {
    let first = if with_first {
        format!(
            r#"
resource "test_thing" "first" {{
  for_each = local.instances
  provider = test.{alias}[each.key]
  input    = "first-${{each.key}}"
}}
"#
        )
    } else {
        String::new()
    };
    format!(
        r#"
locals {{
  instances = toset(["a", "b"])
}}
provider "test" {{
  alias    = "{alias}"
  for_each = local.instances
  region   = each.key
}}
{first}
resource "test_thing" "second" {{
  for_each = local.instances
  provider = test.{alias}[each.key]
  input    = "second-${{each.key}}"
}}
"#
    )
}

/// Step 1 to 3 of OpenTofu's target/exclude test, with `step2` filtering
/// the second run so that both instances of `test_thing.second` are left
/// out and at least one of `test_thing.first` is in. The state goes
/// through a state file between runs.
fn renamed_configuration_under_filter(step2: PlanOptions) {
    let mut p = Peer::new(&[("main.tf", &renamed("before", true))]);
    p.apply_config();
    for r in ["first", "second"] {
        for k in ["a", "b"] {
            assert_eq!(
                p.bound(&format!("test_thing.{r}[\"{k}\"]")),
                Some(instance_of("before", k))
            );
        }
    }
    p.round_trip_state();

    // The configuration is renamed; the filtered run records the new
    // provider instances for every instance of a resource it visits, and
    // leaves the others on the old ones.
    p.rewrite(&[("main.tf", &renamed("after", true))]);
    let plan = p.apply_with(&step2);
    assert!(actions(&plan).is_empty(), "{:?}", actions(&plan));
    for k in ["a", "b"] {
        assert_eq!(
            p.bound(&format!("test_thing.first[\"{k}\"]")),
            Some(instance_of("after", k))
        );
        assert_eq!(
            p.bound(&format!("test_thing.second[\"{k}\"]")),
            Some(instance_of("before", k))
        );
    }
    p.round_trip_state();

    // Without a filter: `first` is destroyed through the provider
    // instances its state now names, `second` moves over.
    let before = cloud(&p);
    p.ledger.clear_events();
    p.rewrite(&[("main.tf", &renamed("after", false))]);
    let plan = p.apply_config();
    assert_eq!(
        actions(&plan),
        [
            "test_thing.first[\"a\"] Delete",
            "test_thing.first[\"b\"] Delete"
        ]
    );
    assert_eq!(deletions(&p, &before), ["first-a @a", "first-b @b"]);
    assert!(p
        .state
        .resource(&resource_instance("test_thing.first[\"a\"]").containing_resource())
        .is_none());
    for k in ["a", "b"] {
        assert_eq!(
            p.bound(&format!("test_thing.second[\"{k}\"]")),
            Some(instance_of("after", k))
        );
    }
    p.round_trip_state();
    assert!(actions(&p.plan()).is_empty());
}

fn target(s: &str) -> Target {
    Target::parse_str(s).expect("target address")
}

/// OpenTofu: `TestContext2Apply_providerExpandWithTargetOrExclude`,
/// subtest `with target` (internal/tofu/context_apply2_test.go).
#[test]
fn renamed_provider_configuration_with_target() {
    renamed_configuration_under_filter(PlanOptions {
        targets: vec![target("test_thing.first[\"a\"]")],
        ..PlanOptions::default()
    });
}

/// OpenTofu: `TestContext2Apply_providerExpandWithTargetOrExclude`,
/// subtest `with exclude` (internal/tofu/context_apply2_test.go).
#[test]
fn renamed_provider_configuration_with_exclude() {
    renamed_configuration_under_filter(PlanOptions {
        excludes: vec![
            target("test_thing.second[\"a\"]"),
            target("test_thing.second[\"b\"]"),
        ],
        ..PlanOptions::default()
    });
}

// ---------------------------------------------------------------------------
// Deposed and orphaned objects of provider instances.

/// OpenTofu: `TestContext2Apply_destroyWithDeposedWithDynamicProvider`
/// (internal/tofu/context_apply2_test.go). A deposed object bound to an
/// instance of a provider with `for_each` is destroyed by that instance.
#[test]
fn deposed_object_is_destroyed_by_its_provider_instance() {
    let mut p = Peer::new(&[(
        "main.tf",
        r#"
provider "test" {
  alias    = "for_eached"
  for_each = { a = {} }
  region   = each.key
}
resource "test_thing" "x" {
  input    = "ok"
  provider = test.for_eached["a"]
  lifecycle {
    create_before_destroy = true
  }
}
"#,
    )]);
    let v = p.ledger.seed("deposed-1", "deposed", "a");
    p.state.set_deposed(
        &resource_instance("test_thing.x"),
        DeposedKey("00000001".into()),
        provider_config(&format!("provider[\"{TEST_ADDR}\"].for_eached")),
        InstanceKey::string("a"),
        Some(object(&v, ObjectStatus::Tainted)),
    );
    let plan = p.destroy();
    assert_eq!(actions(&plan), ["test_thing.x (00000001) Delete"]);
    assert_eq!(p.ledger.events_of("delete"), ["delete deposed-1 @a"]);
    assert!(p.state.resources.is_empty());
}

/// OpenTofu: `TestContext2Apply_forgetOrphanAndDeposedWithDynamicProvider`
/// (internal/tofu/context_apply2_test.go). A `removed` block with
/// `destroy = false` forgets the current and the deposed object of an
/// instance bound to a provider instance, destroying nothing.
#[test]
fn removed_block_forgets_current_and_deposed_objects_of_a_provider_instance() {
    let mut p = Peer::new(&[(
        "main.tf",
        r#"
provider "test" {
  alias    = "for_eached"
  for_each = { a = {} }
  region   = each.key
}
removed {
  from = test_thing.baz
  lifecycle {
    destroy = false
  }
}
"#,
    )]);
    let addr = resource_instance("test_thing.baz");
    let config = provider_config(&format!("provider[\"{TEST_ADDR}\"].for_eached"));
    let current = p.ledger.seed("bar", "current", "a");
    let deposed = p.ledger.seed("bar-old", "deposed", "a");
    p.state.set_current(
        &addr,
        config.clone(),
        InstanceKey::string("a"),
        Some(object(&current, ObjectStatus::Ready)),
    );
    p.state.set_deposed(
        &addr,
        DeposedKey("deposed1".into()),
        config,
        InstanceKey::string("a"),
        Some(object(&deposed, ObjectStatus::Tainted)),
    );
    let plan = p.apply_config();
    assert_eq!(
        actions(&plan),
        ["test_thing.baz (deposed1) Forget", "test_thing.baz Forget"]
    );
    assert!(p.state.resources.is_empty(), "{:?}", state_addrs(&p.state));
    assert!(p.ledger.events_of("delete").is_empty());
    assert_eq!(cloud(&p).len(), 2, "forgotten objects stay in the cloud");
}

/// OpenTofu:
/// `TestContext2Plan_providerForEachWithOrphanResourceInstanceNotUsingForEach`
/// (internal/tofu/context_plan2_test.go). An orphaned instance bound to
/// the no-key instance of a configuration that now has `for_each` needs
/// that instance, which is gone: the error says how to proceed.
#[test]
fn orphan_of_the_single_instance_configuration_is_refused_after_adding_for_each() {
    let mut p = Peer::new(&[(
        "main.tf",
        r#"
provider "test" {
  alias    = "multi"
  for_each = toset(["a"])
  region   = each.key
}
resource "test_thing" "a" {
  for_each = toset([])
  provider = test.multi["a"]
}
"#,
    )]);
    let v = p.ledger.seed("orphan", "orphaned", "single");
    p.state.set_current(
        &resource_instance("test_thing.a[\"orphaned\"]"),
        provider_config(&format!("provider[\"{TEST_ADDR}\"].multi")),
        InstanceKey::None,
        Some(object(&v, ObjectStatus::Ready)),
    );
    let errors = p.plan_errors();
    let want = format!("To proceed, return to your previous single-instance configuration for provider[\"{TEST_ADDR}\"].multi and ensure that test_thing.a[\"orphaned\"] has been destroyed or forgotten before using for_each with this provider, or change the resource configuration to still declare an instance with the key [\"orphaned\"].");
    assert!(
        errors
            .iter()
            .any(|d| d.summary == "Provider instance not present" && d.detail.contains(&want)),
        "{errors:#?}"
    );
}

// ---------------------------------------------------------------------------
// Provider functions through provider instances.

/// OpenTofu: `TestContext2Functions_providerFunctionsForEachCount`
/// (internal/tofu/context_functions_test.go). A module given a provider
/// instance calls the provider's function in a variable validation; both
/// validating and planning call it.
#[test]
fn provider_function_in_module_instances_given_provider_instances() {
    let p = Peer::new(&[
        (
            "main.tf",
            r#"
provider "test" {
  for_each = { a = 1, b = 2 }
  alias    = "iter"
  region   = each.key
}
module "mod" {
  source   = "./mod"
  for_each = { a = 1, b = 2 }
  providers = {
    test = test.iter[each.key]
  }
}
"#,
        ),
        (
            "mod/main.tf",
            r#"
terraform {
  required_providers {
    test = { source = "hashicorp/test" }
  }
}
variable "arns" {
  type    = object({ arns = optional(list(string)) })
  default = { arns = ["arn:partition:service:region:account-id:resource-id"] }
  validation {
    condition     = alltrue([for arn in var.arns.arns : provider::test::is_arn(arn)])
    error_message = "All arns must be ARNs."
  }
}
"#,
        ),
    ]);
    let diags = terrace_engine::validate(&p.context());
    assert!(!has_errors(&diags), "{diags:#?}");
    let after_validate = p.ledger.function_calls.load(Ordering::SeqCst);
    assert!(after_validate > 0, "validate called the function");
    p.plan();
    assert!(
        p.ledger.function_calls.load(Ordering::SeqCst) > after_validate,
        "plan called the function"
    );
}

// ---------------------------------------------------------------------------
// Importing through a provider instance.

const IMPORT_CONFIG: &str = r#"
provider "test" {
  alias = "multi"
  for_each = {
    a = {}
    b = {}
  }
  region = each.key
}
resource "test_thing" "test" {
  for_each = { "foo" = "a" }
  provider = test.multi[each.value]
}
"#;

/// OpenTofu: `TestContextImport_multiInstanceProviderConfig`
/// (internal/tofu/context_import_test.go). Importing into an instance
/// whose provider key is dynamic imports and reads through the instance
/// the key selects, and records it.
#[test]
fn import_selects_the_provider_instance_of_the_resource_instance() {
    let p = Peer::new(&[("main.tf", IMPORT_CONFIG)]);
    let addr = resource_instance("test_thing.test[\"foo\"]");
    let (state, diags) = terrace_engine::import(
        &p.context(),
        &p.state,
        &[(addr.clone(), "fake-import-id".into())],
        &NoHooks,
    );
    assert!(!has_errors(&diags), "{diags:#?}");
    let resource = state
        .resource(&addr.containing_resource())
        .expect("imported resource");
    assert_eq!(resource.instances.len(), 1);
    assert_eq!(
        state.provider_instance(&addr).map(|i| i.to_string()),
        Some(instance_of("multi", "a"))
    );
    assert_eq!(
        state_attr(&state, "test_thing.test[\"foo\"]", "region").as_deref(),
        Some("a")
    );
    assert_eq!(p.ledger.events_of("import"), ["import fake-import-id @a"]);
    assert!(p
        .ledger
        .events_of("read")
        .iter()
        .all(|e| e == "read fake-import-id @a"));
    assert!(!p.ledger.events_of("read").is_empty());
}

/// OpenTofu: `TestContextImport_multiInstanceProviderIdentity`
/// (internal/tofu/context_import_test.go). An `import` block naming a
/// provider instance plans the import through it. OpenTofu's test
/// imports by resource identity, which terraform 1.11 does not have; the
/// port imports by `id`.
#[test]
fn import_block_naming_a_provider_instance_plans_through_it() {
    let text = format!(
        r#"{IMPORT_CONFIG}
import {{
  to       = test_thing.test["foo"]
  id       = "my-resource"
  provider = test.multi["a"]
}}
"#
    );
    let mut p = Peer::new(&[("main.tf", &text)]);
    let plan = p.plan();
    let change = plan
        .changes
        .iter()
        .find(|c| c.addr.to_string() == "test_thing.test[\"foo\"]")
        .expect("a change for the import");
    assert!(change.importing.is_some(), "{change:?}");
    assert_eq!(change.provider.to_string(), instance_of("multi", "a"));
    assert_eq!(p.ledger.events_of("import"), ["import my-resource @a"]);
    p.apply(&plan);
    assert_eq!(
        p.bound("test_thing.test[\"foo\"]"),
        Some(instance_of("multi", "a"))
    );
}

// ---------------------------------------------------------------------------
// Instance key values.

fn keyed_by(key_expr: &str) -> Peer {
    let mut p = Peer::new(&[(
        "main.tf",
        &format!(
            r#"
provider "test" {{
  alias    = "keyed"
  for_each = toset(["true", "false", "1"])
  region   = each.key
}}
resource "test_thing" "t" {{
  provider = test.keyed[{key_expr}]
  input    = "t"
}}
"#
        ),
    )]);
    p.apply_config();
    p
}

/// OpenTofu: `TestResolveProviderInstance_TypeConversion`, case
/// `bool_true_to_string` (internal/tofu/eval_provider_test.go).
#[test]
fn instance_key_true_converts_to_string() {
    let p = keyed_by("true");
    assert_eq!(p.bound("test_thing.t"), Some(instance_of("keyed", "true")));
    assert_eq!(p.ledger.events_of("create"), ["create t @true"]);
}

/// OpenTofu: `TestResolveProviderInstance_TypeConversion`, case
/// `bool_false_to_string` (internal/tofu/eval_provider_test.go).
#[test]
fn instance_key_false_converts_to_string() {
    let p = keyed_by("false");
    assert_eq!(p.bound("test_thing.t"), Some(instance_of("keyed", "false")));
    assert_eq!(p.ledger.events_of("create"), ["create t @false"]);
}

/// OpenTofu: `TestResolveProviderInstance_TypeConversion`, case
/// `integer_to_string` (internal/tofu/eval_provider_test.go).
#[test]
fn instance_key_number_converts_to_string() {
    let p = keyed_by("1");
    assert_eq!(p.bound("test_thing.t"), Some(instance_of("keyed", "1")));
    assert_eq!(p.ledger.events_of("create"), ["create t @1"]);
}

// ---------------------------------------------------------------------------
// Configuration rules.

/// The text of `files` a diagnostic's subject covers.
fn subject_text(files: &[(&str, &str)], d: &terrace_syntax::Diagnostic) -> String {
    let Some(s) = &d.subject else {
        return String::new();
    };
    let Some((_, text)) = files
        .iter()
        .find(|(name, _)| s.filename.ends_with(name) || name.ends_with(&s.filename))
    else {
        return String::new();
    };
    text.get(s.start.byte as usize..s.end.byte as usize)
        .unwrap_or_default()
        .to_string()
}

fn find<'a>(
    diags: &'a [terrace_syntax::Diagnostic],
    severity: Severity,
    summary: &str,
) -> Vec<&'a terrace_syntax::Diagnostic> {
    diags
        .iter()
        .filter(|d| d.severity == severity && d.summary == summary)
        .collect()
}

const DUMMY_REQUIREMENTS: &str = r#"
terraform {
  required_providers {
    dummy = { source = "my/dummy" }
  }
}
"#;

/// OpenTofu: `TestConfigProviderForEach`, its warning "Provider
/// configuration for_each matches resource"
/// (internal/configs/config_test.go).
#[test]
fn same_for_each_on_provider_and_resource_warns() {
    let main = r#"
locals { fe = {} }
provider "dummy" {
  alias    = "key"
  for_each = local.fe
}
resource "dummy_warning" "test" {
  for_each = local.fe
  provider = dummy.key[each.key]
}
"#;
    let files = [("versions.tf", DUMMY_REQUIREMENTS), ("main.tf", main)];
    let diags = config_diagnostics(&files);
    assert!(!has_errors(&diags), "{diags:#?}");
    let found = find(
        &diags,
        Severity::Warning,
        "Provider configuration for_each matches resource",
    );
    assert_eq!(found.len(), 1, "{diags:#?}");
    assert!(found[0].detail.starts_with("This provider configuration uses the same for_each expression as a resource, which means that subsequent removal of elements from this collection would cause a planning error."));
}

/// OpenTofu: `TestConfigProviderForEach`, its warning "Provider
/// configuration for_each matches module" (internal/configs/config_test.go).
#[test]
fn same_for_each_on_provider_and_module_call_warns() {
    let main = r#"
locals { fe = {} }
provider "dummy" {
  alias    = "key"
  for_each = local.fe
}
module "mod_warning" {
  source   = "./mod"
  for_each = local.fe
  providers = {
    dummy = dummy.key[each.key]
  }
}
"#;
    let files = [
        ("versions.tf", DUMMY_REQUIREMENTS),
        ("main.tf", main),
        ("mod/main.tf", DUMMY_REQUIREMENTS),
    ];
    let diags = config_diagnostics(&files);
    assert!(!has_errors(&diags), "{diags:#?}");
    let found = find(
        &diags,
        Severity::Warning,
        "Provider configuration for_each matches module",
    );
    assert_eq!(found.len(), 1, "{diags:#?}");
    assert!(found[0].detail.starts_with("This provider configuration uses the same for_each expression as a module, which means that subsequent removal of elements from this collection would cause a planning error."));
}

/// OpenTofu: `TestConfigProviderForEach`, its error "Invalid resource
/// provider configuration" (internal/configs/config_test.go): an instance
/// key on a configuration the module does not declare.
#[test]
fn resource_key_on_an_undeclared_configuration_is_refused() {
    let main = r#"
locals { fe = {} }
provider "dummy" {
  alias    = "key"
  for_each = local.fe
}
resource "dummy_error" "test" {
  for_each = local.fe
  provider = dumme.key[each.key]
}
"#;
    let files = [("versions.tf", DUMMY_REQUIREMENTS), ("main.tf", main)];
    let diags = config_diagnostics(&files);
    let found = find(
        &diags,
        Severity::Error,
        "Invalid resource provider configuration",
    );
    assert_eq!(found.len(), 1, "{diags:#?}");
    assert!(found[0].detail.starts_with(
        "This module doesn't declare a provider \"dumme\" block with alias = \"key\", which is required for use with for_each"
    ));
}

/// OpenTofu: `TestConfigProviderForEach`, its error "Invalid module
/// provider configuration" (internal/configs/config_test.go).
#[test]
fn module_key_on_an_undeclared_configuration_is_refused() {
    let main = r#"
locals { fe = {} }
provider "dummy" {
  alias    = "key"
  for_each = local.fe
}
module "mod_error" {
  source   = "./mod"
  for_each = local.fe
  providers = {
    dummy = dumme.key[each.key]
  }
}
"#;
    let files = [
        ("versions.tf", DUMMY_REQUIREMENTS),
        ("main.tf", main),
        ("mod/main.tf", DUMMY_REQUIREMENTS),
    ];
    let diags = config_diagnostics(&files);
    let found = find(
        &diags,
        Severity::Error,
        "Invalid module provider configuration",
    );
    assert_eq!(found.len(), 1, "{diags:#?}");
    assert!(found[0].detail.starts_with(
        "This module doesn't declare a provider \"dumme\" block with alias = \"key\", which is required for use with for_each"
    ));
}

/// OpenTofu: `TestConfigProviderFromJSON` (internal/configs/config_test.go).
/// Provider `for_each` and an instance key in a resource's `provider`
/// written in JSON syntax: no diagnostics, one requirement, and the
/// instances bind as in native syntax.
#[test]
fn provider_for_each_in_json_syntax() {
    let json = r#"{
  "locals": { "instances": { "x": "first", "y": "second" } },
  "provider": {
    "test": { "alias": "blah", "for_each": "${local.instances}", "region": "${each.value}" }
  },
  "resource": {
    "test_thing": {
      "t": { "for_each": "${local.instances}", "provider": "test.blah[each.key]", "input": "${each.key}" }
    }
  }
}"#;
    let files = [("main.tf.json", json)];
    let diags = config_diagnostics(&files);
    assert!(diags.is_empty(), "{diags:#?}");
    let mut p = Peer::new(&files);
    let (reqs, d) =
        terrace_config::provider_validation::provider_requirements(&p.context().config, &[]);
    assert!(d.is_empty(), "{d:#?}");
    let types: Vec<String> = reqs
        .provider_types()
        .iter()
        .map(|t| t.to_string())
        .collect();
    assert_eq!(types, [TEST_ADDR]);
    p.apply_config();
    assert_eq!(
        p.bound("test_thing.t[\"x\"]"),
        Some(instance_of("blah", "x"))
    );
    assert_eq!(
        p.bound("test_thing.t[\"y\"]"),
        Some(instance_of("blah", "y"))
    );
    assert_eq!(
        p.ledger.events_of("create"),
        ["create x @first", "create y @second"]
    );
}

/// The "too similar" check on one provider and resource pair written with
/// `provider_for_each` and `resource_for_each`: the warnings it gives, with
/// the text their subject covers.
fn similarity(provider_for_each: &str, resource_for_each: &str) -> Vec<(String, String)> {
    let main = format!(
        r#"
locals {{
  stuff = toset([])
  bval  = true
  i     = 1
}}
provider "test" {{
  for_each = {provider_for_each}
  alias    = "p"
}}
resource "test_thing" "r" {{
  for_each = {resource_for_each}
  provider = test.p[each.key]
}}
"#
    );
    let files = [("main.tf", main.as_str())];
    let diags = config_diagnostics(&files);
    assert!(!has_errors(&diags), "{diags:#?}");
    diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| (d.summary.clone(), subject_text(&files, d)))
        .collect()
}

/// The warning, placed on the resource's `for_each` expression.
fn warned_at(subject: &str) -> Vec<(String, String)> {
    vec![(
        "Provider configuration for_each matches resource".to_string(),
        subject.to_string(),
    )]
}

/// OpenTofu: `TestBuildConfigDiags`, case `provider-foreach`, its block
/// `plain` (internal/configs/config_build_test.go): the same constant map
/// is not "too similar" (no reference).
#[test]
fn similar_for_each_constant_map_does_not_warn() {
    assert!(similarity(r#"{"foo": "bar"}"#, r#"{"foo": "bar"}"#).is_empty());
}

/// OpenTofu: `TestBuildConfigDiags`, case `provider-foreach`, its block
/// `toset` (internal/configs/config_build_test.go): a constant function
/// call is not "too similar".
#[test]
fn similar_for_each_constant_call_does_not_warn() {
    assert!(similarity(r#"toset(["foo", "bar"])"#, r#"toset(["foo", "bar"])"#).is_empty());
}

/// OpenTofu: `TestBuildConfigDiags`, case `provider-foreach`, its block
/// `value` (internal/configs/config_build_test.go).
#[test]
fn similar_for_each_same_reference_warns() {
    assert_eq!(
        similarity("local.stuff", "local.stuff"),
        warned_at("local.stuff")
    );
}

/// OpenTofu: `TestBuildConfigDiags`, case `provider-foreach`, its block
/// `parens` (internal/configs/config_build_test.go): parentheses on one
/// side do not hide the match.
#[test]
fn similar_for_each_parenthesised_reference_warns() {
    assert_eq!(
        similarity("local.stuff", "(local.stuff)"),
        warned_at("(local.stuff)")
    );
}

/// OpenTofu: `TestBuildConfigDiags`, case `provider-foreach`, its block
/// `cond` (internal/configs/config_build_test.go).
#[test]
fn similar_for_each_conditional_warns() {
    let e = r#"local.bval ? {"foo": "bar"} : {}"#;
    assert_eq!(similarity(e, e), warned_at(e));
}

/// OpenTofu: `TestBuildConfigDiags`, case `provider-foreach`, its block
/// `op` (internal/configs/config_build_test.go): an object constructor
/// holding binary and unary operations.
#[test]
fn similar_for_each_operations_warn() {
    let e = r#"{"foo": local.i + -2}"#;
    assert_eq!(similarity(e, e), warned_at(e));
}

/// OpenTofu: `TestBuildConfigDiags`, case `provider-foreach`, its block
/// `for` (internal/configs/config_build_test.go).
#[test]
fn similar_for_each_for_expression_warns() {
    let e = "{for s in local.stuff : s => upper(s)}";
    assert_eq!(similarity(e, e), warned_at(e));
}

// ---------------------------------------------------------------------------
// Repeated module calls and provider configurations inside them.

const LEGACY_CHILD: &str = r#"
provider "test" {
  region = "inside"
}
output "my_output" { value = "my output" }
"#;

/// The "Module is incompatible with count, for_each, enabled and
/// depends_on" errors of calling `./child` (which has its own provider
/// block when `legacy`) with `meta`.
fn legacy_call(meta: &str, legacy: bool) -> Vec<terrace_syntax::Diagnostic> {
    let main = format!(
        r#"
resource "test_thing" "dep" {{}}
module "child" {{
  source = "./child"
  {meta}
}}
"#
    );
    let child = if legacy {
        LEGACY_CHILD
    } else {
        "output \"my_output\" { value = \"my output\" }\n"
    };
    let diags = config_diagnostics(&[("main.tf", &main), ("child/main.tf", child)]);
    diags
        .into_iter()
        .filter(|d| {
            d.summary == "Module is incompatible with count, for_each, enabled and depends_on"
        })
        .collect()
}

fn assert_legacy_refused(meta: &str, at: &str) {
    let found = legacy_call(meta, true);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].is_error());
    assert!(
        found[0]
            .detail
            .starts_with("The module at module.child is a legacy module which contains its own local provider configurations, and so calls to it may not use the count, for_each, enabled or depends_on arguments."),
        "{}",
        found[0].detail
    );
    let main = format!(
        "\nresource \"test_thing\" \"dep\" {{}}\nmodule \"child\" {{\n  source = \"./child\"\n  {meta}\n}}\n"
    );
    assert_eq!(subject_text(&[("main.tf", &main)], &found[0]), at);
}

/// OpenTofu: `TestValidateProviderConfigs_WithMetaArguments`, case `count`
/// (internal/configs/provider_validation_test.go).
#[test]
fn legacy_module_called_with_count_is_refused() {
    assert_legacy_refused("count = 1", "1");
}

/// OpenTofu: `TestValidateProviderConfigs_WithMetaArguments`, case
/// `for_each` (internal/configs/provider_validation_test.go).
#[test]
fn legacy_module_called_with_for_each_is_refused() {
    assert_legacy_refused("for_each = toset([\"a\"])", "toset([\"a\"])");
}

/// OpenTofu: `TestValidateProviderConfigs_WithMetaArguments`, case
/// `depends_on` (internal/configs/provider_validation_test.go).
#[test]
fn legacy_module_called_with_depends_on_is_refused() {
    assert_legacy_refused("depends_on = [test_thing.dep]", "test_thing.dep");
}

/// OpenTofu: `TestValidateProviderConfigs_WithMetaArguments`, case
/// `enabled` (internal/configs/provider_validation_test.go).
#[test]
fn legacy_module_called_with_enabled_is_refused() {
    assert_legacy_refused("lifecycle {\n    enabled = true\n  }", "true");
}

/// OpenTofu: `TestValidateProviderConfigs_WithMetaArguments`, case `no
/// meta-arguments` (internal/configs/provider_validation_test.go).
#[test]
fn legacy_module_called_without_repetition_is_allowed() {
    assert!(legacy_call("", true).is_empty());
}

/// OpenTofu: `TestValidateProviderConfigs_WithMetaArguments`, case `count
/// without child provider config`
/// (internal/configs/provider_validation_test.go).
#[test]
fn module_without_provider_configuration_called_with_count_is_allowed() {
    assert!(legacy_call("count = 1", false).is_empty());
}

/// OpenTofu: `TestBuildConfigDiags`, case `nested-provider`
/// (internal/configs/config_build_test.go): the provider block is two
/// levels down, the `count` on the top call.
#[test]
fn legacy_grandchild_under_a_counted_call_is_refused() {
    let main = "module \"child\" {\n  count  = 1\n  source = \"./child\"\n}\n";
    let files = [
        ("main.tf", main),
        (
            "child/main.tf",
            "module \"child2\" {\n  source = \"./child2\"\n}\n",
        ),
        ("child/child2/main.tf", LEGACY_CHILD),
    ];
    let diags = config_diagnostics(&files);
    let found = find(
        &diags,
        Severity::Error,
        "Module is incompatible with count, for_each, enabled and depends_on",
    );
    assert_eq!(found.len(), 1, "{diags:#?}");
    assert!(found[0].detail.starts_with("The module at module.child.module.child2 is a legacy module which contains its own local provider configurations, and so calls to it may not use the count, for_each, enabled or depends_on arguments."));
    assert_eq!(subject_text(&files, found[0]), "1");
    assert_eq!(found[0].subject.as_ref().map(|s| s.start.line), Some(2));
}

/// OpenTofu: `TestParserLoadConfigDirSuccess` / `TestParserLoadConfigFileSuccess`
/// over `valid-files/provider-configs.tf` (internal/configs/parser_config_dir_test.go,
/// parser_config_test.go): provider blocks with and without alias, and one
/// with alias and a `for_each` map, load without diagnostics.
#[test]
fn provider_blocks_with_alias_and_for_each_load() {
    let main = r#"
provider "test" {
}
provider "test" {
  region = "12"
  alias  = "bar"
}
provider "test" {
  alias    = "foo"
  for_each = { "a" : "first", "b" : "second" }
  region   = each.value
}
"#;
    let diags = config_diagnostics(&[("main.tf", main)]);
    assert!(diags.is_empty(), "{diags:#?}");
}

// ---------------------------------------------------------------------------
// Rules OpenTofu states in its source without a test of their own
// (internal/configs/provider.go, internal/configs/resource.go
// `InstanceValidation`, internal/configs/provider_validation.go,
// internal/tofu/eval_provider.go `resolveProviderInstance`,
// internal/tofu/node_resource_abstract_instance.go). Ported from the
// rule, with OpenTofu's summaries.

/// The errors of a configuration, with the text each subject covers.
fn config_errors(files: &[(&str, &str)]) -> Vec<(String, String, String)> {
    config_diagnostics(files)
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.summary.clone(), d.detail.clone(), subject_text(files, d)))
        .collect()
}

const KEYED: &str = r#"
provider "test" {
  alias    = "keyed"
  for_each = toset(["a"])
  region   = each.key
}
provider "test" {
  alias  = "single"
  region = "single"
}
"#;

/// OpenTofu: no test; the rule in internal/configs/provider.go `decodeProviderBlock`.
/// `for_each` is for aliased configurations only.
#[test]
fn provider_for_each_without_alias_is_refused() {
    let main = "provider \"test\" {\n  for_each = toset([\"a\"])\n}\n";
    let errors = config_errors(&[("main.tf", main)]);
    assert_eq!(
        errors,
        [(
            "Alias required when using \"for_each\"".to_string(),
            "The for_each argument is allowed only for provider configurations with an alias."
                .to_string(),
            "toset([\"a\"])".to_string()
        )]
    );
}

/// OpenTofu: no test; the rule in internal/configs/provider_validation.go `validateProviderConfigs`.
/// The left side of a `providers` entry names the child's configuration,
/// which has no instances.
#[test]
fn instance_key_on_the_left_side_of_providers_is_refused() {
    let main = format!(
        "{KEYED}\nmodule \"m\" {{\n  source = \"./m\"\n  providers = {{\n    test.inner[\"a\"] = test.keyed[\"a\"]\n  }}\n}}\n"
    );
    let child = "terraform {\n  required_providers {\n    test = {\n      source                = \"hashicorp/test\"\n      configuration_aliases = [test.inner]\n    }\n  }\n}\n";
    let errors = config_errors(&[("main.tf", &main), ("m/main.tf", child)]);
    assert!(
        errors.contains(&(
            "Invalid module provider configuration".to_string(),
            "Instance keys are not allowed on the left side of a provider configuration assignment.".to_string(),
            "test.inner[\"a\"]".to_string()
        )),
        "{errors:#?}"
    );
}

/// OpenTofu: no test; the rule in internal/configs/resource.go `decodeProviderConfigRef`.
/// A constant key straight after the provider name is not a reference.
#[test]
fn constant_instance_key_on_a_default_configuration_is_refused() {
    let main = format!("{KEYED}\nresource \"test_thing\" \"t\" {{\n  provider = test[\"a\"]\n}}\n");
    let errors = config_errors(&[("main.tf", &main)]);
    assert_eq!(
        errors,
        [(
            "Invalid provider configuration reference".to_string(),
            "Provider name must either stand alone or be followed by a period and then a configuration alias.".to_string(),
            "[\"a\"]".to_string()
        )]
    );
}

/// OpenTofu: no test; the rule in internal/configs/resource.go `decodeProviderConfigRef`.
/// A computed key needs an aliased configuration.
#[test]
fn instance_key_on_a_default_configuration_is_refused() {
    let main = format!(
        "{KEYED}\nlocals {{ k = \"a\" }}\nresource \"test_thing\" \"t\" {{\n  provider = test[local.k]\n}}\n"
    );
    let errors = config_errors(&[("main.tf", &main)]);
    assert_eq!(
        errors,
        [(
            "Invalid provider configuration reference".to_string(),
            "Provider assignment requires an alias when specifying an instance key, in the form of provider.name[instance_key]".to_string(),
            "test".to_string()
        )]
    );
}

/// OpenTofu: no test; the rule in internal/configs/resource.go `InstanceValidation`.
/// An instance key needs a configuration with `for_each`.
#[test]
fn instance_key_on_a_single_instance_configuration_is_refused() {
    // Data sources are checked as resources; a constant key's range is
    // the whole reference.
    let main =
        format!("{KEYED}\ndata \"test_data\" \"d\" {{\n  provider = test.single[\"a\"]\n}}\n");
    let errors = config_errors(&[("main.tf", &main)]);
    assert_eq!(
        errors,
        [(
            "Invalid resource provider configuration".to_string(),
            "An instance key can be specified only for a provider configuration that uses for_each.".to_string(),
            "test.single[\"a\"]".to_string()
        )]
    );
}

/// OpenTofu: no test; the rule in internal/configs/resource.go `InstanceValidation`.
/// A configuration with `for_each` needs a key where it is used.
#[test]
fn resource_without_key_on_a_for_each_configuration_is_refused() {
    let main = format!("{KEYED}\nresource \"test_thing\" \"t\" {{\n  provider = test.keyed\n}}\n");
    let errors = config_errors(&[("main.tf", &main)]);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].0, "Invalid resource provider configuration");
    assert!(errors[0].1.starts_with(
        "A reference to a provider configuration which uses for_each requires an instance key."
    ));
}

/// OpenTofu: no test; the rule in internal/configs/resource.go `InstanceValidation`.
/// A module cannot be passed a whole collection of provider instances.
#[test]
fn module_given_a_for_each_configuration_without_key_is_refused() {
    let main = format!(
        "{KEYED}\nmodule \"m\" {{\n  source = \"./m\"\n  providers = {{\n    test = test.keyed\n  }}\n}}\n"
    );
    let errors = config_errors(&[("main.tf", &main), ("m/main.tf", "")]);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].0, "Invalid module provider configuration");
    assert_eq!(
        errors[0].1,
        "A reference to a provider configuration which uses for_each requires an instance key. Passing a collection of provider instances into a child module is not allowed."
    );
}

/// Planning a resource whose key expression is `key_expr`, given the
/// variable declarations `variables`: the errors.
fn key_errors(variables: &str, key_expr: &str) -> Vec<(String, String, String)> {
    let main = format!(
        "{variables}\n{KEYED}\nresource \"test_thing\" \"t\" {{\n  provider = test.keyed[{key_expr}]\n}}\n"
    );
    let p = Peer::new(&[("main.tf", &main)]);
    let (_, diags) = p.try_plan(&PlanOptions::default());
    diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            (
                d.summary.clone(),
                d.detail.clone(),
                subject_text(&[("main.tf", &main)], d),
            )
        })
        .collect()
}

fn key_refused(detail: &str, at: &str) -> Vec<(String, String, String)> {
    vec![(
        "Invalid provider instance key".to_string(),
        detail.to_string(),
        at.to_string(),
    )]
}

/// OpenTofu: no test; the rule in internal/tofu/eval_provider.go `resolveProviderInstance`.
/// A key is recorded in the state, so it may not be sensitive.
#[test]
fn sensitive_instance_key_is_refused() {
    assert_eq!(
        key_errors("", "sensitive(\"a\")"),
        key_refused(
            "A provider instance key must not be derived from a sensitive value.",
            "sensitive(\"a\")"
        )
    );
}

/// OpenTofu: no test; the rule in internal/tofu/eval_provider.go `resolveProviderInstance`.
/// Nor ephemeral.
#[test]
fn ephemeral_instance_key_is_refused() {
    let variables =
        "variable \"k\" {\n  type      = string\n  default   = \"a\"\n  ephemeral = true\n}\n";
    assert_eq!(
        key_errors(variables, "var.k"),
        key_refused(
            "A provider instance key must not be derived from an ephemeral value.",
            "var.k"
        )
    );
}

/// OpenTofu: no test; the rule in internal/tofu/eval_provider.go `resolveProviderInstance`.
/// Nor null.
#[test]
fn null_instance_key_is_refused() {
    let variables = "variable \"k\" {\n  type    = string\n  default = null\n}\n";
    assert_eq!(
        key_errors(variables, "var.k"),
        key_refused("A provider instance key must not be null.", "var.k")
    );
}

/// OpenTofu: no test; the rule in internal/tofu/eval_provider.go `resolveProviderInstance`.
/// Nor unknown while planning.
#[test]
fn unknown_instance_key_is_refused() {
    let main = format!(
        "{KEYED}\nresource \"test_thing\" \"first\" {{\n  provider = test.keyed[\"a\"]\n}}\nresource \"test_thing\" \"t\" {{\n  provider = test.keyed[test_thing.first.id]\n}}\n"
    );
    let p = Peer::new(&[("main.tf", &main)]);
    let (_, diags) = p.try_plan(&PlanOptions::default());
    let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].summary, "Invalid provider instance key");
    assert_eq!(
        errors[0].detail,
        "The provider instance key for test_thing.t depends on values that cannot be determined until apply, and so terrace cannot select a provider instance to create a plan for this resource instance."
    );
    assert_eq!(
        subject_text(&[("main.tf", &main)], errors[0]),
        "test_thing.first.id"
    );
}

/// OpenTofu: no test; the rule in internal/tofu/eval_provider.go `resolveProviderInstance`.
/// And it must convert to a string.
#[test]
fn unsuitable_instance_key_is_refused() {
    let errors = key_errors("", "[\"a\"]");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].0, "Invalid provider instance key");
    assert!(
        errors[0]
            .1
            .starts_with("The given instance key is unsuitable: "),
        "{}",
        errors[0].1
    );
    assert_eq!(errors[0].2, "[\"a\"]");
}

/// OpenTofu: no test; the rule in internal/tofu/node_resource_abstract_instance.go `resolveProvider`.
/// A deposed object needs the provider instance that created it; when
/// that element of the provider's `for_each` is gone, the deposed wording
/// of "Provider instance not present".
#[test]
fn deposed_object_of_a_removed_provider_instance_is_refused() {
    let mut p = Peer::new(&[(
        "main.tf",
        r#"
provider "test" {
  alias    = "for_eached"
  for_each = { a = {} }
  region   = each.key
}
resource "test_thing" "x" {
  input    = "ok"
  provider = test.for_eached["a"]
}
"#,
    )]);
    let v = p.ledger.seed("deposed-1", "deposed", "b");
    p.state.set_deposed(
        &resource_instance("test_thing.x"),
        DeposedKey("00000001".into()),
        provider_config(&format!("provider[\"{TEST_ADDR}\"].for_eached")),
        InstanceKey::string("b"),
        Some(object(&v, ObjectStatus::Tainted)),
    );
    let errors = p.plan_errors();
    let want = format!("To work with test_thing.x's deposed object 00000001 its original provider instance at {} is required, but it has been removed. This occurs when an element is removed from the provider configuration's for_each collection while objects created by that the associated provider instance still exist in the state. Re-add the for_each element to destroy this deposed object for test_thing.x, after which you can remove the provider configuration again.", instance_of("for_eached", "b"));
    assert!(
        errors
            .iter()
            .any(|d| d.summary == "Provider instance not present" && d.detail == want),
        "{errors:#?}"
    );
}

/// OpenTofu: no test; the rule in internal/tofu/node_resource_abstract_instance.go `resolveProvider`.
/// As above, for a deposed object of the single instance a configuration
/// had before it got `for_each`.
#[test]
fn deposed_object_of_the_single_instance_is_refused_after_adding_for_each() {
    let mut p = Peer::new(&[(
        "main.tf",
        r#"
provider "test" {
  alias    = "multi"
  for_each = toset(["a"])
  region   = each.key
}
resource "test_thing" "x" {
  input    = "ok"
  provider = test.multi["a"]
}
"#,
    )]);
    let v = p.ledger.seed("deposed-1", "deposed", "single");
    p.state.set_deposed(
        &resource_instance("test_thing.x"),
        DeposedKey("00000001".into()),
        provider_config(&format!("provider[\"{TEST_ADDR}\"].multi")),
        InstanceKey::None,
        Some(object(&v, ObjectStatus::Tainted)),
    );
    let errors = p.plan_errors();
    let config = format!("provider[\"{TEST_ADDR}\"].multi");
    let want = format!("To work with test_thing.x's deposed object 00000001 its original provider instance at {config} is required, but it has been removed. This suggests that you've added for_each to this provider configuration while there are existing deposed objects of test_thing.x that need to be destroyed by the original single-instance provider configuration.\n\nTo proceed, return to your previous single-instance configuration for {config} and ensure that all deposed instances of test_thing.x have been destroyed before using for_each with this provider.");
    assert!(
        errors
            .iter()
            .any(|d| d.summary == "Provider instance not present" && d.detail == want),
        "{errors:#?}"
    );
}

/// OpenTofu: no test; the rule in internal/tofu/node_resource_abstract_instance.go `resolveProvider`.
/// An orphaned instance with only a deposed object left, bound to a
/// removed provider instance, is reported with the deposed wording; one
/// with both objects reports each.
#[test]
fn orphaned_objects_of_a_removed_provider_instance_report_each_object() {
    let main = r#"
provider "test" {
  alias    = "for_eached"
  for_each = { a = {} }
  region   = each.key
}
"#;
    let mut p = Peer::new(&[("main.tf", main)]);
    let config = provider_config(&format!("provider[\"{TEST_ADDR}\"].for_eached"));
    let old = p.ledger.seed("old", "old", "b");
    let cur = p.ledger.seed("cur", "cur", "b");
    p.state.set_deposed(
        &resource_instance("test_thing.gone[\"only-deposed\"]"),
        DeposedKey("0000000a".into()),
        config.clone(),
        InstanceKey::string("b"),
        Some(object(&old, ObjectStatus::Tainted)),
    );
    let both = resource_instance("test_thing.gone[\"both\"]");
    p.state.set_current(
        &both,
        config.clone(),
        InstanceKey::string("b"),
        Some(object(&cur, ObjectStatus::Ready)),
    );
    p.state.set_deposed(
        &both,
        DeposedKey("0000000b".into()),
        config,
        InstanceKey::string("b"),
        Some(object(&old, ObjectStatus::Tainted)),
    );
    let errors = p.plan_errors();
    let mut openings: Vec<String> = errors
        .iter()
        .filter(|d| d.summary == "Provider instance not present")
        .map(|d| {
            d.detail
                .split(" its original")
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    openings.sort();
    assert_eq!(
        openings,
        [
            "To work with test_thing.gone[\"both\"]",
            "To work with test_thing.gone[\"both\"]'s deposed object 0000000b",
            "To work with test_thing.gone[\"only-deposed\"]'s deposed object 0000000a",
        ],
        "{errors:#?}"
    );
}

// ---------------------------------------------------------------------------
// Provider instance addresses, as the state records them.

/// OpenTofu: `TestParseAbsProviderConfigInstances`
/// (internal/addrs/provider_config_test.go), all fourteen of its cases:
/// the instance key after an alias, and what may not be written. OpenTofu's
/// registry host reads as the shared default registry.
#[test]
fn provider_instance_addresses_parse() {
    let good: &[(&str, &str)] = &[
        (
            r#"provider["registry.opentofu.org/hashicorp/aws"]"#,
            r#"provider["registry.terraform.io/hashicorp/aws"]"#,
        ),
        (
            r#"provider["registry.opentofu.org/hashicorp/aws"].foo"#,
            r#"provider["registry.terraform.io/hashicorp/aws"].foo"#,
        ),
        (
            r#"module.baz.provider["registry.opentofu.org/hashicorp/aws"]"#,
            r#"module.baz.provider["registry.terraform.io/hashicorp/aws"]"#,
        ),
        (
            r#"module.baz.provider["registry.opentofu.org/hashicorp/aws"].foo"#,
            r#"module.baz.provider["registry.terraform.io/hashicorp/aws"].foo"#,
        ),
        (
            r#"module.baz.provider["registry.opentofu.org/hashicorp/aws"].foo["keystr"]"#,
            r#"module.baz.provider["registry.terraform.io/hashicorp/aws"].foo["keystr"]"#,
        ),
    ];
    for (text, shown) in good {
        let parsed = terrace_addrs::AbsProviderInstance::parse_str(text)
            .unwrap_or_else(|d| panic!("{text}: {d:#?}"));
        assert_eq!(parsed.to_string(), *shown);
        let keyed = text.ends_with("[\"keystr\"]");
        assert_eq!(parsed.key.is_none(), !keyed, "{text}");
    }
    let in_repeated_module = "A provider configuration must not appear in a module instance that uses count or for_each.";
    let no_prefix =
        "Provider address must begin with \"provider.\", followed by a provider type name.";
    let bad: &[(&str, &str)] = &[
        (
            r#"module.baz["foo"].provider["registry.opentofu.org/hashicorp/aws"]"#,
            in_repeated_module,
        ),
        (
            r#"module.baz[1].provider["registry.opentofu.org/hashicorp/aws"]"#,
            in_repeated_module,
        ),
        (
            r#"module.baz[1].module.bar.provider["registry.opentofu.org/hashicorp/aws"]"#,
            in_repeated_module,
        ),
        ("aws", no_prefix),
        ("aws.foo", no_prefix),
        ("provider", no_prefix),
        (
            r#"provider.aws.foo["bar"].baz"#,
            "Extraneous operators after provider configuration reference.",
        ),
        (
            r#"provider["aws"]["foo"]"#,
            "Provider type name must be followed by a configuration alias name.",
        ),
        ("module.foo", no_prefix),
        (
            "provider[0]",
            "The prefix \"provider.\" must be followed by a provider type name.",
        ),
    ];
    for (text, detail) in bad {
        match terrace_addrs::AbsProviderInstance::parse_str(text) {
            Ok(v) => panic!("{text} parsed as {v}"),
            Err(diags) => {
                assert_eq!(diags.len(), 1, "{text}: {diags:#?}");
                assert_eq!(diags[0].detail, *detail, "{text}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The state file form of provider instances (OpenTofu's
// internal/states/statefile/version4.go, which has no test of its own for
// these rules).

/// OpenTofu: no test; the rule in internal/states/statefile/version4.go `writeStateV4`.
/// A resource whose instances select keyed provider instances records the
/// provider on each instance; one bound to a single-instance configuration
/// keeps the resource-level field older readers understand.
#[test]
fn state_file_records_keyed_provider_instances_per_instance() {
    let main = r#"
provider "test" {
  alias    = "keyed"
  for_each = toset(["a", "b"])
  region   = each.key
}
provider "test" {
  region = "plain"
}
resource "test_thing" "keyed" {
  for_each = toset(["a", "b"])
  provider = test.keyed[each.key]
}
resource "test_thing" "plain" {}
"#;
    let mut p = Peer::new(&[("main.tf", main)]);
    p.apply_config();
    let bytes = terrace_states::statefile::write(&p.state);
    let json: serde_json::Value = serde_json::from_slice(&bytes).expect("state JSON");
    let resources = json["resources"].as_array().expect("resources");
    let by_name = |name: &str| {
        resources
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("no resource {name}"))
    };
    let keyed = by_name("keyed");
    assert!(keyed.get("provider").is_none(), "{keyed}");
    let mut per_instance: Vec<String> = keyed["instances"]
        .as_array()
        .expect("instances")
        .iter()
        .map(|i| i["provider"].as_str().unwrap_or_default().to_string())
        .collect();
    per_instance.sort();
    assert_eq!(
        per_instance,
        [instance_of("keyed", "a"), instance_of("keyed", "b")]
    );
    let plain = by_name("plain");
    assert_eq!(plain["provider"], format!("provider[\"{TEST_ADDR}\"]"));
    assert!(plain["instances"][0].get("provider").is_none(), "{plain}");
    p.round_trip_state();
    assert_eq!(
        p.bound("test_thing.keyed[\"b\"]"),
        Some(instance_of("keyed", "b"))
    );
    assert!(actions(&p.plan()).is_empty());
}

/// OpenTofu: no test; the rule in internal/states/statefile/version4.go `readStateV4`.
/// Reading a state file: instances of one resource must name one provider
/// configuration ("Provider instance field conflict in state"); a provider
/// on both the resource and an instance is a warning, the instance's
/// winning ("Provider field conflict in state").
#[test]
fn state_file_provider_instance_fields_are_checked_on_read() {
    let state = |resource_provider: &str, second: &str| {
        format!(
            r#"{{
  "version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "peer",
  "outputs": {{}},
  "resources": [{{
    "mode": "managed", "type": "test_thing", "name": "t",{resource_provider}
    "instances": [
      {{ "index_key": "a", "provider": "provider[\"{TEST_ADDR}\"].one[\"a\"]", "schema_version": 0, "attributes": {{ "id": "x" }} }},
      {{ "index_key": "b", "provider": "{second}", "schema_version": 0, "attributes": {{ "id": "y" }} }}
    ]
  }}],
  "check_results": null
}}"#
        )
    };
    let other = format!("provider[\\\"{TEST_ADDR}\\\"].two[\\\"b\\\"]");
    match terrace_states::statefile::read(state("", &other).as_bytes()) {
        Ok((_, diags)) => assert!(
            diags
                .iter()
                .any(|d| d.is_error() && d.summary == "Provider instance field conflict in state"),
            "{diags:#?}"
        ),
        Err(diags) => assert!(
            diags
                .iter()
                .any(|d| d.summary == "Provider instance field conflict in state"),
            "{diags:#?}"
        ),
    }
    let same = format!("provider[\\\"{TEST_ADDR}\\\"].one[\\\"b\\\"]");
    let both = format!(" \"provider\": \"provider[\\\"{TEST_ADDR}\\\"].one\",");
    let (read, diags) = terrace_states::statefile::read(state(&both, &same).as_bytes())
        .unwrap_or_else(|d| panic!("{d:#?}"));
    let warnings: Vec<_> = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.summary.as_str())
        .collect();
    assert!(
        warnings.contains(&"Provider field conflict in state"),
        "{diags:#?}"
    );
    assert!(!has_errors(&diags), "{diags:#?}");
    let bound = read
        .provider_instance(&resource_instance("test_thing.t[\"b\"]"))
        .map(|p| p.to_string());
    assert_eq!(bound, Some(instance_of("one", "b")));
}
