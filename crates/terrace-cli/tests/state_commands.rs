//! The state-facing commands (`output`, `show`, `state list|show|mv|rm|
//! pull|push`, `taint`, `untaint`, `workspace`) run as the built binary on
//! a state written with terrace-states: `terraform_data` resources with
//! `count`, `for_each`, a module, a sensitive attribute, and outputs of
//! every kind, including a sensitive one. Each test checks the output and
//! the state left behind; expected texts are what terraform 1.11.4 prints
//! for the same state. Where terraform is on PATH, `compare_with_terraform`
//! also runs both tools on copies of the state and compares their output
//! byte for byte (and, for commands that write, the state files they
//! leave); otherwise it skips as the project's rule for missing tools says
//! (a failure under CI).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The fixture, compact; written out in the state file layout by
/// terrace-states.
const FIXTURE: &str = r#"{"version":4,"terraform_version":"1.11.4","serial":9,
"lineage":"b22d6c49-e101-5309-eb2b-128ae9483097",
"outputs":{
 "bool":{"value":true,"type":"bool"},
 "list":{"value":[1,"a",true],"type":["tuple",["number","string","bool"]]},
 "map":{"value":{"a":"x","bb":"y"},"type":["map","string"]},
 "ml":{"value":"line1\nline2\n","type":"string"},
 "num":{"value":42,"type":"number"},
 "obj":{"value":{"a":1,"b":"two","c":[1,2]},"type":["object",{"a":"number","b":"string","c":["tuple",["number","number"]]}]},
 "secret":{"value":"hunter2","type":"string","sensitive":true},
 "str":{"value":"hello","type":"string"}},
"resources":[
 {"mode":"managed","type":"terraform_data","name":"a","provider":"provider[\"terraform.io/builtin/terraform\"]",
  "instances":[{"schema_version":0,"attributes":{"id":"2ff24ea1-2265-798c-6937-08e46f9662e1","input":{"value":"hello","type":"string"},"output":{"value":"hello","type":"string"},"triggers_replace":null},"sensitive_attributes":[]}]},
 {"mode":"managed","type":"terraform_data","name":"c","provider":"provider[\"terraform.io/builtin/terraform\"]",
  "instances":[
   {"index_key":0,"schema_version":0,"attributes":{"id":"af21462c-3bd7-d3a8-593f-7ee3806dfcf3","input":{"value":{"list":[1,2,"x"],"n":0,"nested":{"deep":true}},"type":["object",{"list":["tuple",["number","number","string"]],"n":"number","nested":["object",{"deep":"bool"}]}]},"output":{"value":{"list":[1,2,"x"],"n":0,"nested":{"deep":true}},"type":["object",{"list":["tuple",["number","number","string"]],"n":"number","nested":["object",{"deep":"bool"}]}]},"triggers_replace":null},"sensitive_attributes":[]},
   {"index_key":1,"schema_version":0,"attributes":{"id":"16a48304-88cc-d469-a089-385f14faee13","input":{"value":"one","type":"string"},"output":{"value":"one","type":"string"},"triggers_replace":null},"sensitive_attributes":[],"dependencies":["terraform_data.a"]}]},
 {"mode":"managed","type":"terraform_data","name":"e","provider":"provider[\"terraform.io/builtin/terraform\"]",
  "instances":[
   {"index_key":"x","schema_version":0,"attributes":{"id":"b6626706-4708-b01b-6eff-2506af4765d0","input":{"value":"x","type":"string"},"output":{"value":"x","type":"string"},"triggers_replace":{"value":["x"],"type":["tuple",["string"]]}},"sensitive_attributes":[]},
   {"index_key":"y","schema_version":0,"attributes":{"id":"8f4ae384-2a33-00a2-eafb-8585fe8648e8","input":{"value":"y","type":"string"},"output":{"value":"y","type":"string"},"triggers_replace":{"value":["y"],"type":["tuple",["string"]]}},"sensitive_attributes":[]}]},
 {"mode":"managed","type":"terraform_data","name":"n","provider":"provider[\"terraform.io/builtin/terraform\"]",
  "instances":[{"schema_version":0,"attributes":{"id":"34b2f111-2a31-0e74-c2fb-f60df77f3a79","input":null,"output":null,"triggers_replace":null},"sensitive_attributes":[]}]},
 {"mode":"managed","type":"terraform_data","name":"s","provider":"provider[\"terraform.io/builtin/terraform\"]",
  "instances":[{"schema_version":0,"attributes":{"id":"e9184e2a-cf3b-80c7-3f08-ce0f38c4350d","input":{"value":"secret","type":"string"},"output":{"value":"secret","type":"string"},"triggers_replace":null},"sensitive_attributes":[[{"type":"get_attr","value":"input"}]]}]},
 {"module":"module.m","mode":"managed","type":"terraform_data","name":"inner","provider":"provider[\"terraform.io/builtin/terraform\"]",
  "instances":[{"schema_version":0,"attributes":{"id":"31eefad2-8957-b9b0-97b3-93734b37912d","input":{"value":"in module","type":"string"},"output":{"value":"in module","type":"string"},"triggers_replace":null},"sensitive_attributes":[]}]}
],
"check_results":null}"#;

