//! Nothing goes wrong silently: inputs that once crashed terrace or made it
//! print what terraform hides, run through both tools side by side.

mod engine_support;

use engine_support::{have_terraform, Overrides, Work};

fn work(name: &str) -> Work {
    Work::new(
        name,
        Overrides {
            bundled: false,
            aws: false,
        },
    )
}

/// A left-associative chain of 20,000 operators is one expression for
/// terraform, which evaluates it; terrace must too, without a nesting limit
/// and without exhausting its stack.
#[test]
fn a_long_operator_chain_evaluates_as_in_terraform() {
    let terms = 20_000;
    let config = format!(
        "output \"sum\" {{\n  value = {}\n}}\n\noutput \"all\" {{\n  value = {}\n}}\n",
        vec!["1"; terms].join(" + "),
        vec!["true"; terms].join(" && "),
    );
    let expected = ["+ all = true", &format!("+ sum = {terms}")];
    let w = work("long-chain");
    w.write("main.tf", &config);
    let run = w.terrace_ok(&["plan"], 0);
    for line in expected {
        assert!(run.stdout.contains(line), "{}", run.output());
    }
    if !have_terraform() {
        return;
    }
    let run = w.terraform_ok(&["plan"], 0);
    for line in expected {
        assert!(run.stdout.contains(line), "{}", run.output());
    }
}

// ----- sensitive values never printed where terraform hides them -----

/// The secret the configurations below hold; no output may contain it.
const SECRET: &str = "s3cr3t-Tr0ub4dor";

const SECRET_VARIABLE: &str = r#"
variable "secret" {
  type      = string
  default   = "s3cr3t-Tr0ub4dor"
  sensitive = true
}
"#;

/// Runs `steps` (each: arguments and the exit status they must end
/// with) with terrace and, where it runs here, terraform, in a directory
/// holding `files`; returns the last step's output of each tool.
fn side_by_side(name: &str, files: &[(&str, &str)], steps: &[(&[&str], i32)]) -> Vec<String> {
    let mut outputs = Vec::new();
    let mut tools: Vec<&str> = vec!["terrace"];
    if have_terraform() {
        tools.push("terraform");
    }
    for tool in tools {
        let w = work(&format!("{name}-{tool}"));
        for (file, text) in files {
            w.write(file, text);
        }
        let mut last = String::new();
        for (args, code) in steps {
            let run = if tool == "terrace" {
                w.terrace_ok(args, *code)
            } else {
                w.terraform_ok(args, *code)
            };
            last = run.all();
        }
        outputs.push(last);
    }
    outputs
}

/// Every tool's output contains each of `texts` and not the secret.
fn assert_all_say(outputs: &[String], texts: &[&str]) {
    for output in outputs {
        assert!(
            !output.contains(SECRET),
            "the secret was printed:\n{output}"
        );
        // Each tool names itself; the texts are terrace's.
        let output = terrace_testsupport::product::as_terrace(output);
        for text in texts {
            assert!(output.contains(text), "missing {text:?} in:\n{output}");
        }
    }
}

const INVALID_MESSAGE_STAND_IN: &str =
    "This check failed, but has an invalid error message as described in the other\naccompanying messages.";
const CONDITION_MESSAGE_HIDDEN: &str = "Warning: Error message refers to sensitive values";
const CONDITION_MESSAGE_HIDDEN_DETAIL: &str =
    "The error expression used to explain this condition refers to sensitive\nvalues, so terrace will not display the resulting message.";

