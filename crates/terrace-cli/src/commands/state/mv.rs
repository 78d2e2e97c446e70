//! `terrace state mv [-dry-run] SOURCE DESTINATION`: renames a module
//! instance (with its nested modules), a whole resource or one resource
//! instance in the state, or moves it to another state file
//! (`-state-out`), as Terraform does: under the lock, after timestamped
//! backups, clearing the recorded dependencies that named what moved.

use crate::state_meta::{self, Loaded, StateFlags, Ui};
use std::collections::BTreeMap;
use terrace_addrs::{
    AbsResource, InstanceKey, ModuleInstance, ModuleInstanceStep, ResourceMode, Target, Targetable,
};
use terrace_states::backend::Backend;
use terrace_states::model::{EachMode, ResourceState, State};
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics};

const HELP: &str = "Usage: terrace [global options] state mv [options] SOURCE DESTINATION

 This command will move an item matched by the address given to the
 destination address. This command can also move to a destination address
 in a completely different state file.

 This can be used for simple resource renaming, moving items to and from
 a module, moving entire modules, and more. And because this command can also
 move data to a completely new state, it can also be used for refactoring
 one configuration into multiple separately managed configurations.

 This command will output a backup copy of the state prior to saving any
 changes. The backup cannot be disabled. Due to the destructive nature
 of this command, backups are required.

 If you're moving an item to a different state file, a backup will be created
 for each state file.

Options:

  -dry-run                If set, prints out what would've been moved but doesn't
                          actually move anything.

  -lock=false             Don't hold a state lock during the operation. This is
                          dangerous if others might concurrently run commands
                          against the same workspace.

  -lock-timeout=0s        Duration to retry a state lock.

  -state, state-out, and -backup are legacy options supported for the local
  backend only. For more information, see the local backend's documentation.
";

const DESTINATION_MODULE_EXISTS: &str = "Error moving state: destination module already exists\n\nPlease ensure your addresses and state paths are valid. No\nstate was persisted. Your existing states are untouched.";

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, positionals) = state_meta::parse_args(argv, &["backup-out"]);
    let mut state_flags = StateFlags::default();
    let mut dry_run = false;
    let mut backup_out = None;
    for (name, value) in flags {
        let result = match state_flags.take(
            &["state", "state-out", "backup", "lock", "lock-timeout"],
            &name,
            value.as_deref(),
        ) {
            Some(r) => r,
            None => match (name.as_str(), value) {
                ("help" | "h", _) => {
                    out!("{HELP}");
                    return 0;
                }
                ("no-color", _) => {
                    ui.color = false;
                    Ok(())
                }
                ("ignore-remote-version", _) => Ok(()),
                ("dry-run", v) => {
                    state_meta::parse_bool("dry-run", v.as_deref()).map(|b| dry_run = b)
                }
                ("backup-out", Some(v)) => {
                    backup_out = Some(v);
                    Ok(())
                }
                (other, _) => Err(format!("flag provided but not defined: -{other}")),
            },
        };
        if let Err(e) = result {
            out!("{HELP}");
            ui.error(&format!("Error parsing command-line flags: {e}\n"));
            return 1;
        }
    }
    let [raw_src, raw_dst] = positionals.as_slice() else {
        out!("{HELP}");
        ui.error("Exactly two arguments expected.\n");
        return 1;
    };

    // The source state, and the destination state when it is another file.
    let mut source = match open(
        &state_flags,
        state_flags.state.clone(),
        state_flags.backup.clone(),
    ) {
        Ok(b) => b,
        Err(e) => {
            ui.error(&e);
            return 1;
        }
    };
    let mut destination = match state_flags.state_out.clone() {
        Some(out) => match open(&state_flags, Some(out), backup_out) {
            Ok(b) => Some(b),
            Err(e) => {
                ui.error(&e);
                return 1;
            }
        },
        None => None,
    };
    if !state_meta::lock(source.as_mut(), &state_flags, "state-mv", &ui) {
        return 1;
    }
    let mut code = 1;
    let locked = destination
        .as_mut()
        .is_none_or(|d| state_meta::lock(d.as_mut(), &state_flags, "state-mv", &ui));
    if locked {
        code = move_command(
            source.as_mut(),
            destination.as_mut().map(|d| d.as_mut() as &mut dyn Backend),
            raw_src,
            raw_dst,
            dry_run,
            &ui,
        );
    }
    if let Some(d) = destination.as_mut() {
        if !state_meta::unlock(d.as_mut(), &ui) {
            code = 1;
        }
    }
    if !state_meta::unlock(source.as_mut(), &ui) {
        code = 1;
    }
    code
}

