//! The HTML report (`plan -html=FILE`, `show -html PLANFILE`, `graph
//! -html`) of real plans made with the bundled providers, opened in
//! headless Chromium: the counts, the groups by provider instance and each
//! change's diff in the DOM against `show -json`; no sensitive value
//! anywhere in the file; no request made by the page (Chromium's network
//! log of a run with the network blocked, plus a scan of the file for
//! anything that would load); a 5,000-resource module tree under 5 MB.
//! Screenshots and the reports are kept in `target/report-html/`.

mod engine_support;
mod report_support;

use engine_support::{Overrides, Work};
use report_support::*;
use serde_json::Value as Json;
use std::path::Path;
use terrace_testsupport::chromium;

fn bundled(name: &str) -> Work {
    Work::new(
        name,
        Overrides {
            bundled: true,
            aws: false,
        },
    )
}

/// `show -json PLANFILE`, parsed.
fn show_json(work: &Work, plan: &str) -> Json {
    let run = work.terrace_ok(&["show", "-json", plan], 0);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("show -json: {e}\n{}", run.stdout))
}

/// Opens `page` in Chromium, checks that it ran its script and asked the
/// network for nothing, saves a screenshot as `target/report-html/NAME.png`
/// (and the page beside it); returns the DOM.
fn open_in_chromium(work: &Work, page: &Path, name: &str) -> String {
    let run = chromium::dump_dom(page, &work.dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        run.dom.contains("data-ready=\"1\""),
        "the page's script did not run to its end"
    );
    assert_eq!(
        page_requests(&run.net_log),
        Vec::<String>::new(),
        "requests made by {name}"
    );
    let artifacts = artifacts_dir();
    let _ = std::fs::copy(page, artifacts.join(format!("{name}.html")));
    chromium::screenshot(
        page,
        &artifacts.join(format!("{name}.png")),
        1280,
        1600,
        &work.dir,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    run.dom
}

/// Whether a change's address (as text) has the instance key `key`.
fn changes_have_key(dom: &str, key: &str) -> bool {
    shown_changes(dom)
        .iter()
        .any(|c| c.address.contains(&format!("[{key:?}]")))
}

const SECRET: &str = "hunter2-correct-horse-battery";

fn sensitive_config() -> String {
    format!(
        r#"
variable "password" {{
  type      = string
  default   = "{SECRET}"
  sensitive = true
}}

resource "random_pet" "name" {{
  for_each = toset(["blue", "green", "<img src=x onerror=alert(1)>"])
  keepers  = {{ password = var.password }}
}}

resource "null_resource" "app" {{
  for_each = random_pet.name
  triggers = {{
    pet      = each.value.id
    password = var.password
    markup   = "<script>alert('x')</script> & \"quotes\""
  }}
}}

resource "random_password" "db" {{
  length = 16
}}

output "password" {{
  value     = var.password
  sensitive = true
}}

output "pets" {{
  value = [for p in random_pet.name : p.id]
}}
"#
    )
}

#[test]
fn report_of_a_plan_with_sensitive_values_matches_show_json_and_hides_them() {
    if !chromium::require_chromium() {
        return;
    }
    let work = bundled("report-sensitive");
    work.write("main.tf", &sensitive_config());
    work.terrace_ok(&["plan", "-out=p.tfplan", "-html=plan.html"], 0);
    let show = work.terrace_ok(&["show", "-html", "p.tfplan"], 0);
    work.write("show.html", &show.stdout);
    let json = show_json(&work, "p.tfplan");

    for file in ["plan.html", "show.html"] {
        let html = std::fs::read_to_string(work.path(file)).expect("the report");
        assert!(!html.contains(SECRET), "{file} holds the sensitive value");
        assert!(
            !html.contains("<script>alert"),
            "{file} holds unescaped markup"
        );
        assert_eq!(loading_references(&html), Vec::<String>::new(), "{file}");
    }

    let dom = open_in_chromium(&work, &work.path("show.html"), "sensitive");
    assert!(!dom.contains(SECRET), "the DOM holds the sensitive value");
    assert_eq!(shown_counts(&dom), json_counts(&json));
    assert_eq!(shown_counts(&dom)["add"], 7);
    assert!(!dom.contains("<img"), "a key became markup");
    assert!(changes_have_key(&dom, "<img src=x onerror=alert(1)>"));
    assert_changes_match_json(&dom, &json);
    let changes = shown_changes(&dom);
    let app = changes
        .iter()
        .find(|c| c.address == "null_resource.app[\"blue\"]")
        .expect("null_resource.app[\"blue\"]");
    assert!(
        app.diff.contains("\"password\" = (sensitive value)"),
        "{}",
        app.diff
    );
    assert!(
        app.diff
            .contains(r#""<script>alert('x')</script> & \"quotes\"""#),
        "the markup is shown as text: {}",
        app.diff
    );
    assert_eq!(app.group, "null");
    // Outputs: the sensitive one hidden, the unknown one marked.
    let outputs = dom
        .find("<section id=\"outputs\"")
        .expect("the output changes");
    let outputs = text_of(&dom[outputs..]);
    assert!(
        outputs.contains("+ password = (sensitive value)"),
        "{outputs}"
    );
    assert!(outputs.contains("(known after apply)"), "{outputs}");
    // The graph: the app instances depend on the pets.
    assert!(
        dom.contains("class=\"edges\"><path"),
        "no dependency edges drawn"
    );
    // A graph node links to its change; following the link opens it and
    // marks the node.
    assert!(dom.contains(&format!("<a href=\"#{}\" class=\"node a-create\">", app.id)));
    let opened = chromium::dump_dom_at(&work.path("show.html"), &app.id, &work.dir)
        .unwrap_or_else(|e| panic!("{e}"));
    let tag_of = |dom: &str| {
        let start = dom.find(&format!("id=\"{}\"", app.id)).expect("the change");
        dom[start..start + dom[start..].find('>').expect("tag end")].to_string()
    };
    assert!(!tag_of(&dom).contains(" open"), "{}", tag_of(&dom));
    assert!(
        tag_of(&opened.dom).contains(" open"),
        "following #{} did not open it: {}",
        app.id,
        tag_of(&opened.dom)
    );
    assert!(
        opened.dom.contains(&format!(
            "<a href=\"#{}\" class=\"node a-create selected\">",
            app.id
        )),
        "the node is not marked"
    );
}

#[test]
fn report_counts_moves_and_says_where_from() {
    if !chromium::require_chromium() {
        return;
    }
    let work = bundled("report-moved");
    work.write("main.tf", "resource \"null_resource\" \"old\" {}\n");
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    work.write(
        "main.tf",
        "resource \"null_resource\" \"new\" {}\n\nmoved {\n  from = null_resource.old\n  to   = null_resource.new\n}\n",
    );
    work.terrace_ok(&["plan", "-out=p.tfplan"], 0);
    let show = work.terrace_ok(&["show", "-html", "p.tfplan"], 0);
    work.write("show.html", &show.stdout);
    let json = show_json(&work, "p.tfplan");
    let dom = open_in_chromium(&work, &work.path("show.html"), "moved");
    assert_eq!(shown_counts(&dom), json_counts(&json));
    assert_eq!(shown_counts(&dom)["move"], 1);
    assert_changes_match_json(&dom, &json);
    let changes = shown_changes(&dom);
    assert_eq!(changes.len(), 1);
    assert!(
        changes[0].summary.contains("moved from null_resource.old"),
        "{}",
        changes[0].summary
    );
}

#[test]
fn report_of_a_replacement_says_why() {
    if !chromium::require_chromium() {
        return;
    }
    let work = bundled("report-replace");
    work.write(
        "main.tf",
        r#"
resource "random_pet" "a" {
  length = 2
}
resource "null_resource" "tainted" {}
resource "null_resource" "triggered" {
  lifecycle {
    replace_triggered_by = [random_pet.a]
  }
}
"#,
    );
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    work.write(
        "main.tf",
        r#"
resource "random_pet" "a" {
  length = 3
}
resource "null_resource" "tainted" {}
resource "null_resource" "triggered" {
  lifecycle {
    replace_triggered_by = [random_pet.a]
  }
}
"#,
    );
    work.terrace_ok(&["taint", "null_resource.tainted"], 0);
    work.terrace_ok(&["plan", "-out=p.tfplan"], 0);
    let show = work.terrace_ok(&["show", "-html", "p.tfplan"], 0);
    work.write("show.html", &show.stdout);
    let json = show_json(&work, "p.tfplan");
    let dom = open_in_chromium(&work, &work.path("show.html"), "replace");
    assert_eq!(shown_counts(&dom), json_counts(&json));
    assert_eq!(shown_counts(&dom)["replace"], 3);
    assert_changes_match_json(&dom, &json);
    let changes = shown_changes(&dom);
    let summary = |address: &str| {
        changes
            .iter()
            .find(|c| c.address == address)
            .unwrap_or_else(|| panic!("{address} in {changes:?}"))
            .summary
            .clone()
    };
    assert!(
        summary("random_pet.a").contains("requires_replace: length"),
        "{}",
        summary("random_pet.a")
    );
    assert!(summary("null_resource.tainted").contains("tainted"));
    assert!(summary("null_resource.triggered").contains("replace_triggered_by"));
    assert!(dom.contains("<code class=\"replace-path\">length</code>"));
    let pet = changes
        .iter()
        .find(|c| c.address == "random_pet.a")
        .expect("random_pet.a");
    assert!(pet.diff.contains("# forces replacement"), "{}", pet.diff);
}

/// `(address, status)` of each configuration object in the report's
/// check results.
fn shown_checks(dom: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = dom;
    while let Some(i) = rest.find("data-check=\"") {
        rest = &rest[i + "data-check=\"".len()..];
        let Some(end) = rest.find('"') else { break };
        let address = rest[..end].to_string();
        let status = rest
            .find("data-status=\"")
            .map(|j| &rest[j + "data-status=\"".len()..])
            .and_then(|r| r.find('"').map(|e| r[..e].to_string()))
            .unwrap_or_default();
        out.push((address, status));
    }
    out
}

#[test]
fn report_of_check_results_matches_show_json() {
    if !chromium::require_chromium() {
        return;
    }
    let work = bundled("report-checks");
    work.write(
        "main.tf",
        r#"
variable "size" {
  default = 3
  validation {
    condition     = var.size > 0
    error_message = "size must be positive"
  }
}
resource "random_pet" "p" {
  count  = 2
  length = var.size
  lifecycle {
    postcondition {
      condition     = length(split("-", self.id)) == var.size
      error_message = "wrong length"
    }
  }
}
check "never" {
  assert {
    condition     = var.size > 10
    error_message = "size is only ${var.size}"
  }
}
output "first" {
  value = random_pet.p[0].id
  precondition {
    condition     = length(random_pet.p) == 2
    error_message = "two pets"
  }
}
"#,
    );
    work.terrace_ok(&["plan", "-out=p.tfplan"], 0);
    let show = work.terrace_ok(&["show", "-html", "p.tfplan"], 0);
    work.write("show.html", &show.stdout);
    let json = show_json(&work, "p.tfplan");
    let dom = open_in_chromium(&work, &work.path("show.html"), "checks");
    let expected: Vec<(String, String)> = json["checks"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|c| {
                    (
                        c["address"]["to_display"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string(),
                        c["status"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(expected.len(), 4, "{}", json["checks"]);
    assert_eq!(shown_checks(&dom), expected);
    assert!(
        dom.contains("size is only 3"),
        "the failed assertion's message"
    );
}

#[test]
fn report_of_a_failed_plan_shows_the_errors_with_their_source() {
    if !chromium::require_chromium() {
        return;
    }
    let work = bundled("report-failed");
    work.write(
        "main.tf",
        r#"
variable "replicas" {
  type    = number
  default = 1
}

resource "null_resource" "fine" {}

resource "null_resource" "checked" {
  lifecycle {
    precondition {
      condition     = var.replicas > 2
      error_message = "At least three replicas are needed."
    }
  }
}
"#,
    );
    let run = work.terrace(&["plan", "-html=plan.html"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    let html =
        std::fs::read_to_string(work.path("plan.html")).expect("the report of a failed plan");
    assert_eq!(loading_references(&html), Vec::<String>::new());
    let dom = open_in_chromium(&work, &work.path("plan.html"), "failed");
    assert!(
        dom.contains("status-errored"),
        "the page does not say the plan failed"
    );
    let diagnostics = dom
        .find("<section id=\"diagnostics\"")
        .expect("the diagnostics section");
    let diagnostics = text_of(&dom[diagnostics..]);
    assert!(
        diagnostics.contains("Resource precondition failed"),
        "{diagnostics}"
    );
    assert!(
        diagnostics.contains("At least three replicas are needed."),
        "{diagnostics}"
    );
    // The source snippet, with its line number, as the CLI shows it.
    assert!(
        diagnostics.contains("condition     = var.replicas > 2"),
        "{diagnostics}"
    );
    assert!(diagnostics.contains("main.tf line 12"), "{diagnostics}");
    assert!(dom.contains("<span id=\"error-count\">1</span>"));
}

/// A module tree of 5,000 resources: ten regions (`for_each`), ten apps in
/// each (`count`), fifty resources in each app.
fn write_large_tree(work: &Work) {
    work.write(
        "main.tf",
        r#"
module "region" {
  source   = "./modules/region"
  for_each = toset(["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9"])
  name     = each.key
}
"#,
    );
    work.write(
        "modules/region/main.tf",
        r#"
variable "name" { type = string }
module "app" {
  source = "../app"
  count  = 10
  name   = "${var.name}-${count.index}"
}
"#,
    );
    work.write(
        "modules/app/main.tf",
        r#"
variable "name" { type = string }
resource "null_resource" "base" {
  count    = 10
  triggers = { name = "${var.name}-base-${count.index}" }
}
resource "null_resource" "service" {
  count    = 20
  triggers = { base = null_resource.base[count.index % 10].id, name = var.name }
}
resource "null_resource" "edge" {
  count    = 20
  triggers = { service = null_resource.service[count.index].id }
}
"#,
    );
}

/// The bound the report of 5,000 changes must stay under.
const LARGE_REPORT_LIMIT: u64 = 5 * 1024 * 1024;

#[test]
fn report_of_a_five_thousand_resource_module_tree_stays_under_five_megabytes() {
    if !chromium::require_chromium() {
        return;
    }
    let work = bundled("report-large");
    write_large_tree(&work);
    work.terrace_ok(&["plan", "-out=p.tfplan"], 0);
    let show = work.terrace_ok(&["show", "-html", "p.tfplan"], 0);
    work.write("show.html", &show.stdout);
    let size = std::fs::metadata(work.path("show.html"))
        .expect("the report")
        .len();
    assert!(size < LARGE_REPORT_LIMIT, "the report is {size} bytes");
    let json = show_json(&work, "p.tfplan");
    let dom = open_in_chromium(&work, &work.path("show.html"), "large");
    assert_eq!(shown_counts(&dom), json_counts(&json));
    assert_eq!(shown_counts(&dom)["add"], 5000);
    assert_changes_match_json(&dom, &json);
    // One group per module instance in the module section.
    let module_groups = dom.matches("<details class=\"group\" data-module=").count();
    assert_eq!(module_groups, 100);
}

#[test]
fn graph_html_draws_the_configuration() {
    let work = bundled("report-graph");
    work.write(
        "main.tf",
        r#"
resource "random_pet" "a" {}
resource "null_resource" "b" {
  triggers = { pet = random_pet.a.id }
}
module "child" {
  source = "./child"
  pet    = random_pet.a.id
}
"#,
    );
    work.write(
        "child/main.tf",
        r#"
variable "pet" { type = string }
resource "null_resource" "c" {
  triggers = { pet = var.pet }
}
"#,
    );
    let run = work.terrace_ok(&["graph", "-html"], 0);
    let html = run.stdout;
    assert_eq!(loading_references(&html), Vec::<String>::new());
    for resource in [
        "random_pet.a",
        "null_resource.b",
        "module.child.null_resource.c",
    ] {
        assert!(
            html.contains(&format!("data-address=\"{resource}\"")),
            "{resource}:\n{html}"
        );
    }
    // Three nodes, two edges (b and c depend on a), a band per module.
    assert_eq!(html.matches("class=\"node a-config\"").count(), 3);
    let edges = html.find("<g class=\"edges\">").expect("the edges");
    let edges = &html[edges..edges + html[edges..].find("</g>").expect("their end")];
    assert_eq!(edges.matches("<path ").count(), 2, "{edges}");
    assert!(html.contains(">module.child</text>"), "{html}");
}

#[test]
fn the_network_check_sees_a_page_that_loads_something() {
    if !chromium::require_chromium() {
        return;
    }
    let work = bundled("report-leak");
    let page = "<!DOCTYPE html><html><body><img src=\"http://leak.invalid/x.png\">\
        <script>fetch('https://other.invalid/y').catch(function(){});</script></body></html>";
    work.write("leak.html", page);
    let run =
        chromium::dump_dom(&work.path("leak.html"), &work.dir).unwrap_or_else(|e| panic!("{e}"));
    let requests = page_requests(&run.net_log);
    assert!(
        requests.iter().any(|u| u.contains("leak.invalid")),
        "{requests:?}"
    );
    assert!(!loading_references(page).is_empty());
    assert_eq!(
        loading_references("<p>&lt;img src=x&gt; url(http://x) <a href=\"#c1\">x</a></p>"),
        Vec::<String>::new(),
        "escaped text and fragment links load nothing"
    );
}

#[test]
fn report_of_drift_shows_what_changed_outside() {
    if !chromium::require_chromium() {
        return;
    }
    let work = bundled("report-drift");
    work.write(
        "main.tf",
        r#"
resource "local_file" "f" {
  filename = "${path.module}/out.txt"
  content  = "hello"
}
resource "null_resource" "n" {
  triggers = { c = local_file.f.content_md5 }
}
"#,
    );
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    std::fs::remove_file(work.path("out.txt")).expect("removing the file outside");
    work.terrace_ok(&["plan", "-out=p.tfplan"], 0);
    let show = work.terrace_ok(&["show", "-html", "p.tfplan"], 0);
    work.write("show.html", &show.stdout);
    let json = show_json(&work, "p.tfplan");
    let dom = open_in_chromium(&work, &work.path("show.html"), "drift");
    assert_eq!(shown_counts(&dom), json_counts(&json));
    assert_changes_match_json(&dom, &json);
    let drifted: Vec<&str> = json["resource_drift"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["address"].as_str())
        .collect();
    assert_eq!(drifted, ["local_file.f"]);
    let section = dom
        .find("<section id=\"drift\"")
        .expect("the drift section");
    let section = &dom[section..section + dom[section..].find("</section>").expect("its end")];
    assert!(
        section.contains("data-address=\"local_file.f\""),
        "{section}"
    );
    let text = text_of(section);
    assert!(text.contains("deleted"), "{text}");
    assert!(
        text.contains("- content_md5          = \"5d41402abc4b2a76b9719d911017c592\" -> null"),
        "{text}"
    );
}

#[test]
fn plan_html_reports_errors_found_before_planning() {
    let work = Work::new(
        "report-invalid",
        Overrides {
            bundled: false,
            aws: false,
        },
    );
    work.write("main.tf", "output \"x\" {\n  value = var.missing\n}\n");
    let run = work.terrace(&["plan", "-html=plan.html"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stderr
            .contains("Reference to undeclared input variable"),
        "{}",
        run.output()
    );
    let html = std::fs::read_to_string(work.path("plan.html")).expect("the report");
    assert!(html.contains("status-errored"));
    let diagnostics = html
        .find("<section id=\"diagnostics\"")
        .expect("the diagnostics section");
    let text = text_of(&html[diagnostics..]);
    assert!(
        text.contains("Reference to undeclared input variable"),
        "{text}"
    );
    assert!(text.contains("value = var.missing"), "{text}");
    assert_eq!(loading_references(&html), Vec::<String>::new());
}