#[test]
fn a_precondition_message_with_a_secret_is_not_printed() {
    let config = format!(
        "{SECRET_VARIABLE}\nresource \"terraform_data\" \"guarded\" {{\n  input = \"x\"\n  lifecycle {{\n    precondition {{\n      condition     = var.secret == \"other\"\n      error_message = \"The secret ${{var.secret}} is wrong.\"\n    }}\n  }}\n}}\n"
    );
    let outputs = side_by_side(
        "precondition-secret",
        &[("main.tf", &config)],
        &[(&["plan"], 1)],
    );
    assert_all_say(
        &outputs,
        &[
            CONDITION_MESSAGE_HIDDEN,
            CONDITION_MESSAGE_HIDDEN_DETAIL,
            "Error: Resource precondition failed",
            INVALID_MESSAGE_STAND_IN,
        ],
    );
}

#[test]
fn a_postcondition_message_with_a_secret_is_not_printed() {
    let config = format!(
        "{SECRET_VARIABLE}\nresource \"terraform_data\" \"checked\" {{\n  input = \"x\"\n  lifecycle {{\n    postcondition {{\n      condition     = self.output == \"y\"\n      error_message = \"Expected ${{var.secret}}.\"\n    }}\n  }}\n}}\n"
    );
    let outputs = side_by_side(
        "postcondition-secret",
        &[("main.tf", &config)],
        &[(&["apply", "-auto-approve"], 1)],
    );
    assert_all_say(
        &outputs,
        &[
            CONDITION_MESSAGE_HIDDEN,
            "Error: Resource postcondition failed",
            INVALID_MESSAGE_STAND_IN,
        ],
    );
}

#[test]
fn a_check_assertion_message_with_a_secret_is_not_printed() {
    let config = format!(
        "{SECRET_VARIABLE}\ncheck \"secret_is_other\" {{\n  assert {{\n    condition     = var.secret == \"other\"\n    error_message = \"The secret is ${{var.secret}}.\"\n  }}\n}}\n"
    );
    let outputs = side_by_side("check-secret", &[("main.tf", &config)], &[(&["plan"], 0)]);
    assert_all_say(
        &outputs,
        &[
            CONDITION_MESSAGE_HIDDEN,
            "Warning: Check block assertion failed",
            INVALID_MESSAGE_STAND_IN,
        ],
    );
}

/// A module variable validated with a sensitive value given by the caller:
/// the message is replaced, with an error saying why.
#[test]
fn a_variable_validation_message_with_a_secret_is_not_printed() {
    let child = "variable \"token\" {\n  type = string\n  validation {\n    condition     = length(var.token) > 40\n    error_message = \"The token ${var.token} is too short.\"\n  }\n}\n";
    let root = format!(
        "{SECRET_VARIABLE}\nmodule \"child\" {{\n  source = \"./child\"\n  token  = var.secret\n}}\n"
    );
    let outputs = side_by_side(
        "validation-secret",
        &[("main.tf", &root), ("child/main.tf", child)],
        &[(&["init"], 0), (&["plan"], 1)],
    );
    assert_all_say(
        &outputs,
        &[
            "Error: Invalid value for variable",
            "The error message included a sensitive value, so it will not be displayed.",
            "Error: Error message refers to sensitive values",
            "The error expression used to explain this condition refers to sensitive\nvalues. terrace will not display the resulting message.",
        ],
    );
}

/// A root variable's own `sensitive` does not hide its value from its own
/// validation message: terraform prints it, and so does terrace.
#[test]
fn a_root_variable_validation_message_shows_the_value_given() {
    let config = "variable \"code\" {\n  type      = string\n  sensitive = true\n  validation {\n    condition     = length(var.code) > 40\n    error_message = \"The code ${var.code} is too short.\"\n  }\n}\n";
    let outputs = side_by_side(
        "root-validation",
        &[("main.tf", config)],
        &[(&["plan", "-var", "code=abc"], 1)],
    );
    for output in &outputs {
        assert!(
            output.contains("Error: Invalid value for variable")
                && output.contains("The code abc is too short."),
            "{output}"
        );
    }
}

