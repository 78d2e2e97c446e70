//! The real-world differential suite: each example of the ten
//! terraform-aws-modules modules in `../shared/realworld` run by
//! terraform 1.11.4 and by terrace side by side, each in its own
//! directory against its own `moto_server`, and compared step by step
//! (see [`Step`]) under the normalisation rules of [`normalise`].
//!
//! Settings (environment variables):
//! - `TERRACE_REALWORLD`: unset for the CI subset ([`CI_CASES`]), `all`
//!   for every example, or a comma-separated list of case ids
//!   (`kms/complete`).
//! - `TERRACE_REALWORLD_TERRACE`: the terrace binary (default: the one
//!   cargo built for this test); `scripts/realworld` gives a release build.
//! - `TERRACE_REALWORLD_PROVIDERS`: the directory holding the bundled
//!   `terraform-provider-null`/`-random` binaries (default: built here).
//! - `TERRACE_REALWORLD_JOBS`: cases run at once (default 2).
//! - `TERRACE_REALWORLD_REPORT`: a file to write the report to.
//! - `TERRACE_REALWORLD_KEEP=1`: keep the scratch directories.

pub mod hcltext;
pub mod inventory;
pub mod known;
pub mod normalise;
pub mod prepare;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value as Json;

use crate::engine_support::{bundled_providers, Moto, Run, Work, AWS_PACKAGE};
use normalise::{compare_text, json_difference, Pairs};
use prepare::Example;

/// The cases CI runs: small, quick, and between them covering a module
/// tree with `count`/`for_each`, data sources, the random provider from
/// the mirror and several AWS services.
pub const CI_CASES: [&str; 2] = [
    "cloudwatch/log-group-with-log-stream",
    "dynamodb-table/basic",
];

/// The versions under which terrace's own providers are offered in the
/// mirror: ones that meet the examples' constraints (`>= 2.0`, `>= 3.5`).
const MIRRORED: [(&str, &str, &str); 2] = [
    ("terraform-provider-random", "random", "3.7.2"),
    ("terraform-provider-null", "null", "3.2.4"),
];

/// The steps compared for each case, in order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum Step {
    /// `init`: exit status, text, `.terraform.lock.hcl` and
    /// `.terraform/modules/modules.json` byte for byte.
    Init,
    /// `validate -json`: the JSON document.
    Validate,
    /// `plan -out=tfplan`: exit status and text.
    Plan,
    /// `show -json tfplan`: the whole plan document but its `timestamp`.
    PlanJson,
    /// `apply tfplan`: exit status, text, and the objects moto gained.
    Apply,
    /// `terraform.tfstate`: as JSON but lineage and serial, and as bytes.
    State,
    /// A second `plan -detailed-exitcode`: exit status and text.
    Replan,
    /// terraform's `plan -detailed-exitcode` in terrace's directory, on
    /// terrace's state: what terraform's second plan on its own state said.
    CrossPlan,
    /// `destroy -auto-approve`: exit status and text.
    Destroy,
    /// moto after destroy: what is left beyond what it started with.
    MotoEmpty,
}

impl Step {
    pub const ALL: [Step; 10] = [
        Step::Init,
        Step::Validate,
        Step::Plan,
        Step::PlanJson,
        Step::Apply,
        Step::State,
        Step::Replan,
        Step::CrossPlan,
        Step::Destroy,
        Step::MotoEmpty,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Step::Init => "init",
            Step::Validate => "validate",
            Step::Plan => "plan",
            Step::PlanJson => "plan-json",
            Step::Apply => "apply",
            Step::State => "state",
            Step::Replan => "replan",
            Step::CrossPlan => "cross-plan",
            Step::Destroy => "destroy",
            Step::MotoEmpty => "moto-empty",
        }
    }
}