fn fixture_bytes() -> Vec<u8> {
    let (state, _) = terrace_states::statefile::read(FIXTURE.as_bytes()).expect("fixture parses");
    terrace_states::statefile::write(&state)
}

/// A scratch directory with the reading helpers these tests use.
struct TempDir(terrace_testsupport::TempDir);

impl TempDir {
    fn new(name: &str) -> TempDir {
        TempDir(terrace_testsupport::TempDir::new(&format!(
            "state-commands-{name}"
        )))
    }

    fn root(&self) -> &Path {
        self.0.path()
    }

    /// A directory holding the fixture as its state.
    fn with_fixture(name: &str) -> TempDir {
        let dir = TempDir::new(name);
        std::fs::write(dir.root().join("terraform.tfstate"), fixture_bytes())
            .expect("write fixture");
        dir
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_default()
    }

    fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.0.path())
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_program(program: &str, dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .env("CHECKPOINT_DISABLE", "1")
        .env("NO_COLOR", "1")
        .env_remove("TF_WORKSPACE")
        .env_remove("TF_DATA_DIR")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("{program}: {e}"));
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(bytes).expect("write stdin");
    }
    let out = child.wait_with_output().expect("wait");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn terrace(dir: &TempDir, args: &[&str]) -> Run {
    run_program(env!("CARGO_BIN_EXE_terrace"), dir.root(), args, None)
}

/// What a successful command prints: `stdout` is terraform's text, with
/// terrace's name where terraform names itself.
fn ok(stdout: &str) -> Run {
    Run {
        code: 0,
        stdout: terrace_testsupport::product::as_terrace(stdout),
        stderr: String::new(),
    }
}

/// What a refused command prints, `stderr` as for `ok`.
fn failed(stderr: &str) -> Run {
    Run {
        code: 1,
        stdout: String::new(),
        stderr: terrace_testsupport::product::as_terrace(stderr),
    }
}

/// The state's serial and lineage, read back.
fn serial_and_lineage(text: &str) -> (u64, String) {
    let v: serde_json::Value = serde_json::from_str(text).expect("state json");
    (
        v["serial"].as_u64().unwrap_or(0),
        v["lineage"].as_str().unwrap_or_default().to_string(),
    )
}

const OUTPUTS: &str = "bool = true
list = [
  1,
  \"a\",
  true,
]
map = tomap({
  \"a\" = \"x\"
  \"bb\" = \"y\"
})
ml = <<EOT
line1
line2

EOT
num = 42
obj = {
  \"a\" = 1
  \"b\" = \"two\"
  \"c\" = [
    1,
    2,
  ]
}
secret = <sensitive>
str = \"hello\"
";

const NOT_FOUND: &str = "
Error: Output \"nope\" not found

The output variable requested could not be found in the state file. If you
recently added this to your configuration, be sure to run `terraform apply`,
since the state won't be updated with new output variables until that command
is run.
";