/// A root output that would expose a sensitive value is an error found
/// before anything is planned: no plan and no "Changes to Outputs" with
/// the value in it.
#[test]
fn an_output_exposing_a_secret_shows_no_plan() {
    let config = format!(
        "{SECRET_VARIABLE}\nresource \"terraform_data\" \"r\" {{\n  input = \"x\"\n}}\n\noutput \"leak\" {{\n  value = var.secret\n}}\n"
    );
    let outputs = side_by_side("output-secret", &[("main.tf", &config)], &[(&["plan"], 1)]);
    assert_all_say(&outputs, &["Error: Output refers to sensitive values"]);
    for output in &outputs {
        assert!(!output.contains("Changes to Outputs"), "{output}");
        assert!(!output.contains("will be created"), "{output}");
    }
}

/// A root output that exposes a value sensitive only once planned (an
/// attribute the provider's schema marks sensitive): terraform shows the
/// rest of the plan ("planned the following actions, but then encountered
/// a problem") without that output, then the error; so does terrace.
#[test]
fn an_output_exposing_a_planned_secret_is_left_out_of_the_plan_shown() {
    let mut runs = Vec::new();
    let tools: &[&str] = if have_terraform() {
        &["terrace", "terraform"]
    } else {
        &["terrace"]
    };
    for tool in tools {
        let w = Work::new(
            &format!("output-planned-secret-{tool}"),
            Overrides {
                bundled: true,
                aws: false,
            },
        );
        w.write(
            "main.tf",
            "terraform {\n  required_providers {\n    random = { source = \"hashicorp/random\" }\n  }\n}\n\nresource \"random_password\" \"p\" {\n  length = 8\n}\n\nresource \"terraform_data\" \"t\" {\n  input = 1\n}\n\noutput \"leak\" {\n  value = random_password.p\n}\n\noutput \"fine\" {\n  value = terraform_data.t.output\n}\n",
        );
        let run = if *tool == "terrace" {
            w.terrace_ok(&["plan", "-no-color"], 1)
        } else {
            w.terraform_ok(&["plan", "-no-color"], 1)
        };
        runs.push(run);
    }
    let ours = &runs[0];
    assert!(
        ours.stdout
            .contains("planned the following actions, but then encountered a problem"),
        "{}",
        ours.output()
    );
    assert!(
        ours.stdout.contains("+ fine = (known after apply)"),
        "{}",
        ours.output()
    );
    assert!(!ours.stdout.contains("leak"), "{}", ours.output());
    assert!(
        ours.stderr
            .contains("Error: Output refers to sensitive values"),
        "{}",
        ours.output()
    );
    if let Some(theirs) = runs.get(1) {
        let from_plan = |text: &str| {
            text.find("\nterrace used the selected providers")
                .map(|i| text[i..].to_string())
                .unwrap_or_default()
        };
        let theirs_named = terrace_testsupport::product::as_terrace(&theirs.stdout);
        assert_eq!(from_plan(&ours.stdout), from_plan(&theirs_named));
        assert_eq!(
            ours.stderr,
            terrace_testsupport::product::as_terrace(&theirs.stderr)
        );
    }
}

// ----- ephemeral values are neither shown nor stored -----

/// The ephemeral value the configurations below hold.
const EPHEMERAL_VALUE: &str = "ephem-T0ken-value";

const EPHEMERAL_VARIABLE: &str = r#"
variable "token" {
  type      = string
  default   = "ephem-T0ken-value"
  ephemeral = true
}
"#;

fn assert_none_shows_the_ephemeral_value(outputs: &[String]) {
    for output in outputs {
        assert!(
            !output.contains(EPHEMERAL_VALUE),
            "the ephemeral value was printed:\n{output}"
        );
    }
}

