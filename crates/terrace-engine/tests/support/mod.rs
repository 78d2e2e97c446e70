//! A fake provider (`hashicorp/fake`) keeping its objects in memory, and a
//! harness that loads a configuration from text and runs the engine's
//! walks against it.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use terrace_config::input_variables::InputValues;
use terrace_config::loader::{Config, LoadOptions};
use terrace_engine::{Context, NoHooks, PlanOptions, ProviderFactory};
use terrace_plans::model::{Action, Plan, PlanMode};
use terrace_providers::*;
use terrace_states::model::State;
use terrace_syntax::diagnostic::has_errors;
use terrace_value::{Type, Value};

/// What the fake cloud holds: objects by id, with the region of the
/// provider instance that created them.
#[derive(Default)]
pub struct Cloud {
    pub objects: Mutex<BTreeMap<String, Value>>,
    pub next: AtomicU64,
    /// Regions of every configured provider instance, in order.
    pub configured: Mutex<Vec<String>>,
    pub closed: AtomicU64,
    pub started: AtomicU64,
    /// CallFunction requests.
    pub function_calls: AtomicU64,
    /// Provider::stop calls.
    pub stopped: AtomicU64,
    /// Planned `input` values whose next apply fails halfway: a create
    /// leaves a partial object, an update leaves `input` changed but
    /// `output` as it was.
    pub fail_once: Mutex<std::collections::HashSet<String>>,
    /// How long each apply takes.
    pub apply_delay: Mutex<Option<std::time::Duration>>,
    /// Resources the provider was asked to create or update, in order.
    pub applied: Mutex<Vec<String>>,
}

/// A `region` that makes the fake provider panic in `ConfigureProvider`,
/// and `input` values that make it panic while planning or applying: a
/// provider (or engine code) that panics must end the run with an error,
/// not hang it or take the process down.
pub const PANIC_DURING_CONFIGURE: &str = "panic-during-configure";
pub const PANIC_DURING_PLAN: &str = "panic-during-plan";
pub const PANIC_DURING_APPLY: &str = "panic-during-apply";

pub struct Fake {
    cloud: Arc<Cloud>,
    region: Mutex<Option<String>>,
}

fn attr(ty: Type, required: bool, optional: bool, computed: bool) -> Attribute {
    Attribute {
        required,
        optional,
        computed,
        ..Attribute::new(ty)
    }
}

pub fn fake_schema() -> ProviderSchema {
    let mut thing = Block::default();
    thing
        .attributes
        .insert("id".into(), attr(Type::String, false, false, true));
    thing
        .attributes
        .insert("input".into(), attr(Type::String, false, true, false));
    thing
        .attributes
        .insert("output".into(), attr(Type::String, false, false, true));
    thing
        .attributes
        .insert("replace_me".into(), attr(Type::String, false, true, false));
    thing
        .attributes
        .insert("region".into(), attr(Type::String, false, false, true));
    thing.attributes.insert(
        "secret".into(),
        Attribute {
            sensitive: true,
            ..attr(Type::String, false, true, false)
        },
    );
    let mut data = Block::default();
    data.attributes
        .insert("input".into(), attr(Type::String, true, false, false));
    data.attributes
        .insert("result".into(), attr(Type::String, false, false, true));
    let mut provider = Block::default();
    provider
        .attributes
        .insert("region".into(), attr(Type::String, false, true, false));
    let text = |name: &str| FunctionParameter {
        name: name.into(),
        ty: Type::String,
        allow_null_value: false,
        allow_unknown_values: false,
        description: String::new(),
        description_kind: StringKind::Plain,
    };
    let shout = FunctionSpec {
        parameters: vec![text("s")],
        variadic_parameter: None,
        return_type: Type::String,
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
        functions: BTreeMap::from([("shout".to_string(), shout)]),
        resource_types: BTreeMap::from([(
            "fake_thing".to_string(),
            Schema {
                version: 1,
                block: thing,
            },
        )]),
        data_sources: BTreeMap::from([(
            "fake_data".to_string(),
            Schema {
                version: 0,
                block: data,
            },
        )]),
        ..ProviderSchema::default()
    }
}