#[derive(Clone, Debug)]
pub enum Outcome {
    Pass,
    /// Passed, with something worth saying (objects both tools leave).
    PassNote(String),
    Fail(String),
    /// A divergence listed in [`known`], with what was seen.
    Known(&'static str, String),
    /// terraform fails here too because of moto (listed in [`known`]).
    Moto(&'static str),
    /// Not run, and why.
    NotRun(String),
    /// Not run because terraform hangs here against moto (listed in
    /// [`known`]).
    MotoHang(&'static str),
}

impl Outcome {
    fn cell(&self) -> String {
        match self {
            Outcome::Pass | Outcome::PassNote(_) => "ok".into(),
            Outcome::Fail(_) => "**FAIL**".into(),
            Outcome::Known(label, _) => format!("known {label}"),
            Outcome::Moto(_) => "moto".into(),
            Outcome::NotRun(_) => "–".into(),
            Outcome::MotoHang(_) => "moto–".into(),
        }
    }
}

pub struct StepResult {
    pub step: Step,
    pub outcome: Outcome,
    pub terraform: Option<Duration>,
    pub terrace: Option<Duration>,
}

pub struct CaseResult {
    pub id: String,
    pub left_out: Option<String>,
    pub notes: Vec<String>,
    pub steps: Vec<StepResult>,
}

impl CaseResult {
    pub fn failures(&self) -> Vec<String> {
        self.steps
            .iter()
            .filter_map(|s| match &s.outcome {
                Outcome::Fail(detail) => Some(format!("{} {}: {detail}", self.id, s.step.name())),
                _ => None,
            })
            .collect()
    }

    fn total(&self, pick: impl Fn(&StepResult) -> Option<Duration>) -> Duration {
        self.steps.iter().filter_map(pick).sum()
    }
}

/// Where the modules are: `../shared/realworld` beside the workspace.
pub fn realworld_root() -> PathBuf {
    let given = match std::env::var_os("TERRACE_REALWORLD_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => terrace_testsupport::shared_root().join("realworld"),
    };
    // Canonical, so that the modules' paths in sources and in the tools'
    // messages are the same short absolute paths on both sides.
    given.canonicalize().unwrap_or(given)
}

fn terrace_program() -> String {
    std::env::var("TERRACE_REALWORLD_TERRACE")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_terrace").to_string())
}

fn keep() -> bool {
    std::env::var("TERRACE_REALWORLD_KEEP").is_ok_and(|v| v == "1")
}

/// The scratch root of this test process.
fn scratch() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("terrace-realworld-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
        dir
    })
    .clone()
}

/// A filesystem mirror, built once: the image's AWS package linked in,
/// terrace's null and random providers copied in under hashicorp's
/// addresses. Both tools install from it and nothing else.
fn mirror() -> PathBuf {
    static MIRROR: OnceLock<PathBuf> = OnceLock::new();
    MIRROR
        .get_or_init(|| {
            let mirror = scratch().join("mirror");
            let host = mirror.join("registry.terraform.io/hashicorp");
            let aws = host.join("aws/5.100.0");
            std::fs::create_dir_all(&aws).unwrap_or_else(|e| panic!("creating the mirror: {e}"));
            std::os::unix::fs::symlink(AWS_PACKAGE, aws.join("linux_amd64"))
                .unwrap_or_else(|e| panic!("linking the AWS package: {e}"));
            let bin = match std::env::var_os("TERRACE_REALWORLD_PROVIDERS") {
                Some(dir) => PathBuf::from(dir),
                None => bundled_providers(),
            };
            for (package, name, version) in MIRRORED {
                let dir = host.join(name).join(version).join("linux_amd64");
                std::fs::create_dir_all(&dir)
                    .unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
                let target = dir.join(format!("{package}_v{version}"));
                std::fs::copy(bin.join(package), &target).unwrap_or_else(|e| {
                    panic!(
                        "copying {} into the mirror: {e}",
                        bin.join(package).display()
                    )
                });
            }
            mirror
        })
        .clone()
}

fn cli_config() -> String {
    format!(
        "provider_installation {{\n  filesystem_mirror {{\n    path = {:?}\n  }}\n}}\n",
        mirror().display().to_string()
    )
}

/// One tool's side of a case.
struct Side {
    work: Work,
    moto: Moto,
    program: String,
    baseline: Vec<String>,
    commands_run: std::sync::atomic::AtomicUsize,
}

impl Side {
    fn new(
        case_dir: &Path,
        tool: &str,
        example: &Example,
        program: String,
    ) -> Result<Side, String> {
        // AWS's managed policies exist in every account; moto loads them
        // only when asked (examples read them with `data "aws_iam_policy"`).
        let moto = Moto::start_with_env(&[("MOTO_IAM_LOAD_MANAGED_POLICIES", "true")]);
        // The same directory name on both sides: examples name their
        // objects after it (`basename(path.cwd)`).
        let work = Work::at(case_dir.join(tool).join(&example.name), &cli_config()).aws_at(&moto);
        let prepared = prepare::prepare(&realworld_root(), example)?;
        for (name, text) in &prepared.files {
            work.write(name, text);
        }
        for (name, target) in &prepared.links {
            std::os::unix::fs::symlink(target, work.path(name))
                .map_err(|e| format!("linking {name}: {e}"))?;
        }
        let baseline = inventory::list(&moto, &prepared.regions);
        Ok(Side {
            work,
            moto,
            program,
            baseline,
            commands_run: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    fn run(&self, args: &[&str]) -> (Run, Duration) {
        let started = Instant::now();
        let run = self.work.run(&self.program, args);
        let elapsed = started.elapsed();
        if keep() {
            // Beside the working directory, for a look afterwards,
            // numbered in the order the commands ran.
            let seq = self
                .commands_run
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let name = format!(
                "{}.{seq:02}-{}",
                self.work.dir.display(),
                args.iter()
                    .filter(|a| !a.starts_with('-'))
                    .copied()
                    .collect::<Vec<_>>()
                    .join("-")
            );
            let _ = std::fs::write(format!("{name}.stdout"), &run.stdout);
            let _ = std::fs::write(format!("{name}.stderr"), &run.stderr);
        }
        (run, elapsed)
    }

    fn read(&self, name: &str) -> Option<Vec<u8>> {
        std::fs::read(self.work.path(name)).ok()
    }

    fn state(&self) -> Json {
        self.read("terraform.tfstate")
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Json::Null)
    }
}

/// What one run of both tools for a step gave.
struct Pair {
    theirs: Run,
    ours: Run,
    their_time: Duration,
    our_time: Duration,
}

impl Pair {
    fn codes_differ(&self) -> Option<String> {
        (self.theirs.code != self.ours.code).then(|| {
            format!(
                "exit status: terraform {:?}, terrace {:?}\n--- terraform\n{}\n--- terrace\n{}",
                self.theirs.code,
                self.ours.code,
                normalise::clip(&self.theirs.all()),
                normalise::clip(&self.ours.all())
            )
        })
    }

    fn failed(&self) -> bool {
        self.theirs.code != Some(0)
    }

    /// Exit status, stdout and stderr under the text rules.
    fn compare_output(&self, pairs: &Pairs) -> Result<(), String> {
        if let Some(d) = self.codes_differ() {
            return Err(d);
        }
        compare_text(&self.theirs.stdout, &self.ours.stdout, pairs)
            .map_err(|d| format!("stdout: {d}"))?;
        compare_text(&self.theirs.stderr, &self.ours.stderr, pairs)
            .map_err(|d| format!("stderr: {d}"))
    }
}

struct CaseRunner<'a> {
    id: String,
    terraform: Side,
    terrace: Side,
    pairs: Pairs,
    results: Vec<StepResult>,
    regions: Vec<String>,
    known: &'a [known::Entry],
    /// Lines where terrace's output says "Terraform".
    self_naming: Vec<String>,
}

impl CaseRunner<'_> {
    fn both(&mut self, args: &[&str]) -> Pair {
        let (theirs, their_time) = self.terraform.run(args);
        let (ours, our_time) = self.terrace.run(args);
        for line in normalise::names_itself_terraform(&ours.all()) {
            if !self.self_naming.contains(&line) {
                self.self_naming.push(line);
            }
        }
        Pair {
            theirs,
            ours,
            their_time,
            our_time,
        }
    }