/// An ephemeral value may not reach a resource argument that is stored,
/// nor an output not declared ephemeral.
#[test]
fn an_ephemeral_value_is_refused_where_it_would_be_stored() {
    let config = format!(
        "{EPHEMERAL_VARIABLE}\nresource \"terraform_data\" \"r\" {{\n  input = var.token\n}}\n\noutput \"o\" {{\n  value = var.token\n}}\n"
    );
    let outputs = side_by_side(
        "ephemeral-stored",
        &[("main.tf", &config)],
        &[(&["plan"], 1)],
    );
    assert_none_shows_the_ephemeral_value(&outputs);
    assert_all_say(
        &outputs,
        &[
            "Error: Invalid use of ephemeral value",
            "with terraform_data.r,",
            "Ephemeral values are not valid for \"input\", because it is not a write-only\nattribute and must be persisted to state.",
            "Error: Ephemeral value not allowed",
            "This output value is not declared as returning an ephemeral value, so it\ncannot be set to a result derived from an ephemeral value.",
        ],
    );
}

#[test]
fn a_condition_message_with_an_ephemeral_value_is_not_printed() {
    let config = format!(
        "{EPHEMERAL_VARIABLE}\nresource \"terraform_data\" \"guarded\" {{\n  input = \"x\"\n  lifecycle {{\n    precondition {{\n      condition     = var.token == \"other\"\n      error_message = \"The token ${{var.token}} is wrong.\"\n    }}\n  }}\n}}\n"
    );
    let outputs = side_by_side(
        "ephemeral-message",
        &[("main.tf", &config)],
        &[(&["plan"], 1)],
    );
    assert_none_shows_the_ephemeral_value(&outputs);
    assert_all_say(
        &outputs,
        &[
            "Warning: Error message refers to ephemeral values",
            "Error: Resource precondition failed",
            INVALID_MESSAGE_STAND_IN,
        ],
    );
}

#[test]
fn instance_keys_may_not_come_from_an_ephemeral_value() {
    let for_each = format!(
        "{EPHEMERAL_VARIABLE}\nresource \"terraform_data\" \"r\" {{\n  for_each = toset([var.token])\n}}\n"
    );
    let outputs = side_by_side(
        "ephemeral-for-each",
        &[("main.tf", &for_each)],
        &[(&["plan"], 1)],
    );
    assert_none_shows_the_ephemeral_value(&outputs);
    assert_all_say(
        &outputs,
        &[
            "Error: Invalid for_each argument",
            "var.token has an ephemeral value",
            "The given \"for_each\" value is derived from an ephemeral value, which means\nthat terrace cannot persist it between plan/apply rounds.",
        ],
    );
    let count = format!(
        "{EPHEMERAL_VARIABLE}\nresource \"terraform_data\" \"r\" {{\n  count = length(var.token) > 3 ? 1 : 0\n}}\n"
    );
    let outputs = side_by_side("ephemeral-count", &[("main.tf", &count)], &[(&["plan"], 1)]);
    assert_all_say(
        &outputs,
        &[
            "Error: Invalid count argument",
            "The given \"count\" is derived from an ephemeral value, which means that\nterrace cannot persist it between plan/apply rounds.",
        ],
    );
}

// ----- archives that expand enormously -----