#[test]
fn output_prints_values_as_terraform_does() {
    let dir = TempDir::with_fixture("output");
    assert_eq!(terrace(&dir, &["output"]), ok(OUTPUTS));
    assert_eq!(terrace(&dir, &["output", "str"]), ok("\"hello\"\n"));
    assert_eq!(terrace(&dir, &["output", "secret"]), ok("\"hunter2\"\n"));
    assert_eq!(terrace(&dir, &["output", "-raw", "str"]), ok("hello"));
    assert_eq!(terrace(&dir, &["output", "-raw", "num"]), ok("42"));
    assert_eq!(terrace(&dir, &["output", "-raw", "bool"]), ok("true"));
    assert_eq!(
        terrace(&dir, &["output", "-raw", "ml"]),
        ok("line1\nline2\n")
    );
    assert_eq!(
        terrace(&dir, &["output", "-json", "list"]),
        ok("[1,\"a\",true]\n")
    );
    assert_eq!(terrace(&dir, &["output", "nope"]), failed(NOT_FOUND));
    assert_eq!(
        terrace(&dir, &["output", "-raw", "list"]),
        failed(
            "
Error: Unsupported value for raw output

The -raw option only supports strings, numbers, and boolean values, but
output value \"list\" is tuple.

Use the -json option for machine-readable representations of output values
that have complex types.
"
        )
    );
    let json = terrace(&dir, &["output", "-json"]);
    assert_eq!(json.code, 0, "{json:?}");
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    assert_eq!(doc["secret"]["sensitive"], serde_json::json!(true));
    assert_eq!(doc["obj"]["type"][0], serde_json::json!("object"));
    assert_eq!(doc["map"]["value"]["bb"], serde_json::json!("y"));
    assert!(
        json.stdout
            .starts_with("{\n  \"bool\": {\n    \"sensitive\": false,\n"),
        "{}",
        json.stdout
    );

    let empty = TempDir::new("output-empty");
    let none = terrace(&empty, &["output"]);
    assert_eq!((none.code, none.stderr.as_str()), (0, ""));
    assert!(
        none.stdout.contains("Warning: No outputs found"),
        "{none:?}"
    );
    assert_eq!(terrace(&empty, &["output", "-json"]), ok("{}\n"));
}

const SHOW_A: &str = "# terraform_data.a:
resource \"terraform_data\" \"a\" {
    id     = \"2ff24ea1-2265-798c-6937-08e46f9662e1\"
    input  = \"hello\"
    output = \"hello\"
}
";

#[test]
fn state_list_and_show() {
    let dir = TempDir::with_fixture("list");
    assert_eq!(
        terrace(&dir, &["state", "list"]),
        ok("terraform_data.a\nterraform_data.c[0]\nterraform_data.c[1]\nterraform_data.e[\"x\"]\nterraform_data.e[\"y\"]\nterraform_data.n\nterraform_data.s\nmodule.m.terraform_data.inner\n")
    );
    assert_eq!(
        terrace(&dir, &["state", "list", "terraform_data.c", "module.m"]),
        ok("terraform_data.c[0]\nterraform_data.c[1]\nmodule.m.terraform_data.inner\n")
    );
    assert_eq!(
        terrace(
            &dir,
            &[
                "state",
                "list",
                "-id",
                "34b2f111-2a31-0e74-c2fb-f60df77f3a79"
            ]
        ),
        ok("terraform_data.n\n")
    );
    assert_eq!(
        terrace(&dir, &["state", "list", "terraform_data.zz"]),
        failed(
            "
Error: Unknown resource

The current state contains no resource terraform_data.zz. If you've just
added this resource to the configuration, you must run \"terraform apply\"
first to create the resource's entry in the state.

"
        )
    );
    assert_eq!(
        terrace(&dir, &["state", "show", "terraform_data.a"]),
        ok(SHOW_A)
    );
    assert_eq!(
        terrace(&dir, &["state", "show", "terraform_data.s"]),
        ok("# terraform_data.s:
resource \"terraform_data\" \"s\" {
    id     = \"e9184e2a-cf3b-80c7-3f08-ce0f38c4350d\"
    input  = (sensitive value)
    output = \"secret\"
}
")
    );
    assert_eq!(
        terrace(&dir, &["state", "show", "terraform_data.c[0]"]),
        ok("# terraform_data.c[0]:
resource \"terraform_data\" \"c\" {
    id     = \"af21462c-3bd7-d3a8-593f-7ee3806dfcf3\"
    input  = {
        list   = [
            1,
            2,
            \"x\",
        ]
        n      = 0
        nested = {
            deep = true
        }
    }
    output = {
        list   = [
            1,
            2,
            \"x\",
        ]
        n      = 0
        nested = {
            deep = true
        }
    }
}
")
    );
    let help = "This command requires that the address references one specific instance.\nTo view the available instances, use \"terraform state list\". Please modify \nthe address to reference a specific instance.\n";
    assert_eq!(
        terrace(&dir, &["state", "show", "terraform_data.c"]),
        failed(&format!(
            "No instance found for the given address!\n\n{help}"
        ))
    );
    assert_eq!(
        terrace(&dir, &["state", "show", "module.m"]),
        failed(&format!(
            "Error parsing instance address: module.m\n\n{help}"
        ))
    );

    let empty = TempDir::new("list-empty");
    let no_state = terrace(&empty, &["state", "list"]);
    assert_eq!(no_state.code, 1);
    assert!(
        no_state.stderr.starts_with("No state file was found!"),
        "{no_state:?}"
    );
    // -state points elsewhere.
    let state = dir.path("terraform.tfstate");
    assert_eq!(
        terrace(
            &empty,
            &[
                "state",
                "show",
                &format!("-state={}", state.display()),
                "terraform_data.a"
            ]
        ),
        ok(SHOW_A)
    );
}

