//! Runs the real `terraform` against terrace's bundled providers: builds
//! the provider binaries, points Terraform at them with a CLI
//! configuration of `dev_overrides` (so nothing is downloaded), and runs
//! commands in a scratch working directory. Tests skip, saying why, when
//! no `terraform` is on PATH.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The provider packages built and overridden, with their source
/// addresses.
pub const PROVIDERS: [(&str, &str); 4] = [
    ("terraform-provider-null", "hashicorp/null"),
    ("terraform-provider-random", "hashicorp/random"),
    ("terraform-provider-local", "hashicorp/local"),
    ("terraform-provider-kv", "terrace/kv"),
];

/// A scratch Terraform working directory with the CLI configuration.
pub struct Workspace {
    pub dir: PathBuf,
    cli_config: PathBuf,
}

/// The outcome of one Terraform command.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn output(&self) -> String {
        format!(
            "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Builds the provider binaries (a no-op when they are current) and
/// returns the directory holding them. Cargo runs once per test process:
/// every test shares that build (each cargo run takes the target
/// directory's lock, and may wait for other builds).
pub fn build_providers() -> Result<PathBuf, String> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT.get_or_init(build_providers_now).clone()
}

/// The environment variables (prefixes) cargo sets for a test process
/// about its package, none of which concerns building the providers.
const TEST_PACKAGE_VARIABLES: [&str; 7] = [
    "CARGO_PKG_",
    "CARGO_MANIFEST_",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_TARGET_TMPDIR",
    "OUT_DIR",
];

fn build_providers_now() -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.arg("build").arg("--quiet");
    // Cargo describes this test package to the test process in these
    // variables. Build scripts that read them (ring's does) record their
    // values, so passing them on would make this build's dependencies
    // differ from the ones built without them, and every switch between
    // the two rebuilds ring, rustls, terrace-sdk and the providers.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if TEST_PACKAGE_VARIABLES
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            command.env_remove(name.as_ref());
        }
    }
    for (package, _) in PROVIDERS {
        command.arg("-p").arg(package);
    }
    let output = command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo build failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    // This test runs from <target>/<profile>/deps; the binaries are in
    // <target>/<profile>.
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("cannot find the target directory")?
        .to_path_buf();
    for (package, _) in PROVIDERS {
        if !profile_dir.join(package).is_file() {
            return Err(format!(
                "{package} was not built in {}",
                profile_dir.display()
            ));
        }
    }
    Ok(profile_dir)
}

impl Workspace {
    /// A fresh directory with `main.tf`, and a CLI configuration that
    /// overrides every bundled provider with the binaries in `bin`.
    ///
    /// The same binaries are also offered in a filesystem mirror (as
    /// version `CARGO_PKG_VERSION`), the only installation method: with
    /// development overrides Terraform needs no `init`, but an `init` still
    /// looks every provider up, and this way it finds them offline.
    pub fn new(name: &str, bin: &Path, main_tf: &str) -> Workspace {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("terrace-e2e-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
        let mut overrides = String::new();
        for (_, source) in PROVIDERS {
            overrides.push_str(&format!(
                "    {source:?} = {:?}\n",
                bin.display().to_string()
            ));
        }
        let mirror = dir.join(".mirror");
        for (package, source) in PROVIDERS {
            let platform = mirror
                .join("registry.terraform.io")
                .join(source)
                .join(env!("CARGO_PKG_VERSION"))
                .join(terraform_platform());
            std::fs::create_dir_all(&platform)
                .unwrap_or_else(|e| panic!("creating {}: {e}", platform.display()));
            let link = platform.join(package);
            std::os::unix::fs::symlink(bin.join(package), &link)
                .unwrap_or_else(|e| panic!("linking {}: {e}", link.display()));
        }
        let cli_config = dir.join("terraform.rc");
        let text = format!(
            "provider_installation {{\n  dev_overrides {{\n{overrides}  }}\n  \
             filesystem_mirror {{\n    path = {:?}\n  }}\n}}\n",
            mirror.display().to_string()
        );
        std::fs::write(&cli_config, text).unwrap_or_else(|e| panic!("writing the CLI config: {e}"));
        let workspace = Workspace { dir, cli_config };
        workspace.write("main.tf", main_tf);
        workspace
    }

    pub fn write(&self, name: &str, text: &str) {
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Runs `terraform <args>` in the working directory, offline.
    pub fn terraform(&self, args: &[&str]) -> Run {
        let output = Command::new("terraform")
            .args(args)
            .arg("-no-color")
            .current_dir(&self.dir)
            .env("TF_CLI_CONFIG_FILE", &self.cli_config)
            .env("CHECKPOINT_DISABLE", "1")
            .env("TF_IN_AUTOMATION", "1")
            .env_remove("TF_LOG")
            .output()
            .unwrap_or_else(|e| panic!("running terraform: {e}"));
        Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Runs and requires the given exit code.
    pub fn expect(&self, args: &[&str], code: i32) -> Run {
        let run = self.terraform(args);
        assert_eq!(
            run.code,
            Some(code),
            "terraform {}:\n{}",
            args.join(" "),
            run.output()
        );
        run
    }

    /// The state as `terraform show -json` gives it.
    pub fn state(&self) -> serde_json::Value {
        let run = self.expect(&["show", "-json"], 0);
        serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("state JSON: {e}\n{}", run.stdout))
    }

    /// The attribute values of the managed resource at `address` in the
    /// root module, or `None` when it is not in state.
    pub fn resource(&self, address: &str) -> Option<serde_json::Value> {
        resource_in(&self.state(), address)
    }

    /// Every root module output's value, from one `terraform output`.
    pub fn outputs(&self) -> serde_json::Value {
        let run = self.expect(&["output", "-json"], 0);
        let outputs: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("outputs JSON: {e}\n{}", run.stdout));
        match outputs.as_object() {
            Some(outputs) => outputs
                .iter()
                .map(|(name, output)| (name.clone(), output["value"].clone()))
                .collect(),
            None => serde_json::Value::Null,
        }
    }
}

/// Terraform's name for this platform, e.g. `linux_amd64`.
fn terraform_platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    format!("{}_{arch}", std::env::consts::OS)
}

/// The attribute values of the managed resource at `address` in the root
/// module of `state` (as `terraform show -json` gives it).
pub fn resource_in(state: &serde_json::Value, address: &str) -> Option<serde_json::Value> {
    state["values"]["root_module"]["resources"]
        .as_array()?
        .iter()
        .find(|r| r["address"] == address)
        .map(|r| r["values"].clone())
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Sets up for a test, or reports terraform missing by the project's rule
/// (a failure under CI, a printed skip elsewhere).
pub fn setup() -> Option<PathBuf> {
    let version = terrace_testsupport::terraform_version()?;
    eprintln!("using {version}");
    match build_providers() {
        Ok(bin) => Some(bin),
        Err(message) => panic!("{message}"),
    }
}

/// The next command-line argument as a positive number, for the
/// benchmarks' `--name N` options; `what` names the option in the error.
pub fn positive_number(
    args: &mut impl Iterator<Item = String>,
    what: &str,
) -> Result<usize, String> {
    args.next()
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{what} needs a positive number"))
}