use miniz_oxide::deflate::core::{
    compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use terrace_testsupport::http::{LoopbackServer, Reply};

const MIB: u64 = 1 << 20;

/// What any extraction here may use at most: the archives expand to far
/// more (a quarter to a whole GiB), so a reader that buffers what it
/// expands cannot stay under it.
const MEMORY_BOUND_KIB: u64 = 100 * 1024;

/// Raw deflate data for `input`, compressed on its own and ended on a byte
/// boundary (a sync flush) unless `last`, so separately compressed pieces
/// concatenate into one valid stream.
fn deflate_piece(input: &[u8], last: bool) -> Vec<u8> {
    let mut compressor = CompressorOxide::new(create_comp_flags_from_zip_params(6, -15, 0));
    let mut out = vec![0u8; input.len() / 2 + 4096];
    let flush = if last {
        TDEFLFlush::Finish
    } else {
        TDEFLFlush::Sync
    };
    let (status, consumed, written) = compress(&mut compressor, input, &mut out, flush);
    assert!(
        matches!(status, TDEFLStatus::Okay | TDEFLStatus::Done) && consumed == input.len(),
        "compressing a piece: {status:?}"
    );
    out.truncate(written);
    out
}

/// Raw deflate data for `prefix` followed by `zeros` zero bytes, built from
/// one compressed MiB of zeros repeated: no pass over the expanded bytes.
fn deflate_prefix_and_zeros(prefix: &[u8], zeros: u64) -> Vec<u8> {
    let mut out = Vec::new();
    if !prefix.is_empty() {
        out.extend(deflate_piece(prefix, false));
    }
    let block = deflate_piece(&vec![0u8; MIB as usize], false);
    for _ in 0..zeros / MIB {
        out.extend_from_slice(&block);
    }
    out.extend(deflate_piece(&vec![0u8; (zeros % MIB) as usize], true));
    out
}

/// The CRC-32 (IEEE) of what `crc` is the checksum of followed by `zeros`
/// zero bytes, by repeated squaring of the operator that shifts one zero
/// bit through the register.
fn crc32_extend_zeros(crc: u32, zeros: u64) -> u32 {
    fn apply(matrix: &[u32; 32], vector: u32) -> u32 {
        (0..32)
            .filter(|bit| vector >> bit & 1 == 1)
            .fold(0, |acc, bit| acc ^ matrix[bit])
    }
    let mut operator = [0u32; 32];
    operator[0] = 0xEDB8_8320;
    for (bit, column) in operator.iter_mut().enumerate().skip(1) {
        *column = 1 << (bit - 1);
    }
    let mut register = !crc;
    let mut bits = zeros * 8;
    while bits > 0 {
        if bits & 1 == 1 {
            register = apply(&operator, register);
        }
        let squared: Vec<u32> = operator.iter().map(|c| apply(&operator, *c)).collect();
        operator.copy_from_slice(&squared);
        bits >>= 1;
    }
    !register
}

/// A plain CRC-32 (IEEE), bit by bit: for the small parts.
fn crc32(data: &[u8]) -> u32 {
    let mut register = !0u32;
    for byte in data {
        register ^= u32::from(*byte);
        for _ in 0..8 {
            register = if register & 1 == 1 {
                0xEDB8_8320 ^ (register >> 1)
            } else {
                register >> 1
            };
        }
    }
    !register
}

/// One zip entry: name, method (0 stored, 8 deflated), CRC, expanded size,
/// the data as stored, and its mode.
struct ZipEntry {
    name: &'static str,
    method: u16,
    crc: u32,
    size: u64,
    data: Vec<u8>,
    mode: u32,
}

fn stored(name: &'static str, data: &[u8], mode: u32) -> ZipEntry {
    ZipEntry {
        name,
        method: 0,
        crc: crc32(data),
        size: data.len() as u64,
        data: data.to_vec(),
        mode,
    }
}

/// A deflated entry of `zeros` zero bytes.
fn zeros_entry(name: &'static str, zeros: u64, mode: u32) -> ZipEntry {
    ZipEntry {
        name,
        method: 8,
        crc: crc32_extend_zeros(0, zeros),
        size: zeros,
        data: deflate_prefix_and_zeros(b"", zeros),
        mode,
    }
}

/// A zip archive (no zip64: every size here is under 4 GiB), with Unix
/// modes as the creator's attributes.
fn zip(entries: &[ZipEntry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut directory = Vec::new();
    let u32_of = |n: u64| u32::try_from(n).expect("zip sizes stay under 4 GiB");
    for e in entries {
        let offset = u32_of(out.len() as u64);
        let mut common = Vec::new();
        common.extend_from_slice(&20u16.to_le_bytes()); // version needed
        common.extend_from_slice(&0u16.to_le_bytes()); // flags
        common.extend_from_slice(&e.method.to_le_bytes());
        common.extend_from_slice(&0u32.to_le_bytes()); // time and date
        common.extend_from_slice(&e.crc.to_le_bytes());
        common.extend_from_slice(&u32_of(e.data.len() as u64).to_le_bytes());
        common.extend_from_slice(&u32_of(e.size).to_le_bytes());
        common.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes()); // extra length
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&common);
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&e.data);
        directory.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        directory.extend_from_slice(&(3u16 << 8 | 20).to_le_bytes()); // made by Unix
        directory.extend_from_slice(&common);
        directory.extend_from_slice(&0u16.to_le_bytes()); // comment length
        directory.extend_from_slice(&0u16.to_le_bytes()); // disk
        directory.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        directory.extend_from_slice(&((0o100000 | e.mode) << 16).to_le_bytes());
        directory.extend_from_slice(&offset.to_le_bytes());
        directory.extend_from_slice(e.name.as_bytes());
    }
    let directory_offset = u32_of(out.len() as u64);
    out.extend_from_slice(&directory);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&u32_of(directory.len() as u64).to_le_bytes());
    out.extend_from_slice(&directory_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// A ustar header block for a regular file.
fn tar_header(name: &str, size: u64) -> [u8; 512] {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..107].copy_from_slice(b"0000644");
    h[108..115].copy_from_slice(b"0000000");
    h[116..123].copy_from_slice(b"0000000");
    h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
    h[136..147].copy_from_slice(b"00000000000");
    h[156] = b'0';
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|b| u32::from(*b)).sum();
    h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
    h
}