#[test]
fn state_pull_prints_the_state() {
    let dir = TempDir::with_fixture("pull");
    let stored = dir.read("terraform.tfstate");
    assert_eq!(
        terrace(&dir, &["state", "pull"]),
        ok(&format!("{stored}\n"))
    );
    let empty = TempDir::new("pull-empty");
    assert_eq!(terrace(&empty, &["state", "pull"]), ok(""));
}

#[test]
fn show_prints_every_object_then_the_outputs() {
    let dir = TempDir::with_fixture("show");
    let shown = terrace(&dir, &["show"]);
    assert_eq!(shown.code, 0, "{shown:?}");
    assert!(
        shown
            .stdout
            .starts_with(&format!("{SHOW_A}\n# terraform_data.c[0]:\n")),
        "{}",
        shown.stdout
    );
    assert!(
        shown
            .stdout
            .contains("}\n\n\n# module.m.terraform_data.inner:\n"),
        "{}",
        shown.stdout
    );
    assert!(
        shown.stdout.ends_with("}\n\n\nOutputs:\n\nbool = true\nlist = [\n    1,\n    \"a\",\n    true,\n]\nmap = {\n    \"a\"  = \"x\"\n    \"bb\" = \"y\"\n}\nml = <<-EOT\n    line1\n    line2\nEOT\nnum = 42\nobj = {\n    a = 1\n    b = \"two\"\n    c = [\n        1,\n        2,\n    ]\n}\nsecret = (sensitive value)\nstr = \"hello\"\n"),
        "{}",
        shown.stdout
    );
    let json = terrace(&dir, &["show", "-json"]);
    assert_eq!(json.code, 0, "{json:?}");
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    assert_eq!(doc["format_version"], serde_json::json!("1.0"));

    let empty = TempDir::new("show-empty");
    assert_eq!(terrace(&empty, &["show"]), ok("No state.\n"));
}