    fn record(&mut self, step: Step, compared: Result<(), String>, pair: Option<&Pair>) {
        self.record_with(step, compared, pair, None)
    }

    fn record_with(
        &mut self,
        step: Step,
        compared: Result<(), String>,
        pair: Option<&Pair>,
        note: Option<String>,
    ) {
        let terraform_failed = pair.is_some_and(Pair::failed);
        let entry = self
            .known
            .iter()
            .find(|e| e.case == self.id && e.step == step);
        let outcome = match (entry, compared) {
            (Some(e), compared) if matches!(e.kind, known::Kind::Moto) => {
                match (terraform_failed, compared) {
                    (false, _) => Outcome::Fail(format!(
                        "listed as failing in terraform because of moto ({}), but terraform succeeded: update known.rs and docs/CONFORMANCE.md",
                        e.reason
                    )),
                    (true, Err(detail)) => Outcome::Fail(format!(
                        "terraform fails here because of moto, and terrace differently: {detail}"
                    )),
                    (true, Ok(())) => Outcome::Moto(e.reason),
                }
            }
            (Some(e), Ok(())) => Outcome::Fail(format!(
                "the listed divergence {} ({}) is no longer seen: update known.rs and docs/CONFORMANCE.md",
                e.label, e.reason
            )),
            (Some(e), Err(detail)) => Outcome::Known(e.label, detail),
            (None, Ok(())) => match note {
                Some(n) => Outcome::PassNote(n),
                None => Outcome::Pass,
            },
            (None, Err(detail)) => Outcome::Fail(detail),
        };
        self.results.push(StepResult {
            step,
            outcome,
            terraform: pair.map(|p| p.their_time),
            terrace: pair.map(|p| p.our_time),
        });
    }

