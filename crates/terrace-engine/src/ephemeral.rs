//! Ephemeral resources: objects a provider opens for the length of one
//! walk (a password generated, a secret read, a short-lived token), whose
//! values are used by providers, write-only arguments, locals and
//! ephemeral outputs and are never written to a state or a plan.
//!
//! Each walk (plan and apply alike) opens every instance whose
//! configuration is known, keeps it renewed while the walk needs it, and
//! closes it at the graph's close node for the resource, which waits for
//! everything that uses the value. What is still open when a walk ends
//! early (an error upstream of the close node, an interrupt) is closed
//! before the walk's providers are.

use crate::common::check_resource_rules;
use crate::marks::{apply_mark_paths, unmark};
use crate::model::ResourceInfo;
use crate::providers::{convert_diags, typed, InBody};
use crate::scope::Env;
use crate::values::Repetition;
use crate::{EphemeralOp, Hooks};
use std::collections::HashMap;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};
use terrace_addrs::{AbsResourceInstance, ConfigResource};
use terrace_config::model::Resource;
use terrace_providers::objchange::planned_unknown_object;
use terrace_providers::{
    ClientCapabilities, CloseEphemeralResourceRequest, OpenEphemeralResourceRequest, Provider,
    RenewEphemeralResourceRequest,
};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostics;
use terrace_value::{Marks, Value};

/// The ephemeral resource instances a walk has open, by resource.
#[derive(Default)]
pub(crate) struct OpenEphemerals {
    open: Mutex<HashMap<ConfigResource, Vec<OpenInstance>>>,
}

struct OpenInstance {
    addr: AbsResourceInstance,
    provider: Arc<dyn Provider>,
    /// The provider's private data, as the last open or renewal left it:
    /// what closing hands back.
    private: Arc<Mutex<Option<Vec<u8>>>>,
    renewer: Option<Renewer>,
}

/// A thread renewing one instance whenever the provider asked for it,
/// until the instance is closed.
struct Renewer {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<terrace_providers::Diagnostics>,
}

impl OpenEphemerals {
    fn add(&self, instance: OpenInstance) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.entry(instance.addr.config_resource())
            .or_default()
            .push(instance);
    }

    /// Closes every open instance of `resource`.
    pub fn close_resource(&self, resource: &ConfigResource, hooks: &dyn Hooks) -> Diagnostics {
        let instances = self
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(resource)
            .unwrap_or_default();
        close_instances(instances, hooks)
    }

    /// Closes whatever is still open, at the end of a walk.
    pub fn close_all(&self, hooks: &dyn Hooks) -> Diagnostics {
        let all: Vec<OpenInstance> =
            std::mem::take(&mut *self.open.lock().unwrap_or_else(PoisonError::into_inner))
                .into_values()
                .flatten()
                .collect();
        close_instances(all, hooks)
    }
}

fn close_instances(mut instances: Vec<OpenInstance>, hooks: &dyn Hooks) -> Diagnostics {
    instances.sort_by(|a, b| a.addr.cmp(&b.addr));
    let mut diags = Diagnostics::new();
    for instance in instances {
        let mut provider_diags = terrace_providers::Diagnostics::new();
        if let Some(renewer) = instance.renewer {
            // The thread is waiting on this channel or renewing: either
            // way it returns promptly once told to stop.
            let _ = renewer.stop.send(());
            match renewer.thread.join() {
                Ok(d) => provider_diags.extend(d),
                Err(_) => diags.push(terrace_syntax::Diagnostic::error(
                    "Internal error",
                    format!(
                        "Renewing {} failed unexpectedly; it is closed now.",
                        instance.addr
                    ),
                )),
            }
        }
        let private = instance
            .private
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let start = Instant::now();
        hooks.ephemeral_started(&instance.addr, EphemeralOp::Close);
        let response = instance
            .provider
            .close_ephemeral_resource(CloseEphemeralResourceRequest {
                type_name: instance.addr.resource.resource.type_name.to_string(),
                private,
            });
        provider_diags.extend(response.diagnostics);
        let converted = convert_diags(provider_diags, None);
        hooks.ephemeral_finished(
            &instance.addr,
            EphemeralOp::Close,
            start.elapsed(),
            !has_errors(&converted),
        );
        diags.extend(converted);
    }
    diags
}

