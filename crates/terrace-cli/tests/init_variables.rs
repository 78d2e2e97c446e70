//! `init` evaluates provider `for_each` and module sources from the same
//! variable sources a plan reads (`terraform.tfvars`, `*.auto.tfvars`,
//! `TF_VAR_`, `-var`, `-var-file`), and names a variable it needs and has
//! no value for.

mod engine_support;

use engine_support::Work;

const REGIONS: &str = r#"
terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}

variable "regions" {
  type = set(string)
}

provider "kv" {
  alias     = "by_region"
  for_each  = var.regions
  directory = "${path.module}/store"
  namespace = each.key
}

resource "kv_entry" "e" {
  for_each = var.regions
  provider = kv.by_region[each.key]
  key      = "k"
  value    = each.key
}
"#;

#[test]
fn init_reads_every_variable_source_and_names_a_missing_one() {
    let work = Work::with_mirror("init-vars");
    work.write("main.tf", REGIONS);

    let missing = work.terrace(&["init"]);
    assert_eq!(missing.code, Some(1), "{}", missing.output());
    assert!(
        missing.stderr.contains("No value for required variable")
            && missing.stderr.contains("\"regions\""),
        "{}",
        missing.output()
    );

    work.write("terraform.tfvars", "regions = [\"eu\", \"us\"]\n");
    work.terrace_ok(&["init"], 0);
    let apply = work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(apply.stdout.contains("2 added"), "{}", apply.output());
    std::fs::remove_file(work.path("terraform.tfvars")).unwrap();

    let env = work.terrace_env(&["init"], &[("TF_VAR_regions", "[\"eu\"]")]);
    assert_eq!(env.code, Some(0), "{}", env.output());
    work.terrace_ok(&["init", "-var", "regions=[\"eu\"]"], 0);
    work.write("vars.tfvars", "regions = [\"eu\"]\n");
    work.terrace_ok(&["init", "-var-file=vars.tfvars"], 0);
    work.write("regions.auto.tfvars", "regions = [\"eu\", \"us\"]\n");
    work.terrace_ok(&["init"], 0);
}

#[test]
fn validate_reads_variable_files_for_static_evaluation() {
    let work = Work::with_mirror("validate-vars");
    work.write("main.tf", REGIONS);
    work.write("terraform.tfvars", "regions = [\"eu\", \"us\"]\n");
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["validate"], 0);
    std::fs::remove_file(work.path("terraform.tfvars")).unwrap();
    let missing = work.terrace(&["validate"]);
    assert_eq!(missing.code, Some(1), "{}", missing.output());
    assert!(
        missing.stderr.contains("No value for required variable"),
        "{}",
        missing.output()
    );
}