/// The backend of one side of the move: the state at `state` (the
/// workspace's without it), with `-backup` or the timestamped backup.
fn open(
    flags: &StateFlags,
    state: Option<std::path::PathBuf>,
    backup: Option<String>,
) -> Result<Box<dyn Backend>, String> {
    let side = StateFlags {
        state: state.clone(),
        backup,
        ..flags.clone()
    };
    let backup = state_meta::state_command_backup(&side)?;
    state_meta::open_backend(terrace_states::backend::LocalBackendOptions {
        state,
        backup,
        ..Default::default()
    })
}

fn move_command(
    source: &mut dyn Backend,
    destination: Option<&mut dyn Backend>,
    raw_src: &str,
    raw_dst: &str,
    dry_run: bool,
    ui: &Ui,
) -> i32 {
    let from_loaded = match state_meta::read_state(source) {
        Ok(l) => l,
        Err(diags) => {
            ui.legacy_diagnostics(&refresh_failed("source", &diags));
            return 1;
        }
    };
    ui.legacy_diagnostics(&from_loaded.warnings);
    let Some(mut from) = from_loaded.state.clone() else {
        ui.error(&state_meta::no_state_file());
        return 1;
    };
    let mut to_side: Option<(&mut dyn Backend, Loaded, State)> = match destination {
        Some(backend) => match state_meta::read_state(backend) {
            Ok(loaded) => {
                let state = loaded.state.clone().unwrap_or_else(State::new_empty);
                Some((backend, loaded, state))
            }
            Err(diags) => {
                ui.legacy_diagnostics(&refresh_failed("destination", &diags));
                return 1;
            }
        },
        None => None,
    };

    let mut diags = Vec::new();
    let src = Target::parse_str(raw_src).map_err(|d| diags.extend(d)).ok();
    let dst = Target::parse_str(raw_dst).map_err(|d| diags.extend(d)).ok();
    let (Some(src), Some(dst)) = (src, dst) else {
        ui.legacy_diagnostics(&diags);
        return 1;
    };

    let outcome = {
        let to = to_side.as_mut().map(|(_, _, s)| s);
        move_objects(
            &mut from,
            to,
            &src.subject,
            &dst.subject,
            raw_dst,
            dry_run,
            &mut |line| ui.output(line),
        )
    };
    let moved = match outcome {
        Ok(n) => n,
        Err(MoveError::Diagnostics(d)) => {
            ui.legacy_diagnostics(&d);
            return 1;
        }
        Err(MoveError::DestinationModuleExists) => {
            ui.error(DESTINATION_MODULE_EXISTS);
            return 1;
        }
    };
    if dry_run {
        if moved == 0 {
            ui.output("Would have moved nothing.");
        }
        return 0;
    }
    if let Some((backend, loaded, state)) = to_side.as_mut() {
        if let Err(e) = backend.write_state(state) {
            ui.legacy_diagnostics(&[crate::commands::state::rm::saving_error(&e.to_string())]);
            return 1;
        }
        state_meta::journal_saved(&**backend, loaded);
    }
    if let Err(e) = source.write_state(&from) {
        ui.legacy_diagnostics(&[crate::commands::state::rm::saving_error(&e.to_string())]);
        return 1;
    }
    state_meta::journal_saved(source, &from_loaded);
    if moved == 0 {
        ui.output("No matching objects found.");
    } else {
        ui.output(&format!("Successfully moved {moved} object(s)."));
    }
    0
}

fn refresh_failed(side: &str, diags: &Diagnostics) -> Diagnostics {
    let detail: Vec<String> = diags
        .iter()
        .map(|d| {
            if d.detail.is_empty() {
                d.summary.clone()
            } else {
                format!("{}: {}", d.summary, d.detail)
            }
        })
        .collect();
    vec![Diagnostic::error(
        format!("Failed to refresh {side} state"),
        detail.join("\n"),
    )]
}

#[derive(Debug)]
enum MoveError {
    Diagnostics(Diagnostics),
    /// Terraform reports this one as a plain message.
    DestinationModuleExists,
}