#[test]
fn state_mv_moves_and_backs_up() {
    let dir = TempDir::with_fixture("mv");
    assert_eq!(
        terrace(
            &dir,
            &[
                "state",
                "mv",
                "-dry-run",
                "terraform_data.a",
                "terraform_data.b"
            ]
        ),
        ok("Would move \"terraform_data.a\" to \"terraform_data.b\"\n")
    );
    assert_eq!(
        dir.files(),
        ["terraform.tfstate"],
        "a dry run writes nothing"
    );
    assert_eq!(
        terrace(
            &dir,
            &["state", "mv", "terraform_data.a", "terraform_data.b"]
        ),
        ok("Move \"terraform_data.a\" to \"terraform_data.b\"\nSuccessfully moved 1 object(s).\n")
    );
    let (serial, lineage) = serial_and_lineage(&dir.read("terraform.tfstate"));
    assert_eq!(
        (serial, lineage.as_str()),
        (10, "b22d6c49-e101-5309-eb2b-128ae9483097")
    );
    let backups: Vec<String> = dir
        .files()
        .into_iter()
        .filter(|f| f.starts_with("terraform.tfstate.") && f.ends_with(".backup"))
        .collect();
    assert_eq!(backups.len(), 1, "{:?}", dir.files());
    assert_eq!(dir.read(&backups[0]).into_bytes(), fixture_bytes());
    // A moved dependency target clears the dependencies naming it.
    assert!(!dir.read("terraform.tfstate").contains("\"dependencies\""));

    assert_eq!(
        terrace(&dir, &["state", "mv", "module.m", "module.k"]),
        ok("Move \"module.m\" to \"module.k\"\nSuccessfully moved 1 object(s).\n")
    );
    assert_eq!(
        terrace(
            &dir,
            &[
                "state",
                "mv",
                "terraform_data.c[1]",
                "module.k.terraform_data.one"
            ]
        )
        .code,
        0
    );
    assert_eq!(
        terrace(&dir, &["state", "list", "module.k"]),
        ok("module.k.terraform_data.inner\nmodule.k.terraform_data.one\n")
    );
    assert_eq!(
        terrace(
            &dir,
            &["state", "mv", "terraform_data.b", "terraform_data.n"]
        ),
        failed(
            "
Error: Invalid target address

Cannot move to terraform_data.n: there is already a resource instance at that
address in the current state.

"
        )
    );
    // -state-out moves into another state file.
    assert_eq!(
        terrace(
            &dir,
            &[
                "state",
                "mv",
                "-state-out=other.tfstate",
                "terraform_data.e",
                "terraform_data.e"
            ]
        )
        .code,
        0
    );
    assert_eq!(
        terrace(&dir, &["state", "list", "-state=other.tfstate"]),
        ok("terraform_data.e[\"x\"]\nterraform_data.e[\"y\"]\n")
    );
    assert!(!dir.read("terraform.tfstate").contains("\"name\": \"e\""));
}

#[test]
fn state_rm_forgets_instances() {
    let dir = TempDir::with_fixture("rm");
    assert_eq!(
        terrace(&dir, &["state", "rm", "-dry-run", "terraform_data.c", "module.m"]),
        ok("Would remove terraform_data.c[0]\nWould remove terraform_data.c[1]\nWould remove module.m.terraform_data.inner\n")
    );
    assert_eq!(
        terrace(&dir, &["state", "rm", "terraform_data.c", "terraform_data.e[\"x\"]", "module.m"]),
        ok("Removed terraform_data.c[0]\nRemoved terraform_data.c[1]\nRemoved terraform_data.e[\"x\"]\nRemoved module.m.terraform_data.inner\nSuccessfully removed 4 resource instance(s).\n")
    );
    assert_eq!(
        terrace(&dir, &["state", "list"]),
        ok("terraform_data.a\nterraform_data.e[\"y\"]\nterraform_data.n\nterraform_data.s\n")
    );
    assert_eq!(
        terrace(&dir, &["state", "rm", "terraform_data.zz"]),
        failed(
            "
Error: Invalid target address

No matching objects found. To view the available instances, use \"terraform
state list\". Please modify the address to reference a specific instance.

"
        )
    );
    assert_eq!(serial_and_lineage(&dir.read("terraform.tfstate")).0, 10);
}

