//! `init`'s last phase: the providers every module and the state need,
//! selected against the lock file, installed and locked.

use super::*;

impl Init {
    // ----- providers -----

    pub(super) fn get_providers(
        &mut self,
        config: &terrace_config::loader::Config,
    ) -> Result<(), Diagnostics> {
        let mut diags: Diagnostics = Vec::new();
        let dev = self.cli.dev_overrides();
        if !dev.is_empty() {
            let lines: Vec<String> = dev
                .iter()
                .map(|(p, dir)| format!(" - {} in {}", p.for_display(), dir.display()))
                .collect();
            self.diags.push(Diagnostic::warning(
                "Provider development overrides are in effect",
                format!(
                    "The following provider development overrides are set in the CLI configuration:\n{}\n\nSkip {} init when using provider development overrides. It is not necessary and may error unexpectedly.",
                    lines.join("\n"),
                    PRODUCT_COMMAND
                ),
            ));
        }
        let (reqs_tree, more) = requirements_by_module(config);
        diags.extend(more);
        let mut reqs: Requirements = reqs_tree.merged();
        match crate::commands::providers::working_state_providers(Path::new("."), &data_dir()) {
            Ok(state) => {
                for p in state {
                    reqs.entry(p).or_default();
                }
            }
            Err(d) => diags.push(d),
        }
        for p in reqs.keys() {
            if p.is_legacy() {
                diags.push(Diagnostic::error(
                    "Invalid legacy provider address",
                    format!("This configuration or its associated state refers to the unqualified provider {}.\n\nYou must complete the Terraform 0.13 upgrade process before upgrading to later versions.", quote(p.type_name())),
                ));
            }
        }
        let previous = match load_locks() {
            Ok(l) => l,
            Err(d) => {
                diags.extend(d);
                return Err(diags);
            }
        };
        if diags.iter().any(Diagnostic::is_error) {
            return Err(diags);
        }
        self.keep_warnings(diags);
        if self.o.upgrade && self.o.lockfile_readonly {
            // Terraform 1.11 reports this conflict twice.
            let conflict =
                Diagnostic::error("The -upgrade flag conflicts with -lockfile=readonly.", "");
            return Err(vec![conflict.clone(), conflict]);
        }

        let registry = registry_config(&self.cli, &self.env)?;
        let (source, source_diags) = if self.o.plugin_dirs.is_empty() {
            cliconfig::provider_source(&self.cli, &self.env, &HttpRemoteSources(registry.clone()))
        } else {
            (
                cliconfig::plugin_dir_source(&self.o.plugin_dirs),
                Vec::new(),
            )
        };
        if source_diags.iter().any(Diagnostic::is_error) {
            return Err(source_diags);
        }
        let installer = provider_installer(&self.cli, source, &registry);
        let mut events = InitEvents {
            color: self.o.color,
            json: self.o.json,
            failures: Vec::new(),
            warnings: Vec::new(),
            incomplete: BTreeSet::new(),
            third_party_signed: false,
        };
        let mode = if self.o.upgrade {
            InstallMode::Upgrade
        } else {
            InstallMode::NewProvidersOnly
        };
        let (new_locks, errors) =
            installer.ensure_provider_versions(&previous, &reqs, mode, &mut events);
        self.keep_warnings(events.warnings.clone());
        if !errors.is_empty() {
            return Err(events.failures);
        }
        if events.third_party_signed && !self.o.json {
            say("Partner and community providers are signed by their developers.\nIf you'd like to know more about provider signing, you can read about it here:\nhttps://developer.hashicorp.com/terraform/cli/plugins/signing");
        }
        // Hashes written out of order are put in order, as terraform
        // rewrites such a file (and says it changed it).
        if new_locks.same_selections(&previous) && previous.written_in_order() {
            return Ok(());
        }
        if self.o.lockfile_readonly {
            let old: BTreeSet<&Provider> = previous.providers().map(|l| &l.provider).collect();
            let new: BTreeSet<&Provider> = new_locks.providers().map(|l| &l.provider).collect();
            if old != new {
                return Err(vec![Diagnostic::error(
                    "Provider dependency changes detected",
                    format!("Changes to the required provider dependencies were detected, but the lock file is read-only. To use and record these requirements, run \"{} init\" without the \"-lockfile=readonly\" flag.", PRODUCT_COMMAND),
                )]);
            }
            self.diags.push(Diagnostic::warning(
                "Provider lock file not updated",
                format!("Changes to the provider selections were detected, but not saved in the .terraform.lock.hcl file. To record these selections, run \"{} init\" without the \"-lockfile=readonly\" flag.", PRODUCT_COMMAND),
            ));
            return Ok(());
        }
        if !events.incomplete.is_empty() {
            let list: Vec<String> = events.incomplete.iter().cloned().collect();
            self.diags.push(Diagnostic::warning(
                "Incomplete lock file information for providers",
                format!(
                    "Due to your customized provider installation methods, {t} was forced to calculate lock file checksums locally for the following providers:\n  - {}\n\nThe current .terraform.lock.hcl file only includes checksums for {}, so {t} running on another platform will fail to install these providers.\n\nTo calculate additional checksums for another platform, run:\n  {p} providers lock -platform=linux_amd64\n(where linux_amd64 is the platform to generate)",
                    list.join("\n  - "),
                    terrace_getproviders::source::Platform::current(),
                    t = PRODUCT_TITLE,
                    p = PRODUCT_COMMAND
                ),
            ));
        }
        if previous.is_empty() {
            self.message("lock_info", &format!(
                "{t} has created a lock file [bold].terraform.lock.hcl[reset] to record the provider\nselections it made above. Include this file in your version control repository\nso that {t} can guarantee to make the same selections by default when\nyou run \"{p} init\" in the future.",
                t = PRODUCT_TITLE,
                p = PRODUCT_COMMAND
            ));
        } else {
            self.message("dependencies_lock_changes_info", &format!(
                "{} has made some changes to the provider dependency selections recorded\nin the .terraform.lock.hcl file. Review those changes and commit them to your\nversion control system if they represent changes you intended to make.",
                PRODUCT_TITLE
            ));
        }
        let save = new_locks.save(Path::new(LOCK_FILE_NAME));
        if save.iter().any(Diagnostic::is_error) {
            return Err(save);
        }
        Ok(())
    }
}