fn spawn_renewer(
    provider: Arc<dyn Provider>,
    type_name: String,
    private: Arc<Mutex<Option<Vec<u8>>>>,
    first: SystemTime,
) -> Renewer {
    let (stop, stopped) = mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        let mut renew_at = first;
        loop {
            let wait = renew_at
                .duration_since(SystemTime::now())
                .unwrap_or(Duration::ZERO);
            match stopped.recv_timeout(wait) {
                Err(RecvTimeoutError::Timeout) => {}
                Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                    return terrace_providers::Diagnostics::new();
                }
            }
            let current = private
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            let response = provider.renew_ephemeral_resource(RenewEphemeralResourceRequest {
                type_name: type_name.clone(),
                private: current,
            });
            let failed = response
                .diagnostics
                .iter()
                .any(|d| d.severity == terrace_providers::Severity::Error);
            if !failed {
                *private.lock().unwrap_or_else(PoisonError::into_inner) = response.private;
            }
            match response.renew_at {
                Some(next) if !failed => renew_at = next,
                _ => {
                    // No further renewal: wait to be closed, then report
                    // what the last renewal said.
                    let _ = stopped.recv();
                    return response.diagnostics;
                }
            }
        }
    });
    Renewer { stop, thread }
}

/// Opens one instance of an ephemeral resource and registers it with
/// `open` for closing. With a configuration not yet known (during plan)
/// nothing is opened and the value is unknown. Either way the value is
/// marked ephemeral, so that it cannot end up in a state or a plan. The
/// diagnostics beside the value are warnings.
#[allow(clippy::too_many_arguments)]
pub(crate) fn open_instance(
    env: &Env<'_>,
    info: &ResourceInfo<'_>,
    r: &Resource,
    addr: &AbsResourceInstance,
    rep: &Repetition,
    provider: Arc<dyn Provider>,
    hooks: &dyn Hooks,
    open: &OpenEphemerals,
) -> Result<(Value, Diagnostics), Diagnostics> {
    let (Some(schema), Some(cfg_module)) = (&info.schema, info.module) else {
        return Ok((
            Value::unknown(info.ty.clone()).mark(Marks::EPHEMERAL),
            Diagnostics::new(),
        ));
    };
    let mut diags = Diagnostics::new();
    let mut scope = env.scope(cfg_module, addr.module.clone(), rep.clone());
    check_resource_rules(env, &scope, addr, false, &mut diags);
    let (config, d) = crate::common::decode_resource_config(info, r, &schema.block, &scope);
    diags.extend(d);
    if has_errors(&diags) {
        return Err(diags);
    }
    let (cfg_plain, cfg_marks) = unmark(&config);
    // Only the configuration's own marks carry over: terraform does not
    // mark a result's attributes sensitive by the schema, as the value is
    // ephemeral as a whole already.
    let with_marks = |v: &Value| apply_mark_paths(v, &cfg_marks).mark(Marks::EPHEMERAL);
    if !cfg_plain.is_wholly_known() {
        let unknown = with_marks(&planned_unknown_object(&schema.block, &cfg_plain));
        return Ok((unknown, diags));
    }
    let start = Instant::now();
    hooks.ephemeral_started(addr, EphemeralOp::Open);
    let response = provider.open_ephemeral_resource(OpenEphemeralResourceRequest {
        type_name: addr.resource.resource.type_name.to_string(),
        config: cfg_plain.clone(),
        client_capabilities: ClientCapabilities::default(),
    });
    let address = addr.to_string();
    diags.extend(convert_diags(
        response.diagnostics,
        Some(InBody::new(&r.config, &address, &info.provider.provider)),
    ));
    if has_errors(&diags) {
        hooks.ephemeral_finished(addr, EphemeralOp::Open, start.elapsed(), false);
        return Err(diags);
    }
    let private = Arc::new(Mutex::new(response.private));
    let type_name = addr.resource.resource.type_name.to_string();
    let renewer = response
        .renew_at
        .map(|at| spawn_renewer(provider.clone(), type_name, private.clone(), at));
    open.add(OpenInstance {
        addr: addr.clone(),
        provider,
        private,
        renewer,
    });
    hooks.ephemeral_finished(addr, EphemeralOp::Open, start.elapsed(), true);
    // A provider that defers the open (not supported without deferral
    // being offered) leaves the value unknown, as an unknown
    // configuration does.
    let value = if response.deferred.is_some() {
        planned_unknown_object(&schema.block, &cfg_plain)
    } else {
        typed(response.result, &info.ty)
    };
    let marked = with_marks(&value);
    if !r.postconditions.is_empty() {
        scope.self_value = Some(marked.clone());
        check_resource_rules(env, &scope, addr, true, &mut diags);
        if has_errors(&diags) {
            return Err(diags);
        }
    }
    Ok((marked, diags))
}