fn invalid(summary: &str, detail: String) -> MoveError {
    MoveError::Diagnostics(vec![Diagnostic::error(summary, detail)])
}

const INVALID_SOURCE: &str = "Invalid source address";
const INVALID_TARGET: &str = "Invalid target address";

/// What the source address selects in the state (Terraform's
/// `sourceObjectAddrs`): every module instance at or under a module
/// address; for a whole resource, its no-key instance when it has one.
fn source_objects(state: &State, src: &Targetable) -> Vec<Targetable> {
    match src {
        Targetable::ModuleInstance(m) => {
            let mut modules: Vec<ModuleInstance> = state
                .modules()
                .into_iter()
                .filter(|module| {
                    module.len() >= m.len() && module.steps()[..m.len()] == m.steps()[..]
                })
                .collect();
            modules.sort();
            modules.dedup();
            modules
                .into_iter()
                .map(Targetable::ModuleInstance)
                .collect()
        }
        Targetable::AbsResource(r) => match state.resources.get(r) {
            Some(rs) if rs.instances.contains_key(&InstanceKey::None) => {
                vec![Targetable::AbsResourceInstance(
                    r.instance(InstanceKey::None),
                )]
            }
            Some(_) => vec![src.clone()],
            None => Vec::new(),
        },
        other => vec![other.clone()],
    }
}