/// The installer `init` uses: into the data directory, through the shared
/// plugin cache when one is configured.
fn provider_installer(
    cli: &CliConfig,
    source: MultiSource,
    registry: &RegistryConfig,
) -> Installer {
    let mut installer = Installer::new(
        ProviderCacheDir::new(data_dir().join("providers")),
        Box::new(source),
    );
    if let Some(dir) = cli.plugin_cache_dir.as_deref().filter(|d| !d.is_empty()) {
        installer.set_global_cache_dir(
            ProviderCacheDir::new(dir),
            cli.plugin_cache_may_break_dependency_lock_file,
        );
    }
    installer.set_builtin_provider_types(vec!["terraform".to_string()]);
    installer.set_fetcher(Box::new(HttpFetcher(Http::new(&registry.http))));
    installer
}

/// `.terraform/plugin_path`: the `-plugin-dir` directories as a JSON list
/// (Go's indented form). Without `-plugin-dir` an earlier list is left in
/// place (and, as in Terraform, not used by `init`).
pub(super) fn store_plugin_path(dirs: &[PathBuf]) -> Result<(), String> {
    if dirs.is_empty() {
        return Ok(());
    }
    let path = data_dir().join("plugin_path");
    let items: Vec<String> = dirs
        .iter()
        .map(|d| format!("  {}", serde_json::Value::String(d.display().to_string())))
        .collect();
    let text = format!("[\n{}\n]", items.join(",\n"));
    std::fs::create_dir_all(data_dir()).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| e.to_string())
}

/// Provider installation lines and the diagnostics of failures.
struct InitEvents {
    color: bool,
    /// `-json`: the stream's wording, which differs from the text's.
    json: bool,
    failures: Diagnostics,
    warnings: Diagnostics,
    /// Providers whose lock entries only have locally computed hashes.
    incomplete: BTreeSet<String>,
    third_party_signed: bool,
}

impl InitEvents {
    /// A provider installation step: `text` for the terminal, `stream`
    /// for `-json` (worded differently there).
    fn line(&self, text: &str, stream: &str) {
        if self.json {
            crate::json_ui::log(stream);
        } else {
            say(text);
        }
    }
}