#[test]
fn state_push_checks_lineage_and_serial() {
    let dir = TempDir::with_fixture("push");
    let older = dir.path("older.tfstate");
    let mut v: serde_json::Value = serde_json::from_slice(&fixture_bytes()).expect("json");
    v["serial"] = serde_json::json!(3);
    std::fs::write(&older, v.to_string()).expect("write");
    assert_eq!(
        terrace(&dir, &["state", "push", "older.tfstate"]),
        failed("Failed to write state: cannot import state with serial 3 over newer state with serial 9\n")
    );
    v["lineage"] = serde_json::json!("00000000-0000-0000-0000-000000000000");
    v["serial"] = serde_json::json!(100);
    std::fs::write(dir.path("other.tfstate"), v.to_string()).expect("write");
    assert_eq!(
        terrace(&dir, &["state", "push", "other.tfstate"]),
        failed("Failed to write state: cannot import state with lineage \"00000000-0000-0000-0000-000000000000\" over unrelated state with lineage \"b22d6c49-e101-5309-eb2b-128ae9483097\"\n")
    );
    // Forced: lineage and serial are the pushed ones (same content).
    assert_eq!(
        terrace(&dir, &["state", "push", "-force", "other.tfstate"]),
        ok("")
    );
    assert_eq!(
        serial_and_lineage(&dir.read("terraform.tfstate")),
        (100, "00000000-0000-0000-0000-000000000000".to_string())
    );
    // A newer serial of the same lineage with other content: serial + 1.
    v["serial"] = serde_json::json!(200);
    v["outputs"]["str"]["value"] = serde_json::json!("changed");
    let newer = v.to_string();
    let pushed = run_program(
        env!("CARGO_BIN_EXE_terrace"),
        dir.root(),
        &["state", "push", "-"],
        Some(newer.as_bytes()),
    );
    assert_eq!(pushed, ok(""));
    assert_eq!(serial_and_lineage(&dir.read("terraform.tfstate")).0, 201);
    assert_eq!(terrace(&dir, &["output", "-raw", "str"]), ok("changed"));
    assert!(
        dir.files()
            .contains(&"terraform.tfstate.backup".to_string()),
        "{:?}",
        dir.files()
    );
    assert!(
        !dir.files().iter().any(|f| f.contains("push")),
        "{:?}",
        dir.files()
    );
    let missing = terrace(&dir, &["state", "push", "nonexist.tfstate"]);
    assert_eq!(
        missing,
        failed("open nonexist.tfstate: no such file or directory\n")
    );
}

#[test]
fn taint_and_untaint() {
    let dir = TempDir::with_fixture("taint");
    assert_eq!(
        terrace(&dir, &["taint", "terraform_data.c[0]"]),
        ok("Resource instance terraform_data.c[0] has been marked as tainted.\n")
    );
    assert!(dir
        .read("terraform.tfstate")
        .contains("\"status\": \"tainted\""));
    assert_eq!(serial_and_lineage(&dir.read("terraform.tfstate")).0, 10);
    assert_eq!(
        dir.read("terraform.tfstate.backup").into_bytes(),
        fixture_bytes()
    );
    let shown = terrace(&dir, &["state", "show", "terraform_data.c[0]"]);
    assert!(
        shown
            .stdout
            .starts_with("# terraform_data.c[0]: (tainted)\n"),
        "{shown:?}"
    );
    assert_eq!(
        terrace(&dir, &["untaint", "terraform_data.c[0]"]),
        ok("Resource instance terraform_data.c[0] has been successfully untainted.\n")
    );
    assert_eq!(
        terrace(&dir, &["untaint", "terraform_data.c[0]"]),
        failed(
            "
Error: Resource instance is not tainted

Resource instance terraform_data.c[0] is not currently tainted, and so it
cannot be untainted.

"
        )
    );
    assert_eq!(
        terrace(&dir, &["taint", "terraform_data.zz"]),
        failed(
            "
Error: No such resource instance

There is no resource instance in the state with the address
terraform_data.zz. If the resource configuration has just been added, you
must run \"terraform apply\" once to create the corresponding instance(s)
before they can be tainted.

"
        )
    );
    let missing = terrace(&dir, &["taint", "-allow-missing", "terraform_data.zz"]);
    assert_eq!(missing.code, 0);
    assert!(
        missing
            .stdout
            .contains("Warning: No such resource instance"),
        "{missing:?}"
    );
    assert_eq!(
        terrace(&dir, &["taint", "data.x.y"]),
        failed("Resource instance data.x.y cannot be tainted\n")
    );
}