/// Moves what `src` selects in `from` to `dst` (in `to`, or in `from`
/// itself when `to` is `None`), printing each move through `say`; the
/// number of objects moved. In a dry run the states are changed all the
/// same: the caller discards them.
fn move_objects(
    from: &mut State,
    mut to: Option<&mut State>,
    src: &Targetable,
    dst: &Targetable,
    raw_dst: &str,
    dry_run: bool,
    say: &mut dyn FnMut(&str),
) -> Result<usize, MoveError> {
    let verb = if dry_run { "Would move" } else { "Move" };
    let sources = source_objects(from, src);
    if sources.is_empty() {
        return Err(invalid(
            INVALID_SOURCE,
            format!("Cannot move {src}: does not match anything in the current state."),
        ));
    }
    let mut moved = 0;
    for object in sources {
        match &object {
            Targetable::ModuleInstance(addr_from) => {
                let (Targetable::ModuleInstance(search), Targetable::ModuleInstance(dst_module)) =
                    (src, dst)
                else {
                    return Err(invalid(
                        INVALID_TARGET,
                        format!(
                            "Cannot move {addr_from} to {dst}: the target must also be a module."
                        ),
                    ));
                };
                let addr_to = if search.len() < addr_from.len() {
                    let steps: Vec<ModuleInstanceStep> = dst_module
                        .steps()
                        .iter()
                        .chain(&addr_from.steps()[search.len()..])
                        .cloned()
                        .collect();
                    ModuleInstance::from_steps(steps)
                } else {
                    dst_module.clone()
                };
                let target_state: &State = to.as_deref().unwrap_or(from);
                if has_module(target_state, &addr_to) {
                    return Err(MoveError::DestinationModuleExists);
                }
                if !has_module(from, addr_from) {
                    return Err(invalid(
                        INVALID_SOURCE,
                        format!("The current state does not contain {addr_from}."),
                    ));
                }
                moved += 1;
                say(&format!(
                    "{verb} {:?} to {:?}",
                    addr_from.to_string(),
                    addr_to.to_string()
                ));
                let taken: Vec<(AbsResource, ResourceState)> =
                    take_where(from, |a| &a.module == addr_from);
                let target = to.as_deref_mut().unwrap_or(from);
                for (addr, rs) in taken {
                    target.resources.insert(
                        AbsResource {
                            module: addr_to.clone(),
                            resource: addr.resource,
                        },
                        rs,
                    );
                }
            }
            Targetable::AbsResource(addr_from) => {
                let Targetable::AbsResource(addr_to) = dst else {
                    return Err(invalid(
                        INVALID_TARGET,
                        format!(
                            "Cannot move {addr_from} to {dst}: the source is a whole resource (not \
                             a resource instance) so the target must also be a whole resource."
                        ),
                    ));
                };
                let mut diags = validate_resource_move(addr_from, addr_to);
                let target_state: &State = to.as_deref().unwrap_or(from);
                if target_state.resources.contains_key(addr_to) {
                    diags.push(Diagnostic::error(
                        INVALID_TARGET,
                        format!(
                            "Cannot move to {addr_to}: there is already a resource at that address \
                             in the current state."
                        ),
                    ));
                }
                if !from.resources.contains_key(addr_from) {
                    diags.push(Diagnostic::error(
                        INVALID_SOURCE,
                        format!("The current state does not contain {addr_from}."),
                    ));
                }
                if !diags.is_empty() {
                    return Err(MoveError::Diagnostics(diags));
                }
                moved += 1;
                say(&format!(
                    "{verb} {:?} to {:?}",
                    addr_from.to_string(),
                    addr_to.to_string()
                ));
                if let Some(rs) = from.resources.remove(addr_from) {
                    to.as_deref_mut()
                        .unwrap_or(from)
                        .resources
                        .insert(addr_to.clone(), rs);
                }
            }
            Targetable::AbsResourceInstance(addr_from) => {
                let addr_to = match dst {
                    Targetable::AbsResourceInstance(a) => a.clone(),
                    Targetable::AbsResource(r) => r.instance(InstanceKey::None),
                    _ => {
                        return Err(invalid(
                            INVALID_TARGET,
                            format!(
                                "Cannot move {addr_from} to {dst}: the target must also be a \
                                 resource instance."
                            ),
                        ))
                    }
                };
                let mut diags = validate_resource_move(
                    &addr_from.containing_resource(),
                    &addr_to.containing_resource(),
                );
                let target_state: &State = to.as_deref().unwrap_or(from);
                if target_state.instance(&addr_to).is_some() {
                    diags.push(Diagnostic::error(
                        INVALID_TARGET,
                        format!(
                            "Cannot move to {addr_to}: there is already a resource instance at \
                             that address in the current state."
                        ),
                    ));
                }
                if from.instance(addr_from).is_none() {
                    diags.push(Diagnostic::error(
                        INVALID_SOURCE,
                        format!("The current state does not contain {addr_from}."),
                    ));
                }
                if !diags.is_empty() {
                    return Err(MoveError::Diagnostics(diags));
                }
                moved += 1;
                say(&format!(
                    "{verb} {:?} to {:?}",
                    addr_from.to_string(),
                    raw_dst
                ));
                let provider = from
                    .resource(&addr_from.containing_resource())
                    .map(|rs| rs.provider.clone());
                if let (Some(instance), Some(provider)) =
                    (from.remove_instance(addr_from), provider)
                {
                    let target = to.as_deref_mut().unwrap_or(from);
                    let rs = target
                        .resources
                        .entry(addr_to.containing_resource())
                        .or_insert_with(|| ResourceState {
                            provider,
                            each_mode: EachMode::for_key(&addr_to.resource.key),
                            instances: BTreeMap::new(),
                        });
                    rs.instances
                        .insert(addr_to.resource.key.clone(), std::sync::Arc::new(instance));
                }
            }
            other => {
                return Err(invalid(
                    INVALID_SOURCE,
                    format!("Cannot move {other}: {PRODUCT} doesn't know how to move this object."),
                ))
            }
        }
        forget_dependencies_on(to.as_deref_mut().unwrap_or(from), &object);
    }
    Ok(moved)
}

/// Terraform's `validateResourceMove`.
fn validate_resource_move(from: &AbsResource, to: &AbsResource) -> Diagnostics {
    const INVALID_REQUEST: &str = "Invalid state move request";
    let mut diags = Vec::new();
    let (fm, tm) = (from.resource.mode, to.resource.mode);
    if fm == ResourceMode::Ephemeral || tm == ResourceMode::Ephemeral {
        diags.push(Diagnostic::error(
            INVALID_REQUEST,
            "Ephemeral resources cannot be used as sources or targets for the move action. Just \
             update your configuration accordingly.",
        ));
        return diags;
    }
    if fm != tm {
        let detail = match fm {
            ResourceMode::Managed => format!(
                "Cannot move {from} to {to}: a managed resource can be moved only to another \
                 managed resource address."
            ),
            _ => format!(
                "Cannot move {from} to {to}: a data resource can be moved only to another data \
                 resource address."
            ),
        };
        diags.push(Diagnostic::error(INVALID_REQUEST, detail));
    }
    if from.resource.type_name != to.resource.type_name {
        diags.push(Diagnostic::error(
            INVALID_REQUEST,
            format!("Cannot move {from} to {to}: resource types don't match."),
        ));
    }
    diags
}