impl InstallerEvents for InitEvents {
    fn pending_providers(&mut self, _reqs: &Requirements) {
        if self.json {
            crate::json_ui::init_output(
                "initializing_provider_plugin_message",
                "Initializing provider plugins...",
            );
            return;
        }
        say(&colorize(
            "[reset][bold]Initializing provider plugins...",
            self.color,
        ));
    }
    fn builtin_provider_available(&mut self, provider: &Provider) {
        self.line(
            &format!(
                "- {} is built in to {}",
                provider.for_display(),
                PRODUCT_TITLE
            ),
            &format!(
                "{} is built in to {}",
                provider.for_display(),
                PRODUCT_TITLE
            ),
        );
    }
    fn query_packages_begin(
        &mut self,
        provider: &Provider,
        constraints: &VersionConstraints,
        locked: bool,
    ) {
        let p = provider.for_display();
        if locked {
            self.line(
                &format!("- Reusing previous version of {p} from the dependency lock file"),
                &format!("{p}: Reusing previous version from the dependency lock file"),
            );
        } else if constraints.is_empty() {
            self.line(
                &format!("- Finding latest version of {p}..."),
                &format!("{p}: Finding latest version..."),
            );
        } else {
            let wanted = quote(&constraints.to_string());
            self.line(
                &format!("- Finding {p} versions matching {wanted}..."),
                &format!(
                    "Finding matching versions for provider: {p}, version_constraint: {wanted}"
                ),
            );
        }
    }
    fn query_packages_warning(&mut self, provider: &Provider, warnings: &[String]) {
        let lines: Vec<String> = warnings.iter().map(|w| format!("- {w}")).collect();
        self.warnings.push(Diagnostic::warning(
            "Additional provider information from registry",
            format!(
                "The remote registry returned warnings for {provider}:\n{}",
                lines.join("\n")
            ),
        ));
    }
    fn provider_already_installed(&mut self, provider: &Provider, version: &Version) {
        let p = provider.for_display();
        self.line(
            &format!("- Using previously-installed {p} v{version}"),
            &format!("{p} v{version}: Using previously-installed provider version"),
        );
    }
    fn fetch_package_begin(
        &mut self,
        provider: &Provider,
        version: &Version,
        _location: &PackageLocation,
        _in_cache: bool,
    ) {
        let p = provider.for_display();
        // Neither the text nor the stream says whether the package goes
        // to the shared cache (terraform 1.11 does not).
        self.line(
            &format!("- Installing {p} v{version}..."),
            &format!("Installing provider version: {p} v{version}..."),
        );
    }
    fn fetch_package_success(
        &mut self,
        provider: &Provider,
        version: &Version,
        _dir: &Path,
        auth: Option<&PackageAuthenticationResult>,
    ) {
        let (describe, key) = match auth {
            Some(a) => {
                if a.signed() && a.key_id.as_deref() != Some(HASHICORP_KEY_ID) {
                    self.third_party_signed = true;
                }
                let key = match (&a.key_id, a.signed()) {
                    (Some(k), true) => colorize(
                        &format!(", key ID [reset][bold]{k}[reset]"),
                        self.color && !self.json,
                    ),
                    _ => String::new(),
                };
                (a.describe(), key)
            }
            None => ("unauthenticated", String::new()),
        };
        let p = provider.for_display();
        self.line(
            &format!("- Installed {p} v{version} ({describe}{key})"),
            &format!("Installed provider version: {p} v{version} ({describe}{key})"),
        );
    }
    fn link_from_cache_begin(&mut self, provider: &Provider, version: &Version, _cache: &Path) {
        let p = provider.for_display();
        self.line(
            &format!("- Using {p} v{version} from the shared cache directory"),
            &format!("{p} v{version}: Using from the shared cache directory"),
        );
    }
    fn providers_lock_updated(
        &mut self,
        provider: &Provider,
        _version: &Version,
        local: &[Hash],
        signed: &[Hash],
        prior: &[Hash],
    ) {
        // Only locally computed checksums (and nothing different recorded
        // before): other platforms will not be able to install it.
        if !signed.is_empty() {
            return;
        }
        if !prior.is_empty() && local != prior {
            return;
        }
        self.incomplete.insert(provider.for_display());
    }
    fn failure(&mut self, provider: &Provider, error: &ProviderError) {
        self.failures.push(error.to_diagnostic(provider));
    }
}