/// A gzip-compressed tar holding `main.tf` and `zeros` zero bytes in
/// `big.bin` (`zeros` a multiple of 512, so the zeros run on into the
/// end-of-archive blocks).
fn tar_gz(main_tf: &str, zeros: u64) -> Vec<u8> {
    let mut prefix = Vec::new();
    prefix.extend_from_slice(&tar_header("main.tf", main_tf.len() as u64));
    prefix.extend_from_slice(main_tf.as_bytes());
    prefix.resize(prefix.len().div_ceil(512) * 512, 0);
    prefix.extend_from_slice(&tar_header("big.bin", zeros));
    let trailing_zeros = zeros + 1024;
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    out.extend(deflate_prefix_and_zeros(&prefix, trailing_zeros));
    out.extend_from_slice(&crc32_extend_zeros(crc32(&prefix), trailing_zeros).to_le_bytes());
    out.extend_from_slice(&((prefix.len() as u64 + trailing_zeros) as u32).to_le_bytes());
    out
}

/// Runs `program args` in `dir` with `cli_config`, waiting with `wait4`
/// for its own resource usage; returns the exit code, stdout and stderr
/// together, and the child's peak resident memory in KiB.
fn run_measuring_memory(
    program: &str,
    args: &[&str],
    dir: &Path,
    cli_config: &Path,
) -> (i32, String, u64) {
    let out_path = dir.with_extension("out");
    let out = std::fs::File::create(&out_path).expect("creating the output file");
    let err = out.try_clone().expect("sharing the output file");
    // Reaped by `wait4` below, which also reports its resource usage.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", cli_config)
        .env("CHECKPOINT_DISABLE", "1")
        .env("TF_IN_AUTOMATION", "1")
        .env_remove("TF_LOG")
        .env_remove("TF_PLUGIN_CACHE_DIR")
        .env_remove("TF_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap_or_else(|e| panic!("starting {program}: {e}"));
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is this process's own child, not yet waited for.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "waiting for {program}");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let output = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    // Linux reports ru_maxrss in KiB.
    (code, output, usage.ru_maxrss as u64)
}

/// The CLI configuration file [`Work`] made for `work`.
fn cli_config_of(work: &Work) -> std::path::PathBuf {
    work.dir.with_extension("tfrc")
}

/// `init` of a module whose package expands to far more than memory may
/// hold: both tools unpack it, and terrace's peak resident memory stays
/// under [`MEMORY_BOUND_KIB`]. Each tool's peak is printed.
fn init_module_package(name: &str, package_name: &str, package: Vec<u8>) {
    // Shared, not copied: a copy would be resident in this process, and
    // a child started while it is counts it in its own peak.
    let package = std::sync::Arc::new(package);
    let server = LoopbackServer::start(move |_| {
        Reply::shared(package.clone()).header("Connection", "close")
    });
    let url = format!("http://{}", server.host());
    let config = format!("module \"big\" {{\n  source = \"{url}/{package_name}\"\n}}\n");
    let mut tools = vec![("terrace", env!("CARGO_BIN_EXE_terrace"))];
    if have_terraform() {
        tools.push(("terraform", "terraform"));
    }
    for (tool, program) in tools {
        let w = work(&format!("{name}-{tool}"));
        w.write("main.tf", &config);
        let (code, output, peak) =
            run_measuring_memory(program, &["init", "-no-color"], &w.dir, &cli_config_of(&w));
        assert_eq!(code, 0, "{tool} init:\n{output}");
        let big = w.path(".terraform/modules/big/big.bin");
        let expanded = std::fs::metadata(&big).map(|m| m.len()).unwrap_or(0);
        assert!(expanded > 0, "{tool} did not unpack {}", big.display());
        let _ = writeln!(
            std::io::stderr(),
            "{name}: {tool} init unpacked {expanded} bytes with a peak of {peak} KiB resident"
        );
        if tool == "terrace" {
            assert!(
                peak < MEMORY_BOUND_KIB,
                "terrace init used {peak} KiB (bound {MEMORY_BOUND_KIB} KiB)"
            );
        }
    }
}

const BIG_MODULE_TF: &str = "output \"ok\" {\n  value = true\n}\n";

#[test]
fn a_zip_module_package_expanding_to_a_gib_is_unpacked_in_bounded_memory() {
    let package = zip(&[
        stored("main.tf", BIG_MODULE_TF.as_bytes(), 0o644),
        zeros_entry("big.bin", 1 << 30, 0o644),
    ]);
    assert!(package.len() < 2 * MIB as usize, "{} bytes", package.len());
    init_module_package("zip-bomb", "big.zip", package);
}

#[test]
fn a_tar_gz_module_package_expanding_to_a_quarter_gib_is_unpacked_in_bounded_memory() {
    init_module_package("tgz-bomb", "big.tar.gz", tar_gz(BIG_MODULE_TF, 256 * MIB));
}

/// A package that is large itself (a quarter GiB stored, uncompressed, in
/// a zip): downloaded to a file as it arrives, never held in memory.
#[test]
fn a_large_module_package_is_downloaded_in_bounded_memory() {
    let size = 256 * MIB;
    // The archive as `zip` lays it out, with the big entry's bytes left
    // out: they are all zeros, so the whole package is that layout with
    // zeros spliced in, built without writing a quarter GiB twice.
    let mut big = stored("big.bin", b"", 0o644);
    big.crc = crc32_extend_zeros(0, size);
    big.size = size;
    let layout = zip(&[stored("main.tf", BIG_MODULE_TF.as_bytes(), 0o644), big]);
    // The big entry's data goes right before the central directory, which
    // starts at the offset the end record gives.
    let end = layout.len() - 22;
    let directory_at = u32::from_le_bytes([
        layout[end + 16],
        layout[end + 17],
        layout[end + 18],
        layout[end + 19],
    ]) as usize;
    let mut package = vec![0u8; layout.len() + size as usize];
    package[..directory_at].copy_from_slice(&layout[..directory_at]);
    let shifted_directory = directory_at + size as usize;
    package[shifted_directory..].copy_from_slice(&layout[directory_at..]);
    // Entry sizes and the directory's offset, as they are with the data in.
    let patch_u32 = |package: &mut Vec<u8>, at: usize, value: u32| {
        package[at..at + 4].copy_from_slice(&value.to_le_bytes());
    };
    let big_local = directory_at - 30 - "big.bin".len();
    patch_u32(&mut package, big_local + 18, size as u32);
    let big_central = shifted_directory + 46 + "main.tf".len();
    patch_u32(&mut package, big_central + 20, size as u32);
    let package_end = package.len() - 22;
    patch_u32(&mut package, package_end + 16, shifted_directory as u32);
    init_module_package("large-download", "big.zip", package);
}

#[test]
fn the_archive_builders_are_right() {
    // The zero-run CRC agrees with the plain one.
    for (prefix, zeros) in [(&b""[..], 0u64), (b"", 1), (b"abc", 1000), (b"x", 4096)] {
        let mut whole = prefix.to_vec();
        whole.resize(prefix.len() + zeros as usize, 0);
        assert_eq!(crc32_extend_zeros(crc32(prefix), zeros), crc32(&whole));
    }
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    // The concatenated pieces inflate to what they stand for.
    let stream = deflate_prefix_and_zeros(b"head", 3 * MIB + 5);
    let inflated = miniz_oxide::inflate::decompress_to_vec(&stream).expect("a valid stream");
    assert_eq!(inflated.len() as u64, 4 + 3 * MIB + 5);
    assert_eq!(&inflated[..4], b"head");
    assert!(inflated[4..].iter().all(|b| *b == 0));
}

/// A provider package (a zip in a filesystem mirror) whose executable
/// expands to a quarter GiB: installed, hashed and unpacked by `init` in
/// bounded memory.
#[test]
fn a_provider_package_expanding_to_a_quarter_gib_is_installed_in_bounded_memory() {
    let package = zip(&[zeros_entry(
        "terraform-provider-bomb_v1.0.0",
        256 * MIB,
        0o755,
    )]);
    let mut tools = vec![("terrace", env!("CARGO_BIN_EXE_terrace"))];
    if have_terraform() {
        tools.push(("terraform", "terraform"));
    }
    for (tool, program) in tools {
        let w = work(&format!("provider-bomb-{tool}"));
        let mirror = w.dir.with_extension("mirror");
        let packed = mirror.join("registry.terraform.io/hashicorp/bomb");
        std::fs::create_dir_all(&packed).expect("creating the mirror");
        std::fs::write(
            packed.join("terraform-provider-bomb_1.0.0_linux_amd64.zip"),
            &package,
        )
        .expect("writing the package");
        std::fs::write(
            cli_config_of(&w),
            format!(
                "provider_installation {{\n  filesystem_mirror {{\n    path = {:?}\n  }}\n}}\n",
                mirror.display().to_string()
            ),
        )
        .expect("writing the CLI configuration");
        w.write(
            "main.tf",
            "terraform {\n  required_providers {\n    bomb = { source = \"hashicorp/bomb\" }\n  }\n}\n",
        );
        let (code, output, peak) =
            run_measuring_memory(program, &["init", "-no-color"], &w.dir, &cli_config_of(&w));
        let _ = std::fs::remove_dir_all(&mirror);
        assert_eq!(code, 0, "{tool} init:\n{output}");
        let executable = w.path(
            ".terraform/providers/registry.terraform.io/hashicorp/bomb/1.0.0/linux_amd64/terraform-provider-bomb_v1.0.0",
        );
        let expanded = std::fs::metadata(&executable).map(|m| m.len()).unwrap_or(0);
        assert_eq!(expanded, 256 * MIB, "{tool}: {}", executable.display());
        let _ = writeln!(
            std::io::stderr(),
            "provider-bomb: {tool} init unpacked {expanded} bytes with a peak of {peak} KiB resident"
        );
        if tool == "terrace" {
            assert!(
                peak < MEMORY_BOUND_KIB,
                "terrace init used {peak} KiB (bound {MEMORY_BOUND_KIB} KiB)"
            );
        }
    }
}
