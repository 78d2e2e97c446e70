//! `init`'s first phase: the backend, its settings and the state moved
//! when they change.

use super::*;

impl Init {
    // ----- backend -----

    /// The backend: `Ok(Some(message))` when it was (re)configured. A
    /// change of the backend configuration moves the state as terraform
    /// moves it (asking first, unless `-force-copy`), or with
    /// `-reconfigure` leaves it where it is; a backend type terrace does
    /// not implement is refused by name.
    pub(super) fn init_backend(&mut self, module: &Module) -> Result<Option<String>, Diagnostics> {
        use crate::backend_config::{
            block_config, migrate_state, read_saved_backend, setting_from_cli, unsupported_backend,
            with_settings, write_saved_backend, MigrateOptions, WorkingBackend,
        };
        use terrace_states::backend::schema;
        let (encryption, encryption_warnings) =
            crate::encryption_config::load_in_dir(Path::new("."), module, &self.o.variables)?;
        self.keep_warnings(encryption_warnings);
        let codec = encryption.state();
        let state_file = data_dir().join("terraform.tfstate");
        let saved = read_saved_backend(&state_file)?;
        if module.cloud.is_some() {
            return Err(vec![unsupported_backend("cloud")]);
        }
        let migrate = MigrateOptions {
            force_copy: self.o.force_copy,
            input: self.o.input,
        };
        let root = Path::new(".");
        // Where the state is now: the recorded backend, or the default
        // local one. A recorded backend of a type terrace does not
        // implement cannot be read, so nothing can be migrated from it.
        let current: Result<WorkingBackend, Diagnostics> = match &saved {
            None => Ok(WorkingBackend::default()),
            Some(s) => s.working(),
        };
        let Some(backend) = &module.backend else {
            if !self.o.backend_configs.is_empty() {
                self.diags.push(Diagnostic::warning(
                    "Missing backend configuration",
                    "-backend-config was used without a \"backend\" block in the configuration.\n\nIf you intended to override the default local backend configuration,\nno action is required, but you may add an explicit backend block to your\nconfiguration to clear this warning:\n\nterraform {\n  backend \"local\" {}\n}\n\nHowever, if you intended to override a defined backend, please verify that\nthe backend configuration is present and valid.\n",
                ));
            }
            let Some(saved) = saved else {
                return Ok(None);
            };
            if !self.o.reconfigure && !self.o.migrate_state {
                return Err(vec![backend_changed()]);
            }
            say(&format!(
                "{PRODUCT_TITLE} has detected you're unconfiguring your previously set {} backend.",
                quote(&saved.type_name)
            ));
            if self.o.migrate_state {
                let from = current?;
                migrate_state(
                    root,
                    &data_dir(),
                    &from,
                    &WorkingBackend::default(),
                    &migrate,
                    &codec,
                )?;
            }
            std::fs::remove_file(&state_file).map_err(|e| {
                vec![Diagnostic::error(
                    "Failed to clear the backend configuration",
                    format!("Error removing {}: {e}.", state_file.display()),
                )]
            })?;
            return Ok(Some(self.c(&format!(
                "[reset][green]\n\nSuccessfully unset the backend {}. {PRODUCT_TITLE} will now operate locally.",
                quote(&saved.type_name)
            ))));
        };
        let type_name = backend.type_name.clone();
        if !schema::IMPLEMENTED.contains(&type_name.as_str()) {
            return Err(vec![
                unsupported_backend(&type_name).with_subject(backend.type_range.clone())
            ]);
        }
        let (block, mut diags) = block_config(backend);
        let block_hash = schema::config_hash(&type_name, &block);
        let mut overrides = Vec::new();
        for item in &self.o.backend_configs {
            match item.split_once('=') {
                Some((name, value)) => match setting_from_cli(&type_name, name, value) {
                    Ok(setting) => overrides.push(setting),
                    Err(d) => diags.push(*d),
                },
                None => match backend_config_file(&type_name, item) {
                    Ok(values) => overrides.extend(values),
                    Err(more) => diags.extend(more),
                },
            }
        }
        if diags.iter().any(Diagnostic::is_error) {
            return Err(diags);
        }
        let config = with_settings(&type_name, Some(&block), &overrides);
        let effective = if type_name == "local" {
            WorkingBackend::Local(crate::backend_config::LocalSettings::from_value(&config))
        } else {
            WorkingBackend::Remote {
                type_name: type_name.clone(),
                config,
            }
        };
        // The new backend must configure (a missing bucket, a bad URL)
        // before anything is recorded or moved.
        effective.open(root, &data_dir(), Default::default(), &codec)?;
        let unchanged = saved.as_ref().is_some_and(|s| {
            s.type_name == type_name
                && s.hash == u64::from(block_hash)
                && s.working()
                    .is_ok_and(|w| w.config_value().raw_equals(&effective.config_value()))
        });
        if unchanged && !self.o.reconfigure {
            return Ok(None);
        }
        if !self.o.reconfigure {
            match (&saved, current) {
                // First configuration: the default local state moves in.
                (None, Ok(from)) => {
                    let copied =
                        migrate_state(root, &data_dir(), &from, &effective, &migrate, &codec)?;
                    if copied {
                        empty_default_state()?;
                    }
                }
                (Some(_), Ok(from)) if self.o.migrate_state => {
                    say(&self.c(&format!("[reset][bold]Backend configuration changed![reset]\n\n{PRODUCT_TITLE} has detected that the configuration specified for the backend\nhas changed. {PRODUCT_TITLE} will now check for existing state in the backends.\n")));
                    migrate_state(root, &data_dir(), &from, &effective, &migrate, &codec)?;
                }
                (Some(_), Err(diags)) if self.o.migrate_state => return Err(diags),
                _ => return Err(vec![backend_changed()]),
            }
        }
        write_saved_backend(&state_file, &effective, block_hash).map_err(|e| {
            vec![Diagnostic::error(
                "Failed to save the backend configuration",
                format!("Error writing {}: {e}.", state_file.display()),
            )]
        })?;
        Ok(Some(self.c(&format!(
            "[reset][green]\nSuccessfully configured the backend {}! {} will automatically\nuse this backend unless the backend configuration changes.",
            quote(&type_name),
            PRODUCT_TITLE
        ))))
    }
}