    fn not_run(&mut self, steps: &[Step], why: &str) {
        for step in steps {
            self.results.push(StepResult {
                step: *step,
                outcome: Outcome::NotRun(why.to_string()),
                terraform: None,
                terrace: None,
            });
        }
    }

    fn run(&mut self) -> Vec<StepResult> {
        // The two sides' own paths and endpoints always differ.
        self.pairs.add(
            &self.terrace.work.dir.display().to_string(),
            &self.terraform.work.dir.display().to_string(),
        );
        self.pairs
            .add(&self.terrace.moto.endpoint, &self.terraform.moto.endpoint);

        // init
        let init = self.both(&["init", "-no-color", "-input=false"]);
        let compared = init.compare_output(&self.pairs).and_then(|()| {
            if init.failed() {
                return Ok(());
            }
            for file in [".terraform.lock.hcl", ".terraform/modules/modules.json"] {
                let theirs = self.terraform.read(file);
                let ours = self.terrace.read(file);
                if theirs != ours {
                    return Err(format!(
                        "{file} differs:\n--- terraform\n{}\n--- terrace\n{}",
                        normalise::clip(&String::from_utf8_lossy(&theirs.unwrap_or_default())),
                        normalise::clip(&String::from_utf8_lossy(&ours.unwrap_or_default()))
                    ));
                }
            }
            Ok(())
        });
        self.record(Step::Init, compared, Some(&init));
        if init.failed() || init.ours.code != Some(0) {
            self.not_run(&Step::ALL[1..], "init failed");
            return std::mem::take(&mut self.results);
        }

        // validate
        let validate = self.both(&["validate", "-no-color", "-json"]);
        let compared = validate.codes_differ().map_or(Ok(()), Err).and_then(|()| {
            self.compare_json_documents(&validate.theirs.stdout, &validate.ours.stdout, &[])
        });
        self.record(Step::Validate, compared, Some(&validate));

        // plan
        let plan = self.both(&["plan", "-no-color", "-input=false", "-out=tfplan"]);
        let compared = plan.compare_output(&self.pairs);
        self.record(Step::Plan, compared, Some(&plan));
        if plan.failed() || plan.ours.code != Some(0) {
            let why = if plan.failed() {
                "terraform's plan failed"
            } else {
                "terrace's plan failed"
            };
            self.not_run(&Step::ALL[3..], why);
            return std::mem::take(&mut self.results);
        }

        // plan JSON
        let show = self.both(&["show", "-no-color", "-json", "tfplan"]);
        if let (Ok(theirs), Ok(ours)) = (
            serde_json::from_str::<Json>(&show.theirs.stdout),
            serde_json::from_str::<Json>(&show.ours.stdout),
        ) {
            self.pairs.add_plan_data_sources(&theirs, &ours);
        }
        let compared = show.codes_differ().map_or(Ok(()), Err).and_then(|()| {
            self.compare_json_documents(&show.theirs.stdout, &show.ours.stdout, &["timestamp"])
        });
        self.record(Step::PlanJson, compared, Some(&show));

        if let Some(entry) = self
            .known
            .iter()
            .find(|e| e.case == self.id && matches!(e.kind, known::Kind::MotoHang))
        {
            let from = Step::ALL.iter().position(|s| *s == entry.step).unwrap_or(0);
            for step in &Step::ALL[from..] {
                self.results.push(StepResult {
                    step: *step,
                    outcome: Outcome::MotoHang(entry.reason),
                    terraform: None,
                    terrace: None,
                });
            }
            return std::mem::take(&mut self.results);
        }

        // apply
        let apply = self.both(&["apply", "-no-color", "-input=false", "tfplan"]);
        let their_state = self.terraform.state();
        let our_state = self.terrace.state();
        self.pairs.add_states(&their_state, &our_state);
        let their_objects = inventory::added(
            &self.terraform.baseline,
            &inventory::list(&self.terraform.moto, &self.regions),
        );
        let our_objects: Vec<String> = inventory::added(
            &self.terrace.baseline,
            &inventory::list(&self.terrace.moto, &self.regions),
        )
        .iter()
        .map(|line| self.pairs.apply(line))
        .collect();
        let compared = apply.compare_output(&self.pairs).and_then(|()| {
            compare_lists("objects in moto after apply", &their_objects, &our_objects)
        });
        self.record(Step::Apply, compared, Some(&apply));

        // state
        let compared = self.compare_states();
        self.record(Step::State, compared, None);

        if apply.failed() || apply.ours.code != Some(0) {
            self.not_run(&[Step::Replan, Step::CrossPlan], "apply failed");
        } else {
            let replan = self.both(&["plan", "-no-color", "-input=false", "-detailed-exitcode"]);
            let compared = replan.compare_output(&self.pairs);
            self.record(Step::Replan, compared, Some(&replan));

            let started = Instant::now();
            let cross = self.terrace.work.run(
                "terraform",
                &["plan", "-no-color", "-input=false", "-detailed-exitcode"],
            );
            let cross_time = started.elapsed();
            let cross_pair = Pair {
                theirs: replan.theirs,
                ours: cross,
                their_time: replan.their_time,
                our_time: cross_time,
            };
            // Both texts are terraform's here: no name to replace, and
            // the cross run names terrace's objects.
            let compared = cross_pair.compare_output(&self.pairs);
            self.record(Step::CrossPlan, compared, Some(&cross_pair));
        }

        // destroy
        let destroy = self.both(&["destroy", "-no-color", "-input=false", "-auto-approve"]);
        let compared = destroy.compare_output(&self.pairs);
        self.record(Step::Destroy, compared, Some(&destroy));

        // moto left as it started
        let their_left = inventory::added(
            &self.terraform.baseline,
            &inventory::list(&self.terraform.moto, &self.regions),
        );
        let our_left: Vec<String> = inventory::added(
            &self.terrace.baseline,
            &inventory::list(&self.terrace.moto, &self.regions),
        )
        .iter()
        .map(|line| self.pairs.apply(line))
        .collect();
        let compared = compare_lists("objects left in moto after destroy", &their_left, &our_left);
        let note = (!their_left.is_empty()).then(|| {
            format!(
                "both leave in moto after destroy: {}",
                their_left.join("; ")
            )
        });
        self.record_with(Step::MotoEmpty, compared, None, note);
        std::mem::take(&mut self.results)
    }