fn get(v: &Value, name: &str) -> Value {
    v.as_attributes()
        .and_then(|a| a.get(name).cloned())
        .unwrap_or_else(|| Value::null(Type::String))
}

fn with(v: &Value, name: &str, x: Value) -> Value {
    let mut a = v
        .as_attributes()
        .map(terrace_value::Attrs::to_map)
        .unwrap_or_default();
    a.insert(name.to_string(), x);
    Value::object(a)
}

impl Fake {
    fn region_value(&self) -> Value {
        match self.region.lock().ok().and_then(|r| r.clone()) {
            Some(r) => Value::string(r),
            None => Value::string("default"),
        }
    }
}

impl Provider for Fake {
    fn get_metadata(&self) -> GetMetadataResponse {
        GetMetadataResponse::default()
    }
    fn get_provider_schema(&self) -> GetProviderSchemaResponse {
        GetProviderSchemaResponse {
            schema: Arc::new(fake_schema()),
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
        r: ValidateResourceConfigRequest,
    ) -> ValidateResourceConfigResponse {
        let mut resp = ValidateResourceConfigResponse::default();
        if get(&r.config, "input").as_str() == Some("bad-attr") {
            let mut d = Diagnostic::error("Invalid input", "The input may not be bad-attr.");
            d.attribute = Some(AttributePath::root().attribute("input"));
            resp.diagnostics.push(d);
        }
        resp
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
        let ty = fake_schema().resource_types["fake_thing"].implied_type();
        match terrace_value::json::from_json(&r.raw_state.json, &ty) {
            Ok(v) => UpgradeResourceStateResponse {
                upgraded_state: v,
                diagnostics: Diagnostics::new(),
            },
            Err(e) => UpgradeResourceStateResponse {
                upgraded_state: Value::null(ty),
                diagnostics: Diagnostic::error("bad state", e.to_string()).into(),
            },
        }
    }
    fn configure_provider(&self, r: ConfigureProviderRequest) -> ConfigureProviderResponse {
        let region = get(&r.config, "region");
        let region = region.as_str().map(str::to_string);
        if region.as_deref() == Some(PANIC_DURING_CONFIGURE) {
            panic!("the fake provider panics while being configured");
        }
        if let Ok(mut c) = self.cloud.configured.lock() {
            c.push(region.clone().unwrap_or_else(|| "default".into()));
        }
        if let Ok(mut g) = self.region.lock() {
            *g = region;
        }
        ConfigureProviderResponse::default()
    }
    fn read_resource(&self, r: ReadResourceRequest) -> ReadResourceResponse {
        let id = get(&r.prior_state, "id");
        let found = id.as_str().and_then(|id| {
            self.cloud
                .objects
                .lock()
                .ok()
                .and_then(|o| o.get(id).cloned())
        });
        let ty = fake_schema().resource_types["fake_thing"].implied_type();
        ReadResourceResponse {
            new_state: found.unwrap_or_else(|| Value::null(ty)),
            private: r.private,
            deferred: None,
            diagnostics: Diagnostics::new(),
        }
    }
    fn plan_resource_change(&self, r: PlanResourceChangeRequest) -> PlanResourceChangeResponse {
        if get(&r.proposed_new_state, "input").as_str() == Some(PANIC_DURING_PLAN) {
            panic!("the fake provider panics while planning");
        }
        let mut planned = r.proposed_new_state.clone();
        let mut requires_replace = Vec::new();
        if !planned.is_null() {
            let input = get(&planned, "input");
            planned = with(
                &planned,
                "output",
                if input.is_null() {
                    Value::string("")
                } else {
                    input
                },
            );
            planned = with(&planned, "region", self.region_value());
            if r.prior_state.is_null() {
                planned = with(&planned, "id", Value::unknown(Type::String));
            } else {
                if !get(&r.prior_state, "replace_me").raw_equals(&get(&planned, "replace_me")) {
                    requires_replace.push(AttributePath::root().attribute("replace_me"));
                }
                planned = with(&planned, "id", get(&r.prior_state, "id"));
            }
        }
        let mut diagnostics = Diagnostics::new();
        if get(&planned, "input").as_str() == Some("bad-attr") {
            let mut d = Diagnostic::error("Invalid input", "The input may not be bad-attr.");
            d.attribute = Some(AttributePath::root().attribute("input"));
            diagnostics.push(d);
        }
        PlanResourceChangeResponse {
            planned_state: planned,
            requires_replace,
            planned_private: Vec::new(),
            legacy_type_system: false,
            deferred: None,
            diagnostics,
        }
    }
    fn apply_resource_change(&self, r: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse {
        if let Some(d) = self.cloud.apply_delay.lock().ok().and_then(|d| *d) {
            std::thread::sleep(d);
        }
        if get(&r.planned_state, "input").as_str() == Some(PANIC_DURING_APPLY) {
            panic!("the fake provider panics while applying");
        }
        let input = get(&r.planned_state, "input");
        let failing = input.as_str().is_some_and(|i| {
            self.cloud
                .fail_once
                .lock()
                .map(|mut f| f.remove(i))
                .unwrap_or(false)
        });
        if failing {
            let mut new = r.planned_state.clone();
            let detail = if r.prior_state.is_null() {
                let n = self.cloud.next.fetch_add(1, Ordering::SeqCst);
                new = with(&new, "id", Value::string(format!("obj-{n}")));
                "Create failed halfway"
            } else {
                new = with(&new, "output", get(&r.prior_state, "output"));
                "Update failed halfway"
            };
            if let (Some(id), Ok(mut o)) = (
                get(&new, "id").as_str().map(str::to_string),
                self.cloud.objects.lock(),
            ) {
                o.insert(id, new.clone());
            }
            return ApplyResourceChangeResponse {
                new_state: new,
                private: Vec::new(),
                legacy_type_system: false,
                diagnostics: Diagnostic::error("Apply failed", detail).into(),
            };
        }
        if !r.planned_state.is_null() {
            if let (Some(i), Ok(mut a)) = (input.as_str(), self.cloud.applied.lock()) {
                a.push(i.to_string());
            }
        }
        let mut new = r.planned_state.clone();
        if new.is_null() {
            if let Some(id) = get(&r.prior_state, "id").as_str() {
                if let Ok(mut o) = self.cloud.objects.lock() {
                    o.remove(id);
                }
            }
        } else {
            if !get(&new, "id").is_known() {
                let n = self.cloud.next.fetch_add(1, Ordering::SeqCst);
                new = with(&new, "id", Value::string(format!("obj-{n}")));
            }
            if let (Some(id), Ok(mut o)) = (
                get(&new, "id").as_str().map(str::to_string),
                self.cloud.objects.lock(),
            ) {
                o.insert(id, new.clone());
            }
        }
        ApplyResourceChangeResponse {
            new_state: new,
            private: Vec::new(),
            legacy_type_system: false,
            diagnostics: Diagnostics::new(),
        }
    }
    fn import_resource_state(&self, _: ImportResourceStateRequest) -> ImportResourceStateResponse {
        ImportResourceStateResponse::default()
    }
    fn move_resource_state(&self, _: MoveResourceStateRequest) -> MoveResourceStateResponse {
        MoveResourceStateResponse {
            target_state: Value::dynamic(),
            target_private: Vec::new(),
            diagnostics: Diagnostic::error("unsupported", "").into(),
        }
    }
    fn read_data_source(&self, r: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let input = get(&r.config, "input");
        let result = Value::string(format!(
            "data:{}@{}",
            input.as_str().unwrap_or_default(),
            self.region_value().as_str().unwrap_or_default()
        ));
        ReadDataSourceResponse {
            state: with(&r.config, "result", result),
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
            diagnostics: Diagnostic::error("unsupported", "").into(),
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
        self.cloud.function_calls.fetch_add(1, Ordering::SeqCst);
        let arg = r
            .arguments
            .first()
            .and_then(|a| a.as_str().map(str::to_string));
        let result = match (r.name.as_str(), arg.as_deref()) {
            ("shout", Some("boom")) => Err(FunctionError {
                text: "cannot shout boom".into(),
                argument: Some(0),
            }),
            ("shout", Some(s)) => Ok(Value::string(format!("{}!", s.to_uppercase()))),
            _ => Err(FunctionError::new("no such function")),
        };
        CallFunctionResponse { result }
    }
    fn stop(&self) -> Diagnostics {
        self.cloud.stopped.fetch_add(1, Ordering::SeqCst);
        Diagnostics::new()
    }
    fn close(&self) -> Diagnostics {
        self.cloud.closed.fetch_add(1, Ordering::SeqCst);
        Diagnostics::new()
    }
}

/// Hands out fakes for `hashicorp/fake` and the built-in provider for
/// `terraform`.
pub struct Factory {
    pub cloud: Arc<Cloud>,
    pub dir: PathBuf,
}

impl ProviderFactory for Factory {
    fn schema(
        &self,
        p: &terrace_addrs::Provider,
    ) -> Result<Arc<ProviderSchema>, terrace_syntax::Diagnostics> {
        if p.type_name() == "fake" {
            Ok(Arc::new(fake_schema()))
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
        self.cloud.started.fetch_add(1, Ordering::SeqCst);
        if p.type_name() == "fake" {
            Ok(Arc::new(Fake {
                cloud: self.cloud.clone(),
                region: Mutex::new(None),
            }))
        } else {
            Ok(Arc::new(terrace_builtin::TerraformProvider::new(
                self.dir.clone(),
            )))
        }
    }
}

static DIRS: AtomicU64 = AtomicU64::new(0);

/// A scratch directory holding `files`.
pub fn write_dir(files: &[(&str, &str)]) -> PathBuf {
    let n = DIRS.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("terrace-engine-test-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (name, text) in files {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create test dir");
        }
        std::fs::write(p, text).expect("write test file");
    }
    dir
}

pub fn load(dir: &Path, vars: &[(&str, &str)]) -> (Config, HashMap<String, Value>) {
    let input = InputValues::from_text(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let opts = LoadOptions {
        input_values: Arc::new(input.clone()),
        ..LoadOptions::default()
    };
    let v = terrace_config::validation::load_and_validate(dir, &opts, None);
    assert!(
        !has_errors(&v.diagnostics),
        "config errors: {:#?}",
        v.diagnostics
    );
    let (values, d) = input.final_values(&v.config.module.variables);
    assert!(!has_errors(&d), "variable errors: {d:#?}");
    (v.config, values)
}

pub struct Harness {
    pub cloud: Arc<Cloud>,
    pub dir: PathBuf,
    pub state: State,
}

impl Harness {
    pub fn new(files: &[(&str, &str)]) -> Harness {
        Harness {
            cloud: Arc::new(Cloud::default()),
            dir: write_dir(files),
            state: State::new_with_lineage("test"),
        }
    }

    /// Replaces the configuration files (the state and cloud stay).
    pub fn rewrite(&mut self, files: &[(&str, &str)]) {
        let _ = std::fs::remove_dir_all(&self.dir);
        for (name, text) in files {
            let p = self.dir.join(name);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).expect("create test dir");
            }
            std::fs::write(p, text).expect("write test file");
        }
    }

    pub fn context(&self, vars: &[(&str, &str)]) -> Context {
        let (config, variables) = load(&self.dir, vars);
        Context {
            config: Arc::new(config),
            providers: Arc::new(Factory {
                cloud: self.cloud.clone(),
                dir: self.dir.clone(),
            }),
            variables,
            workspace: "default".into(),
            working_dir: self.dir.clone(),
            parallelism: 4,
            terraform_version: "1.11.4".into(),
            commands: Arc::new(ShellCommands),
        }
    }

    pub fn plan_with(
        &self,
        vars: &[(&str, &str)],
        opts: &PlanOptions,
    ) -> (Plan, terrace_syntax::Diagnostics) {
        let ctx = self.context(vars);
        terrace_engine::plan(&ctx, &self.state, opts, &NoHooks)
    }

    pub fn plan(&self, vars: &[(&str, &str)]) -> Plan {
        let (plan, diags) = self.plan_with(vars, &PlanOptions::default());
        assert!(!has_errors(&diags), "plan errors: {diags:#?}");
        plan
    }

    pub fn apply(&mut self, vars: &[(&str, &str)], plan: &Plan) {
        let ctx = self.context(vars);
        let (state, diags) = terrace_engine::apply(&ctx, plan, &NoHooks);
        assert!(!has_errors(&diags), "apply errors: {diags:#?}");
        self.state = state;
    }

    pub fn destroy(&mut self, vars: &[(&str, &str)]) -> Plan {
        let opts = PlanOptions {
            mode: PlanMode::Destroy,
            ..PlanOptions::default()
        };
        let (plan, diags) = self.plan_with(vars, &opts);
        assert!(!has_errors(&diags), "destroy plan errors: {diags:#?}");
        self.apply(vars, &plan);
        plan
    }
}

/// `addr action` lines of the changes that do something, sorted.
pub fn actions(plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = plan
        .changes
        .iter()
        .filter(|c| c.action != Action::NoOp)
        .map(|c| match &c.deposed {
            Some(d) => format!("{} ({d}) {}", c.addr, c.action),
            None => format!("{} {}", c.addr, c.action),
        })
        .collect();
    out.sort();
    out
}

/// The resource instance addresses in a state, sorted.
pub fn state_addrs(state: &State) -> Vec<String> {
    let mut out: Vec<String> = state
        .all_instances()
        .map(|(a, _, _)| a.to_string())
        .collect();
    out.sort();
    out
}

/// The decoded attribute `name` of an instance's object, as JSON text.
pub fn state_attr(state: &State, addr: &str, name: &str) -> Option<String> {
    let addr = terrace_addrs::AbsResourceInstance::parse_str(addr).ok()?;
    let obj = state.object(&addr)?;
    let json: serde_json::Value = serde_json::from_str(obj.attributes.as_json()?).ok()?;
    json.get(name).map(|v| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// Runs provisioners' commands for the engine's tests: each runs to its
/// end, then its stdout and stderr lines are handed on. The CLI's runner
/// (process groups, interleaved streams, interrupts) has its own tests.
pub struct ShellCommands;

impl terrace_engine::CommandRunner for ShellCommands {
    fn run(
        &self,
        command: &terrace_engine::LocalCommand,
        emit: &dyn Fn(&str),
        _stopping: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), terrace_engine::CommandFailure> {
        let failure =
            |error: String, output: Vec<u8>| terrace_engine::CommandFailure { error, output };
        let (program, args) = command
            .argv
            .split_first()
            .ok_or_else(|| failure("no command".into(), Vec::new()))?;
        let dir = match &command.working_dir {
            Some(d) => command.base_dir.join(d),
            None => command.base_dir.clone(),
        };
        let out = std::process::Command::new(program)
            .args(args)
            .current_dir(dir)
            .envs(command.env.iter().map(|(k, v)| (k, v)))
            .output()
            .map_err(|e| failure(e.to_string(), Vec::new()))?;
        let mut combined = out.stdout;
        combined.extend_from_slice(&out.stderr);
        String::from_utf8_lossy(&combined).lines().for_each(emit);
        match out.status.code() {
            Some(0) => Ok(()),
            Some(code) => Err(failure(format!("exit status {code}"), combined)),
            None => Err(failure("signal".into(), combined)),
        }
    }
}