/// After the default local state moved into a newly configured backend:
/// `terraform.tfstate` is emptied and its content kept beside it as
/// `terraform.tfstate.backup`, as terraform leaves them.
fn empty_default_state() -> Result<(), Diagnostics> {
    let path = Path::new("terraform.tfstate");
    let failed = |e: std::io::Error| {
        vec![Diagnostic::error(
            "Failed to clear the previous local state",
            format!("Error emptying {}: {e}.", path.display()),
        )]
    };
    let bytes = std::fs::read(path).map_err(failed)?;
    std::fs::write("terraform.tfstate.backup", bytes).map_err(failed)?;
    std::fs::write(path, b"").map_err(failed)
}

fn backend_changed() -> Diagnostic {
    Diagnostic::error(
        "Backend configuration changed",
        format!(
            "A change in the backend configuration has been detected, which may require migrating existing state.\n\nIf you wish to attempt automatic migration of the state, use \"{p} init -migrate-state\".\nIf you wish to store the current configuration with no changes to the state, use \"{p} init -reconfigure\".",
            p = PRODUCT_COMMAND
        ),
    )
}

/// A `-backend-config` file: HCL attributes for the backend's settings.
fn backend_config_file(
    type_name: &str,
    path: &str,
) -> Result<Vec<(String, terrace_value::Value)>, Diagnostics> {
    let (file, mut diags) = parse_config_file(Path::new(path), path);
    let Some(file) = file else {
        return Err(diags);
    };
    let body = terrace_config::body::Body::from_file(&file);
    let (out, more) = crate::backend_config::decode_backend_body(type_name, &body);
    diags.extend(more);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    /// The hash terraform 1.11.4 recorded for `backend "local" {}`.
    #[test]
    fn backend_hash_is_terraforms() {
        assert_eq!(
            terrace_states::backend::schema::config_hash(
                "local",
                &crate::backend_config::LocalSettings::default().to_value()
            ),
            666019178
        );
    }
}