    /// Two JSON documents (terrace's under the pairs) equal but `ignore`d
    /// top-level keys.
    fn compare_json_documents(
        &self,
        theirs: &str,
        ours: &str,
        ignore: &[&str],
    ) -> Result<(), String> {
        let parse = |who: &str, text: &str| -> Result<Json, String> {
            serde_json::from_str(text).map_err(|e| {
                format!(
                    "{who}'s output is not JSON ({e}): {}",
                    normalise::clip(text)
                )
            })
        };
        let mut theirs = parse("terraform", theirs)?;
        let mut ours = parse("terrace", &self.pairs.apply(ours))?;
        for doc in [&mut theirs, &mut ours] {
            if let Some(root) = doc.pointer_mut("/planned_values/root_module") {
                normalise::sort_nested_child_modules(root, 0);
            }
            normalise::sort_unordered_lists(doc);
        }
        let checks = normalise::split_check_results(&mut theirs, &mut ours);
        for key in ignore {
            if let Some(o) = theirs.as_object_mut() {
                o.remove(*key);
            }
            if let Some(o) = ours.as_object_mut() {
                o.remove(*key);
            }
        }
        match json_difference(&theirs, &ours, "") {
            None => checks,
            Some(d) => Err(d),
        }
    }

    fn compare_states(&self) -> Result<(), String> {
        let theirs = self.terraform.read("terraform.tfstate");
        let ours = self.terrace.read("terraform.tfstate");
        let (theirs, ours) = match (theirs, ours) {
            (None, None) => return Ok(()),
            (Some(t), Some(o)) => (t, o),
            (t, _) => {
                return Err(format!(
                    "only {} wrote terraform.tfstate",
                    if t.is_some() { "terraform" } else { "terrace" }
                ))
            }
        };
        // terraform writes a snapshot (and a serial) per finished
        // resource, terrace one per run: serials are not compared.
        let theirs = String::from_utf8_lossy(&theirs).into_owned();
        let ours = self.pairs.apply(&String::from_utf8_lossy(&ours));
        let without = |text: &str| -> Result<Json, String> {
            let mut v: Json =
                serde_json::from_str(text).map_err(|e| format!("state is not JSON: {e}"))?;
            if let Some(o) = v.as_object_mut() {
                o.remove("lineage");
                o.remove("serial");
            }
            normalise::sort_unordered_lists(&mut v);
            Ok(v)
        };
        let (mut their_json, mut our_json) = (without(&theirs)?, without(&ours)?);
        let checks = normalise::split_check_results(&mut their_json, &mut our_json);
        if let Some(d) = json_difference(&their_json, &our_json, "") {
            return Err(format!("state JSON: {d}"));
        }
        let (theirs, ours) = (
            normalise::sort_map_entry_runs(
                &normalise::without_sensitive_attribute_lists(&normalise::without_check_results(
                    &without_serial(&theirs),
                )),
                &|key| self.pairs.holds_paired_value(key),
            ),
            normalise::sort_map_entry_runs(
                &normalise::without_sensitive_attribute_lists(&normalise::without_check_results(
                    &without_serial(&ours),
                )),
                &|key| self.pairs.holds_paired_value(key),
            ),
        );
        if theirs != ours {
            let first = theirs
                .lines()
                .zip(ours.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(theirs.lines().count().min(ours.lines().count()));
            return Err(format!(
                "state bytes differ (JSON equal) from line {}: terraform {:?} vs terrace {:?}",
                first + 1,
                theirs.lines().nth(first).unwrap_or(""),
                ours.lines().nth(first).unwrap_or("")
            ));
        }
        checks
    }
}

/// A state file's text with its `"serial": N` line's number taken out.
fn without_serial(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("\"serial\":") {
                "  \"serial\": _,".to_string()
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn compare_lists(what: &str, theirs: &[String], ours: &[String]) -> Result<(), String> {
    let mut a = theirs.to_vec();
    let mut b = ours.to_vec();
    a.sort();
    b.sort();
    if a == b {
        return Ok(());
    }
    let only_theirs: Vec<&String> = a.iter().filter(|l| !b.contains(l)).collect();
    let only_ours: Vec<&String> = b.iter().filter(|l| !a.contains(l)).collect();
    Err(format!(
        "{what}: only terraform's: {only_theirs:?}; only terrace's: {only_ours:?}"
    ))
}

/// Runs one case to its end.
pub fn run_case(example: &Example, known: &[known::Entry]) -> CaseResult {
    let id = example.id();
    let case_dir = scratch().join(id.replace('/', "--"));
    // A first look without a server decides whether the case can run.
    let analysis = prepare::prepare(&realworld_root(), example);
    let prepared = match analysis {
        Ok(p) => p,
        Err(reason) => {
            return CaseResult {
                id,
                left_out: Some(reason),
                notes: Vec::new(),
                steps: Vec::new(),
            }
        }
    };
    let sides =
        Side::new(&case_dir, "terraform", example, "terraform".to_string()).and_then(|terraform| {
            Side::new(&case_dir, "terrace", example, terrace_program())
                .map(|terrace| (terraform, terrace))
        });
    let (terraform, terrace) = match sides {
        Ok(s) => s,
        Err(reason) => {
            return CaseResult {
                id,
                left_out: Some(reason),
                notes: prepared.notes,
                steps: Vec::new(),
            }
        }
    };
    let runner = CaseRunner {
        id: id.clone(),
        terraform,
        terrace,
        pairs: Pairs::default(),
        results: Vec::new(),
        regions: prepared.regions.clone(),
        known,
        self_naming: Vec::new(),
    };
    let mut runner = runner;
    let steps = runner.run();
    let mut notes = prepared.notes;
    if !runner.self_naming.is_empty() {
        notes.push(format!(
            "terrace's output names the product \"Terraform\" in {} distinct line(s), e.g. {:?}",
            runner.self_naming.len(),
            runner.self_naming.iter().take(3).collect::<Vec<_>>()
        ));
    }
    if keep() {
        // Work removes its directory on drop: forget the two instead.
        let CaseRunner {
            terraform, terrace, ..
        } = runner;
        for side in [terraform, terrace] {
            let Side { work, moto, .. } = side;
            std::mem::forget(work);
            drop(moto);
        }
    } else {
        drop(runner);
        let _ = std::fs::remove_dir_all(&case_dir);
    }
    CaseResult {
        id,
        left_out: None,
        notes,
        steps,
    }
}

/// The cases selected by `TERRACE_REALWORLD`.
pub fn selected(all: &[Example]) -> Vec<Example> {
    let choice = std::env::var("TERRACE_REALWORLD").unwrap_or_default();
    let wanted: Vec<String> = match choice.trim() {
        "" => CI_CASES.iter().map(|s| s.to_string()).collect(),
        "all" => return all.to_vec(),
        list => list.split(',').map(|s| s.trim().to_string()).collect(),
    };
    for w in &wanted {
        assert!(
            all.iter().any(|e| &e.id() == w),
            "no example {w} under {}",
            realworld_root().display()
        );
    }
    all.iter()
        .filter(|e| wanted.contains(&e.id()))
        .cloned()
        .collect()
}

/// Runs the cases, `TERRACE_REALWORLD_JOBS` at a time, in their order.
pub fn run_all(examples: &[Example], known: &[known::Entry]) -> Vec<CaseResult> {
    let jobs: usize = std::env::var("TERRACE_REALWORLD_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(2);
    // Popped from the end: reversed, so cases start in their order.
    let queue = Mutex::new(examples.iter().enumerate().rev().collect::<Vec<_>>());
    let results = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(examples.len().max(1)) {
            scope.spawn(|| loop {
                let next = queue.lock().unwrap_or_else(PoisonError::into_inner).pop();
                let Some((index, example)) = next else { break };
                let started = Instant::now();
                // A case that hangs (a command past its time limit) or
                // breaks the harness is reported, and the others go on.
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_case(example, known)
                }))
                .unwrap_or_else(|panic| {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "a panic without a message".into());
                    CaseResult {
                        id: example.id(),
                        left_out: None,
                        notes: Vec::new(),
                        steps: vec![StepResult {
                            step: Step::Init,
                            outcome: Outcome::Fail(format!(
                                "the case did not finish: {}",
                                normalise::clip(&message)
                            )),
                            terraform: None,
                            terrace: None,
                        }],
                    }
                });
                progress(&format!(
                    "{} done in {:.0}s: {}",
                    result.id,
                    started.elapsed().as_secs_f64(),
                    match &result.left_out {
                        Some(r) => format!("left out ({r})"),
                        None => result
                            .steps
                            .iter()
                            .map(|s| format!("{} {}", s.step.name(), s.outcome.cell()))
                            .collect::<Vec<_>>()
                            .join(", "),
                    }
                ));
                results
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(index, result);
            });
        }
    });
    if !keep() {
        let _ = std::fs::remove_dir_all(scratch());
    }
    results
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .into_values()
        .collect()
}