#[test]
fn workspaces() {
    let dir = TempDir::with_fixture("workspace");
    assert_eq!(terrace(&dir, &["workspace", "show"]), ok("default\n"));
    assert_eq!(
        terrace(&dir, &["workspace", "new", "dev"]),
        ok("Created and switched to workspace \"dev\"!\n\nYou're now on a new, empty workspace. Workspaces isolate their state,\nso if you run \"terraform plan\" Terraform will not see any existing state\nfor this configuration.\n")
    );
    assert_eq!(
        terrace(&dir, &["workspace", "list"]),
        ok("  default\n* dev\n\n")
    );
    assert_eq!(
        terrace(&dir, &["state", "list"]).code,
        1,
        "the new workspace has no state"
    );
    assert_eq!(
        terrace(&dir, &["workspace", "new", "dev"]),
        failed("Workspace \"dev\" already exists\n")
    );
    assert_eq!(
        terrace(&dir, &["workspace", "select", "default"]),
        ok("Switched to workspace \"default\".\n")
    );
    assert_eq!(
        terrace(&dir, &["state", "list", "module.m"]),
        ok("module.m.terraform_data.inner\n")
    );
    assert_eq!(
        terrace(&dir, &["workspace", "select", "nope"]),
        failed("\nWorkspace \"nope\" doesn't exist.\n\nYou can create this workspace with the \"new\" subcommand \nor include the \"-or-create\" flag with the \"select\" subcommand.\n")
    );
    assert_eq!(
        terrace(&dir, &["workspace", "delete", "default"]),
        failed("Workspace \"default\" is your active workspace.\n\nYou cannot delete the currently active workspace. Please switch\nto another workspace and try again.\n")
    );
    assert_eq!(
        terrace(&dir, &["workspace", "delete", "dev"]),
        ok("Deleted workspace \"dev\"!\n")
    );
    assert_eq!(terrace(&dir, &["workspace", "list"]), ok("* default\n\n"));
}

/// `args` with `-no-color` after the command words (terraform takes
/// flags only before positional arguments).
fn no_color(args: &[&str]) -> Vec<String> {
    let words = if matches!(args.first(), Some(&"state" | &"workspace")) {
        2
    } else {
        1
    };
    let mut out: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    out.insert(words.min(out.len()), "-no-color".to_string());
    out
}

/// Runs `args` with terrace and with terraform, each in its own copy of
/// the fixture directory, and returns both runs and both directories. In
/// colour (terraform ignores `NO_COLOR`, so terrace is run without it).
fn side_by_side(
    name: &str,
    args: &[String],
    color: bool,
    setup: &dyn Fn(&TempDir),
) -> ((Run, TempDir), (Run, TempDir)) {
    let ours = TempDir::new(&format!("{name}-terrace"));
    let theirs = TempDir::new(&format!("{name}-terraform"));
    setup(&ours);
    setup(&theirs);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let a = if color {
        let out = Command::new(env!("CARGO_BIN_EXE_terrace"))
            .args(&args)
            .current_dir(ours.root())
            .env("TF_CLI_CONFIG_FILE", "/dev/null")
            .env_remove("NO_COLOR")
            .env_remove("TF_WORKSPACE")
            .stdin(Stdio::null())
            .output()
            .expect("terrace runs");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    } else {
        terrace(&ours, &args)
    };
    let b = run_program("terraform", theirs.root(), &args, None);
    ((a, ours), (b, theirs))
}