fn has_module(state: &State, module: &ModuleInstance) -> bool {
    state.resources.keys().any(|a| &a.module == module)
}

fn take_where(
    state: &mut State,
    pick: impl Fn(&AbsResource) -> bool,
) -> Vec<(AbsResource, ResourceState)> {
    let keys: Vec<AbsResource> = state
        .resources
        .keys()
        .filter(|a| pick(a))
        .cloned()
        .collect();
    keys.into_iter()
        .filter_map(|k| state.resources.remove(&k).map(|rs| (k, rs)))
        .collect()
}

/// Objects whose recorded dependencies name what moved (or something
/// inside it) lose all their dependencies, as Terraform does: the next
/// apply records them again.
fn forget_dependencies_on(state: &mut State, moved: &Targetable) {
    for rs in state.resources.values_mut() {
        for is in rs.instances.values_mut() {
            let Some(current) = std::sync::Arc::make_mut(is).current.as_mut() else {
                continue;
            };
            let hit = current.dependencies.iter().any(|dep| {
                let dep = Targetable::ConfigResource(dep.clone());
                dep.target_contains(moved) || moved.target_contains(&dep)
            });
            if hit {
                current.dependencies.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_addrs::AbsResourceInstance;
    use terrace_states::statefile;

    fn fixture() -> State {
        let r = |module: &str, name: &str, keys: &[&str], deps: &str| {
            let module = if module.is_empty() {
                String::new()
            } else {
                format!("\"module\": \"{module}\",")
            };
            let instances: Vec<String> = keys
                .iter()
                .map(|k| {
                    format!(
                        r#"{{{k} "schema_version": 0, "attributes": {{"id": "x"}},
                            "sensitive_attributes": [], "dependencies": [{deps}]}}"#
                    )
                })
                .collect();
            format!(
                r#"{{{module} "mode": "managed", "type": "terraform_data", "name": "{name}",
                   "provider": "provider[\"terraform.io/builtin/terraform\"]",
                   "instances": [{}]}}"#,
                instances.join(",")
            )
        };
        let text = format!(
            r#"{{"version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "l",
                "outputs": {{}}, "resources": [{}], "check_results": null}}"#,
            [
                r("", "a", &[""], ""),
                r("", "c", &["\"index_key\": 0,", "\"index_key\": 1,"], ""),
                r("", "n", &[""], "\"terraform_data.a\""),
                r("module.m", "inner", &[""], ""),
                r("module.m.module.k", "deep", &[""], ""),
            ]
            .join(",")
        );
        match statefile::read(text.as_bytes()) {
            Ok((state, _)) => state,
            Err(d) => panic!("fixture: {d:?}"),
        }
    }

    fn target(s: &str) -> Targetable {
        match Target::parse_str(s) {
            Ok(t) => t.subject,
            Err(d) => panic!("{s}: {d:?}"),
        }
    }

    fn listing(state: &State) -> Vec<String> {
        let mut all: Vec<_> = state.all_instances().map(|(a, _, _)| a).collect();
        all.sort();
        all.iter().map(|a| a.to_string()).collect()
    }

    /// Each case: source, destination, the lines printed and the
    /// addresses afterwards (or the first error's detail).
    /// Lines printed and addresses afterwards, or the first error's detail.
    type Outcome = Result<(&'static [&'static str], &'static [&'static str]), &'static str>;

    #[test]
    fn moves_as_terraform_does() {
        let cases: &[(&str, &str, Outcome)] = &[
            (
                "terraform_data.a",
                "terraform_data.b",
                Ok((
                    &["Move \"terraform_data.a\" to \"terraform_data.b\""],
                    &["terraform_data.b", "terraform_data.c[0]", "terraform_data.c[1]", "terraform_data.n", "module.m.terraform_data.inner", "module.m.module.k.terraform_data.deep"],
                )),
            ),
            (
                "terraform_data.c",
                "terraform_data.d",
                Ok((
                    &["Move \"terraform_data.c\" to \"terraform_data.d\""],
                    &["terraform_data.a", "terraform_data.d[0]", "terraform_data.d[1]", "terraform_data.n", "module.m.terraform_data.inner", "module.m.module.k.terraform_data.deep"],
                )),
            ),
            (
                "terraform_data.c[1]",
                "module.z.terraform_data.single",
                Ok((
                    &["Move \"terraform_data.c[1]\" to \"module.z.terraform_data.single\""],
                    &["terraform_data.a", "terraform_data.c[0]", "terraform_data.n", "module.m.terraform_data.inner", "module.z.terraform_data.single", "module.m.module.k.terraform_data.deep"],
                )),
            ),
            (
                "module.m",
                "module.q",
                Ok((
                    &["Move \"module.m\" to \"module.q\"", "Move \"module.m.module.k\" to \"module.q.module.k\""],
                    &["terraform_data.a", "terraform_data.c[0]", "terraform_data.c[1]", "terraform_data.n", "module.q.terraform_data.inner", "module.q.module.k.terraform_data.deep"],
                )),
            ),
            ("terraform_data.zz", "terraform_data.b", Err("Cannot move terraform_data.zz: does not match anything in the current state.")),
            ("terraform_data.a", "terraform_data.n", Err("Cannot move to terraform_data.n: there is already a resource instance at that address in the current state.")),
            ("terraform_data.a", "module.x", Err("Cannot move terraform_data.a to module.x: the target must also be a resource instance.")),
            ("module.m", "terraform_data.x", Err("Cannot move module.m to terraform_data.x: the target must also be a module.")),
            ("terraform_data.c", "terraform_data.x[0]", Err("Cannot move terraform_data.c to terraform_data.x[0]: the source is a whole resource (not a resource instance) so the target must also be a whole resource.")),
            ("terraform_data.a", "null_resource.a", Err("Cannot move terraform_data.a to null_resource.a: resource types don't match.")),
            ("terraform_data.a", "data.terraform_data.a", Err("Cannot move terraform_data.a to data.terraform_data.a: a managed resource can be moved only to another managed resource address.")),
        ];
        for (src, dst, want) in cases {
            let mut state = fixture();
            let mut lines = Vec::new();
            let got = move_objects(
                &mut state,
                None,
                &target(src),
                &target(dst),
                dst,
                false,
                &mut |l| lines.push(l.to_string()),
            );
            match (got, want) {
                (Ok(n), Ok((want_lines, want_list))) => {
                    assert_eq!(n, want_lines.len(), "{src} -> {dst}");
                    assert_eq!(lines, *want_lines, "{src} -> {dst}");
                    assert_eq!(listing(&state), *want_list, "{src} -> {dst}");
                }
                (Err(MoveError::Diagnostics(d)), Err(detail)) => {
                    assert_eq!(
                        d.first().map(|d| d.detail.as_str()),
                        Some(*detail),
                        "{src} -> {dst}"
                    );
                }
                (got, _) => panic!("{src} -> {dst}: {got:?}"),
            }
        }
    }

    #[test]
    fn moving_onto_an_existing_module_is_refused() {
        let mut state = fixture();
        let got = move_objects(
            &mut state,
            None,
            &target("module.m.module.k"),
            &target("module.m"),
            "module.m",
            false,
            &mut |_| {},
        );
        assert!(
            matches!(got, Err(MoveError::DestinationModuleExists)),
            "{got:?}"
        );
    }

    #[test]
    fn dependencies_on_what_moved_are_forgotten() {
        let mut state = fixture();
        let n = match AbsResourceInstance::parse_str("terraform_data.n") {
            Ok(a) => a,
            Err(d) => panic!("{d:?}"),
        };
        let deps = |s: &State| s.object(&n).map(|o| o.dependencies.len());
        assert_eq!(deps(&state), Some(1));
        let moved = move_objects(
            &mut state,
            None,
            &target("terraform_data.a"),
            &target("terraform_data.b"),
            "terraform_data.b",
            false,
            &mut |_| {},
        );
        assert_eq!(moved.ok(), Some(1));
        assert_eq!(deps(&state), Some(0));
    }

    #[test]
    fn moves_into_another_state() {
        let mut from = fixture();
        let mut to = State::new_empty();
        let moved = move_objects(
            &mut from,
            Some(&mut to),
            &target("terraform_data.c"),
            &target("terraform_data.c"),
            "terraform_data.c",
            false,
            &mut |_| {},
        );
        assert_eq!(moved.ok(), Some(1));
        assert_eq!(listing(&to), ["terraform_data.c[0]", "terraform_data.c[1]"]);
        assert!(!listing(&from)
            .iter()
            .any(|a| a.starts_with("terraform_data.c")));
    }
}