/// A line past the test harness's capture, so progress shows as it goes.
pub fn progress(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "realworld: {line}");
}

fn secs(d: Option<Duration>) -> String {
    d.map_or("–".into(), |d| format!("{:.1}", d.as_secs_f64()))
}

/// The report: a table of cases × steps (outcome, terraform's and
/// terrace's seconds), then every finding in full.
pub fn report(results: &[CaseResult]) -> String {
    let mut out = String::new();
    out.push_str("| case |");
    for step in Step::ALL {
        out.push_str(&format!(" {} |", step.name()));
    }
    out.push_str(" total |\n|---|");
    for _ in Step::ALL {
        out.push_str("---|");
    }
    out.push_str("---|\n");
    let mut left_out = Vec::new();
    let mut details = Vec::new();
    let mut notes = Vec::new();
    for case in results {
        if let Some(reason) = &case.left_out {
            left_out.push(format!("- `{}`: {reason}", case.id));
            continue;
        }
        out.push_str(&format!("| {} |", case.id));
        let mut not_run_noted = false;
        for step in Step::ALL {
            match case.steps.iter().find(|s| s.step == step) {
                Some(s) => {
                    let times = if s.terraform.is_some() || s.terrace.is_some() {
                        format!(" {}/{}", secs(s.terraform), secs(s.terrace))
                    } else {
                        String::new()
                    };
                    out.push_str(&format!(" {}{times} |", s.outcome.cell()));
                    match &s.outcome {
                        Outcome::Fail(d) => details.push(format!(
                            "### {} {}: FAIL\n\n```\n{}\n```\n",
                            case.id,
                            step.name(),
                            d.trim_end()
                        )),
                        Outcome::Known(label, d) => details.push(format!(
                            "### {} {}: known {label}\n\n```\n{}\n```\n",
                            case.id,
                            step.name(),
                            d.trim_end()
                        )),
                        Outcome::Moto(reason) => notes.push(format!(
                            "- `{}` {}: terraform fails the same way because of moto: {reason}",
                            case.id,
                            step.name()
                        )),
                        Outcome::PassNote(n) => {
                            notes.push(format!("- `{}` {}: {n}", case.id, step.name()))
                        }
                        Outcome::MotoHang(why) if !not_run_noted => {
                            not_run_noted = true;
                            notes.push(format!(
                                "- `{}`: {} and later steps not run: {why}",
                                case.id,
                                step.name()
                            ))
                        }
                        Outcome::NotRun(why) if !not_run_noted => {
                            not_run_noted = true;
                            notes.push(format!(
                                "- `{}`: {} and later steps not run: {why}",
                                case.id,
                                step.name()
                            ))
                        }
                        _ => {}
                    }
                }
                None => out.push_str(" |"),
            }
        }
        out.push_str(&format!(
            " {}/{} |\n",
            secs(Some(case.total(|s| s.terraform))),
            secs(Some(case.total(|s| s.terrace)))
        ));
        for n in &case.notes {
            notes.push(format!("- `{}`: {n}", case.id));
        }
    }
    out.push_str(
        "\nCells: outcome, then terraform's/terrace's seconds for the step \
         (cross-plan: terraform's own second plan / terraform on terrace's state).\n",
    );
    if !notes.is_empty() {
        out.push_str("\nNotes:\n\n");
        out.push_str(&notes.join("\n"));
        out.push('\n');
    }
    if !left_out.is_empty() {
        out.push_str("\nLeft out:\n\n");
        out.push_str(&left_out.join("\n"));
        out.push('\n');
    }
    if !details.is_empty() {
        out.push_str("\nFindings:\n\n");
        out.push_str(&details.join("\n"));
    }
    out
}