#[test]
fn compare_with_terraform() {
    if !terrace_testsupport::require_terraform() {
        return;
    }
    // Read-only commands: same stdout, stderr and exit status.
    let read_only: &[&[&str]] = &[
        &["output"],
        &["output", "str"],
        &["output", "-json"],
        &["output", "-json", "obj"],
        &["output", "-raw", "num"],
        &["output", "-raw", "list"],
        &["output", "nope"],
        &["state", "list"],
        &["state", "list", "terraform_data.e", "module.m"],
        &["state", "list", "-id=af21462c-3bd7-d3a8-593f-7ee3806dfcf3"],
        &["state", "list", "module.zz", "terraform_data.q"],
        &["state", "show", "terraform_data.a"],
        &["state", "show", "terraform_data.c[0]"],
        &["state", "show", "terraform_data.e[\"y\"]"],
        &["state", "show", "terraform_data.n"],
        &["state", "show", "terraform_data.s"],
        &["state", "show", "module.m.terraform_data.inner"],
        &["state", "show", "terraform_data.c"],
        &["state", "pull"],
        &["show"],
        &["show", "-json"],
        &["workspace", "show"],
        &["workspace", "list"],
        &["workspace", "select", "nope"],
        &["state", "rm", "-dry-run", "terraform_data.c", "module.m"],
        &[
            "state",
            "mv",
            "-dry-run",
            "terraform_data.c",
            "terraform_data.d",
        ],
    ];
    // Commands that write: same output and the same state file after.
    let writing: &[&[&str]] = &[
        &["state", "rm", "terraform_data.c", "terraform_data.e[\"x\"]"],
        &["state", "rm", "terraform_data.zz"],
        &["state", "mv", "terraform_data.a", "terraform_data.b"],
        &[
            "state",
            "mv",
            "terraform_data.c[1]",
            "module.x.terraform_data.one",
        ],
        &["state", "mv", "module.m", "module.k"],
        &["state", "mv", "terraform_data.a", "terraform_data.n"],
        &["taint", "terraform_data.e[\"y\"]"],
        &["taint", "terraform_data.zz"],
        &["untaint", "terraform_data.a"],
        &["workspace", "new", "dev"],
    ];
    // Without any state.
    let no_state: &[&[&str]] = &[
        &["output"],
        &["output", "-json"],
        &["output", "x"],
        &["show"],
        &["show", "-json"],
        &["state", "list"],
        &["state", "show", "terraform_data.a"],
        &["state", "pull"],
        &["state", "rm", "terraform_data.a"],
        &["state", "mv", "terraform_data.a", "terraform_data.b"],
        &["taint", "terraform_data.a"],
        &["taint", "-allow-missing", "terraform_data.a"],
        &["untaint", "terraform_data.a"],
        &["workspace", "list"],
    ];
    // Pushing variants of the fixture: (file content change, args).
    let push: &[(&str, &[&str])] = &[
        ("older", &["state", "push", "pushed.tfstate"]),
        ("lineage", &["state", "push", "pushed.tfstate"]),
        ("lineage", &["state", "push", "-force", "pushed.tfstate"]),
        ("newer", &["state", "push", "pushed.tfstate"]),
        ("same", &["state", "push", "pushed.tfstate"]),
    ];
    let fixture = |d: &TempDir| {
        std::fs::write(d.path("terraform.tfstate"), fixture_bytes()).expect("write fixture")
    };
    let empty = |_: &TempDir| {};
    let pushed = |variant: &'static str| {
        move |d: &TempDir| {
            fixture(d);
            let mut v: serde_json::Value = serde_json::from_slice(&fixture_bytes()).expect("json");
            match variant {
                "older" => v["serial"] = serde_json::json!(3),
                "lineage" => {
                    v["lineage"] = serde_json::json!("00000000-0000-0000-0000-000000000000")
                }
                "newer" => {
                    v["serial"] = serde_json::json!(50);
                    v["outputs"]["str"]["value"] = serde_json::json!("changed");
                }
                _ => {}
            }
            std::fs::write(d.path("pushed.tfstate"), v.to_string()).expect("write");
        }
    };
    type Case<'a> = (&'a [&'a str], bool, Box<dyn Fn(&TempDir) + 'a>);
    let mut cases: Vec<Case> = Vec::new();
    for a in read_only {
        cases.push((a, false, Box::new(fixture)));
    }
    for a in writing {
        cases.push((a, true, Box::new(fixture)));
    }
    for a in no_state {
        cases.push((a, true, Box::new(empty)));
    }
    for (variant, a) in push {
        cases.push((a, true, Box::new(pushed(variant))));
    }
    let mut differences = Vec::new();
    for color in [false, true] {
        for (args, writes, setup) in &cases {
            let args = if color {
                args.iter().map(|s| s.to_string()).collect()
            } else {
                no_color(args)
            };
            let ((ours, our_dir), (theirs, their_dir)) =
                side_by_side("cmp", &args, color, setup.as_ref());
            // terraform's messages name terraform.
            let theirs = Run {
                stdout: terrace_testsupport::product::as_terrace(&theirs.stdout),
                stderr: terrace_testsupport::product::as_terrace(&theirs.stderr),
                ..theirs
            };
            if ours != theirs {
                differences.push(format!(
                    "terrace {args:?}:\n  terrace:   {ours:?}\n  terraform: {theirs:?}"
                ));
            }
            let (a, b) = (
                our_dir.read("terraform.tfstate"),
                their_dir.read("terraform.tfstate"),
            );
            if *writes && a != b {
                differences.push(format!(
                    "terrace {args:?}: the state files differ:\n{a}\n----\n{b}"
                ));
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}
