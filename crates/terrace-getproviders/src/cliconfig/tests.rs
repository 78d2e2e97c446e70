use super::*;
use crate::source::{PackageMeta, Platform, SourceError};
use crate::testutil::TempDir;
use crate::version::Version;

fn env_with(home: Option<&Path>, cwd: &Path, vars: &[(&str, &str)]) -> CliEnv {
    CliEnv {
        home: home.map(Path::to_path_buf),
        cwd: cwd.to_path_buf(),
        vars: vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

fn parse_text(text: &str) -> (CliConfig, Vec<String>) {
    let env = env_with(None, Path::new("/"), &[("HOME", "/home/u")]);
    let (c, diags) = parse("/tmp/t.tfrc", text, &env);
    (c, diags.iter().map(render).collect())
}

fn render(d: &Diagnostic) -> String {
    if d.detail.is_empty() {
        d.summary.clone()
    } else {
        format!("{}: {}", d.summary, d.detail)
    }
}

fn p(s: &str) -> Provider {
    match Provider::parse_source_str(s) {
        Ok(p) => p,
        Err(d) => panic!("{d:?}"),
    }
}

#[test]
fn decodes_a_full_configuration() {
    let (c, diags) = parse_text(
        r#"
plugin_cache_dir = "$HOME/.terraform.d/plugin-cache"
disable_checkpoint = true
credentials "app.terraform.io" {
  token = "xxxxxx.atlasv1.zzzzzzzzzzzzz"
}
credentials_helper "example" {
  args = ["--a"]
}
host "example.com" {
  services = {
    "providers.v1" = "https://example.com/providers/"
  }
}
provider_installation {
  dev_overrides {
    "hashicorp/null" = "/home/dev/./null/"
  }
  filesystem_mirror {
    path    = "/usr/share/terraform/providers"
    include = ["example.com/*/*"]
  }
  network_mirror {
    url = "https://mirror.example.com/"
    download_retry_count = 3
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
"#,
    );
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        c.plugin_cache_dir.as_deref(),
        Some("/home/u/.terraform.d/plugin-cache")
    );
    assert!(c.disable_checkpoint);
    assert_eq!(
        c.credentials.get("app.terraform.io"),
        Some(&Some("xxxxxx.atlasv1.zzzzzzzzzzzzz".to_string()))
    );
    assert_eq!(
        c.credentials_helpers.get("example"),
        Some(&vec!["--a".to_string()])
    );
    assert_eq!(
        c.hosts["example.com"]
            .get("providers.v1")
            .map(String::as_str),
        Some("https://example.com/providers/")
    );
    let pi = &c.provider_installation[0];
    assert_eq!(
        pi.methods,
        vec![
            InstallationMethod {
                location: InstallationLocation::FilesystemMirror(
                    "/usr/share/terraform/providers".into()
                ),
                include: vec!["example.com/*/*".into()],
                exclude: vec![],
                download_retry_count: None,
            },
            InstallationMethod {
                location: InstallationLocation::NetworkMirror("https://mirror.example.com/".into()),
                include: vec![],
                exclude: vec![],
                download_retry_count: Some(3),
            },
            InstallationMethod {
                location: InstallationLocation::Direct,
                include: vec![],
                exclude: vec!["example.com/*/*".into()],
                download_retry_count: None,
            },
        ]
    );
    assert_eq!(
        c.dev_overrides().get(&p("hashicorp/null")),
        Some(&PathBuf::from("/home/dev/null"))
    );
}

/// Problems as Terraform 1.11.4 reported them for the same files.
#[test]
fn provider_installation_errors_match_terraform() {
    let cases: &[(&str, &[&str])] = &[
        (
            "provider_installation = {\n  direct {}\n}",
            &["Invalid provider_installation block: The provider_installation block at 1:1 must not be introduced with an equals sign."],
        ),
        (
            "provider_installation \"x\" {\n  filesystem_mirror { path = \"/tmp\" }\n}",
            &["Invalid provider_installation block: The provider_installation block at 1:1 must not have any labels."],
        ),
        (
            "provider_installation {\n  foo {}\n}",
            &["Invalid provider_installation method block: Unknown provider installation method \"foo\" at 2:3."],
        ),
        (
            "provider_installation {\n  filesystem_mirror {}\n}",
            &["Invalid provider_installation method block: Invalid filesystem_mirror block at 1:1: \"path\" argument is required."],
        ),
        (
            "provider_installation {\n  network_mirror {}\n}",
            &["Invalid provider_installation method block: Invalid network_mirror block at 1:1: \"url\" argument is required."],
        ),
        (
            "provider_installation {\n  filesystem_mirror { path = \"/tmp/tfx/mirror\" }\n  dev_overrides { \"hashicorp/null\" = \"/tmp\" }\n}",
            &["Invalid provider_installation method block: The dev_overrides block at at 3:3 must appear before all other installation methods, because development overrides always have the highest priority."],
        ),
        (
            "provider_installation {\n  dev_overrides { \"not valid!\" = \"/tmp\" }\n  filesystem_mirror { path = \"/tmp/tfx/mirror\" }\n}",
            &["Invalid provider installation dev overrides: The entry \"not valid!\" in 1:1 is not a valid provider source string.\n\nInvalid provider type: Invalid provider type \"not valid!\" in source \"not valid!\": must contain only letters, digits, and dashes, and may not use leading or trailing dashes\""],
        ),
        (
            "provider_installation {\n  filesystem_mirror {\n    path = [\"a\"]\n  }\n}",
            &["Invalid provider_installation method block: Invalid filesystem_mirror block at 1:1: At 3:12: root.path: unknown type for string *ast.ListType."],
        ),
        (
            "provider_installation {\n  filesystem_mirror {\n    path = {a = 1}\n  }\n}",
            &["Invalid provider_installation method block: Invalid filesystem_mirror block at 1:1: At 3:13: root.path: unknown type for string *ast.ObjectList."],
        ),
        (
            "provider_installation {\n  filesystem_mirror {\n    path = \"/tmp/tfx/mirror\"\n    include = \"hashicorp/foo\"\n  }\n}",
            &["Invalid provider_installation method block: Invalid filesystem_mirror block at 1:1: At 4:15: unknown slice type: *ast.LiteralType."],
        ),
        (
            "provider_installation {\n  filesystem_mirror {\n    path = \"/tmp/tfx/mirror\"\n    include = [{a=1}]\n  }\n}",
            &["Invalid provider_installation method block: Invalid filesystem_mirror block at 1:1: At 4:16: root.include[0]: unknown type for string *ast.ObjectType."],
        ),
        (
            "provider_installation {\n  filesystem_mirror = {\n    path = \"/tmp/tfx/mirror\"\n  }\n}",
            &["Invalid provider_installation method block: The items inside the provider_installation block at 1:1 must all be blocks."],
        ),
        (
            "provider_installation {\n  filesystem_mirror { path = \"/tmp/tfx/mirror\" \n}",
            &["Error parsing /tmp/t.tfrc: At 3:2: object expected closing RBRACE got: EOF"],
        ),
    ];
    for (text, want) in cases {
        let (_, got) = parse_text(text);
        if want[0].starts_with("Error parsing") {
            // HCL 1 counts the end of the file one column further on.
            assert_eq!(got.len(), 1, "{text}");
            assert!(
                got[0].ends_with("object expected closing RBRACE got: EOF"),
                "{got:?}"
            );
            continue;
        }
        assert_eq!(got, *want, "{text}");
    }
}

#[test]
fn numbers_and_heredocs_are_strings() {
    let (c, diags) = parse_text(
        "provider_installation {\n  filesystem_mirror {\n    path = 5\n  }\n}\nplugin_cache_dir = <<EOT\n/x\nEOT\n",
    );
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        c.provider_installation[0].methods[0].location,
        InstallationLocation::FilesystemMirror("5".into())
    );
    assert_eq!(c.plugin_cache_dir.as_deref(), Some("/x\n"));
}

#[test]
fn validation_messages() {
    let dir = TempDir::new("clivalidate");
    let missing = dir.path().join("nope");
    let text = format!(
        "plugin_cache_dir = \"{}\"\ncredentials \"bad host!\" {{\n  token = \"x\"\n}}\nprovider_installation {{\n  direct {{}}\n}}\nprovider_installation {{\n  direct {{}}\n}}\n",
        missing.display()
    );
    let (c, diags) = parse_text(&text);
    assert!(diags.is_empty());
    let got: Vec<String> = c.validate().iter().map(render).collect();
    assert_eq!(
        got,
        vec![
            "The credentials \"bad host!\" block has an invalid hostname: idna: disallowed rune U+0020".to_string(),
            "No more than one provider_installation block may be specified".to_string(),
            format!(
                "The specified plugin cache dir {0} cannot be opened: stat {0}: no such file or directory",
                missing.display()
            ),
        ]
    );
}

#[test]
fn json_files() {
    let env = env_with(None, Path::new("/"), &[]);
    let (c, diags) = parse(
        "/x/a.tfrc.json",
        r#"{"plugin_cache_dir": "/cache", "provider_installation": {"filesystem_mirror": {"path": "/m", "include": ["a/b"]}, "direct": {"exclude": ["a/b"]}}}"#,
        &env,
    );
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(c.plugin_cache_dir.as_deref(), Some("/cache"));
    assert_eq!(c.provider_installation[0].methods.len(), 2);
    assert_eq!(
        c.provider_installation[0].methods[0].location,
        InstallationLocation::FilesystemMirror("/m".into())
    );
}

#[test]
fn env_expansion_is_gos() {
    let env = env_with(None, Path::new("/"), &[("A", "x"), ("B_1", "y")]);
    for (input, want) in [
        ("$A/$B_1", "x/y"),
        ("${A}z", "xz"),
        ("$MISSING-", "-"),
        ("${}", ""),
        ("${A", "A"),
        ("a$", "a$"),
        ("$-", ""),
        ("$ x", "$ x"),
    ] {
        assert_eq!(env.expand(input), want, "{input}");
    }
}

#[test]
fn clean_paths() {
    for (input, want) in [
        ("/a/./b/../c/", "/a/c"),
        ("a//b", "a/b"),
        ("../x", "../x"),
        ("/..", "/"),
        ("", "."),
    ] {
        assert_eq!(clean_path(input), PathBuf::from(want));
    }
}

#[test]
fn location_rules() {
    let home = TempDir::new("clihome");
    let cwd = TempDir::new("clicwd");
    // Nothing anywhere: no configuration and no complaint.
    let env = env_with(Some(home.path()), cwd.path(), &[]);
    let (c, diags) = load(&env);
    assert_eq!(c, CliConfig::default());
    assert!(diags.is_empty());

    // ~/.terraformrc and ~/.terraform.d/*.tfrc are both read (and their
    // provider_installation blocks then conflict).
    home.write_mode(
        ".terraformrc",
        b"provider_installation {\n  direct {}\n}\n",
        0o644,
    );
    home.write_mode(
        ".terraform.d/b.tfrc",
        b"provider_installation {\n  filesystem_mirror { path = \"/m\" }\n}\n",
        0o644,
    );
    home.write_mode(".terraform.d/ignored.txt", b"not = [config", 0o644);
    let (c, diags) = load(&env);
    assert_eq!(c.provider_installation.len(), 2);
    assert_eq!(
        c.provider_installation[0].methods[0].location,
        InstallationLocation::Direct
    );
    assert_eq!(
        diags.iter().map(render).collect::<Vec<_>>(),
        ["No more than one provider_installation block may be specified"]
    );

    // TF_CLI_CONFIG_FILE replaces both.
    let file = cwd.write_mode("cli.tfrc", b"plugin_cache_dir = \"/\"\n", 0o644);
    let env2 = env_with(
        Some(home.path()),
        cwd.path(),
        &[("TF_CLI_CONFIG_FILE", &file.to_string_lossy())],
    );
    let (c, diags) = load(&env2);
    assert!(diags.is_empty(), "{diags:?}");
    assert!(c.provider_installation.is_empty());
    assert_eq!(c.plugin_cache_dir.as_deref(), Some("/"));

    // ... and must exist.
    let env3 = env_with(
        Some(home.path()),
        cwd.path(),
        &[("TF_CLI_CONFIG_FILE", "/nonexistent/cli.tfrc")],
    );
    let (_, diags) = load(&env3);
    assert_eq!(
        diags.iter().map(render).collect::<Vec<_>>(),
        ["Unable to open CLI configuration file: The CLI configuration file at \"/nonexistent/cli.tfrc\" does not exist."]
    );
    assert_eq!(diags[0].severity, terrace_syntax::Severity::Warning);

    // The environment wins for the plugin cache.
    let env4 = env_with(
        Some(home.path()),
        cwd.path(),
        &[
            ("TF_CLI_CONFIG_FILE", &file.to_string_lossy()),
            ("TF_PLUGIN_CACHE_DIR", &cwd.path().to_string_lossy()),
            ("TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE", "1"),
        ],
    );
    let (c, _) = load(&env4);
    assert_eq!(
        c.plugin_cache_dir,
        Some(cwd.path().to_string_lossy().into_owned())
    );
    assert!(c.plugin_cache_may_break_dependency_lock_file);
}

#[test]
fn implied_dirs() {
    let env = env_with(Some(Path::new("/home/u")), Path::new("/work"), &[]);
    let dirs: Vec<String> = implied_local_mirror_dirs(&env)
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    if cfg!(all(unix, not(target_os = "macos"))) {
        assert_eq!(
            dirs,
            [
                "/work/terraform.d/plugins",
                "/home/u/.terraform.d/plugins",
                "/home/u/.local/share/terraform/plugins",
                "/usr/local/share/terraform/plugins",
                "/usr/share/terraform/plugins",
            ]
        );
        let env = env_with(
            Some(Path::new("/home/u")),
            Path::new("/work"),
            &[
                ("XDG_DATA_HOME", "/xdg"),
                ("XDG_DATA_DIRS", "/a:relative:/b"),
            ],
        );
        let dirs: Vec<String> = implied_local_mirror_dirs(&env)
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        assert_eq!(
            &dirs[2..],
            [
                "/xdg/terraform/plugins",
                "/a/terraform/plugins",
                "/b/terraform/plugins"
            ]
        );
    }
}

/// A stand-in for the network sources: names itself, has nothing.
struct NoNetwork;

struct Named(String);

impl Source for Named {
    fn available_versions(
        &self,
        provider: &Provider,
    ) -> Result<(Vec<Version>, Vec<String>), SourceError> {
        Err(SourceError::ProviderNotFound {
            provider: provider.clone(),
            sources: vec![self.0.clone()],
        })
    }
    fn package_meta(
        &self,
        provider: &Provider,
        _: &Version,
        _: &Platform,
    ) -> Result<PackageMeta, SourceError> {
        Err(SourceError::ProviderNotFound {
            provider: provider.clone(),
            sources: vec![self.0.clone()],
        })
    }
    fn for_display(&self, _: &Provider) -> String {
        self.0.clone()
    }
}

impl RemoteSources for NoNetwork {
    fn registry(&self, _: Option<i64>) -> Box<dyn Source> {
        Box::new(Named("registry".into()))
    }
    fn network_mirror(&self, url: &str, _: Option<i64>) -> Box<dyn Source> {
        Box::new(Named(url.into()))
    }
}

#[test]
fn explicit_source_follows_the_block() {
    let (c, _) = parse_text(
        "provider_installation {\n  filesystem_mirror {\n    path = \"/m\"\n    include = [\"example.com/*/*\"]\n  }\n  network_mirror {\n    url = \"http://insecure.example.com/\"\n  }\n  network_mirror {\n    url = \"https://mirror.example.com/\"\n    exclude = [\"a/b/c/d\"]\n  }\n  direct {\n    exclude = [\"example.com/*/*\"]\n  }\n}\n",
    );
    let env = env_with(None, Path::new("/"), &[]);
    let (src, diags) = provider_source(&c, &env, &NoNetwork);
    assert_eq!(
        diags.iter().map(render).collect::<Vec<_>>(),
        [
            "Invalid URL for provider installation source: Cannot use \"http://insecure.example.com/\" as a URL for a network provider mirror: the mirror must be at an https: URL.",
            "Invalid provider source exclusion patterns: CLI config specifies invalid provider exclusion patterns: invalid provider matching pattern \"a/b/c/d\": must have either two or three slash-separated segments.",
        ]
    );
    assert_eq!(src.for_display(&p("example.com/a/b")), "/m");
    assert_eq!(src.for_display(&p("hashicorp/aws")), "registry");
}

#[test]
fn implicit_source_prefers_local_copies() {
    let home = TempDir::new("implicit-home");
    let cwd = TempDir::new("implicit-cwd");
    cwd.write_mode(
        "terraform.d/plugins/registry.terraform.io/hashicorp/null/1.0.0/linux_amd64/terraform-provider-null",
        b"",
        0o755,
    );
    let env = env_with(
        Some(home.path()),
        cwd.path(),
        &[("XDG_DATA_DIRS", "/nonexistent")],
    );
    let (src, diags) = provider_source(&CliConfig::default(), &env, &NoNetwork);
    assert!(diags.is_empty());
    let plugins = cwd.path().join("terraform.d/plugins").display().to_string();
    // The registry is not consulted for what a local directory has.
    assert_eq!(src.for_display(&p("hashicorp/null")), plugins);
    assert_eq!(
        src.for_display(&p("hashicorp/aws")),
        format!("{plugins}\nregistry")
    );
}
