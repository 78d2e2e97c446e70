//! The HTML report (`plan -html=FILE`, `show -html PLANFILE`, `graph
//! -html`) of real plans made with the bundled providers, opened in
//! headless Chromium: the counts, the groups by provider instance and each
//! change's diff in the DOM against `show -json`; no sensitive value
//! anywhere in the file; no request made by the page (Chromium's network
//! log of a run with the network blocked, plus a scan of the file for
//! anything that would load); a 5,000-resource module tree under 5 MB.
//! The same reports in headless Firefox, driven as a person uses them:
//! keys, the filter, the action checkboxes, a click on a graph node, both
//! colour schemes. Screenshots and the reports are kept in
//! `target/report-html/`.

mod engine_support;
mod report_support;

use engine_support::{Overrides, Work};
use report_support::*;
use serde_json::Value as Json;
use std::path::Path;
use terrace_testsupport::chromium;
use terrace_testsupport::firefox::{self, Firefox};

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

/// Opens `page` in Firefox, checks that its script ran to its end and that
/// nothing was requested (the page's own resource timings and the
/// browser's proxy), saves a screenshot as
/// `target/report-html/NAME-firefox.png`; the browser and the DOM.
fn open_in_firefox(work: &Work, page: &Path, name: &str) -> (Firefox, String) {
    let mut browser = Firefox::start(&work.dir).unwrap_or_else(|e| panic!("{e}"));
    browser
        .open(page, "")
        .unwrap_or_else(|e| panic!("{e}\n{}", browser.log()));
    let dom = browser.dom().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page's script did not run to its end in Firefox"
    );
    assert_firefox_loaded_nothing(&mut browser, name);
    firefox::screenshot(
        page,
        &artifacts_dir().join(format!("{name}-firefox.png")),
        1280,
        1600,
        &work.dir,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (browser, dom)
}

fn assert_firefox_loaded_nothing(browser: &mut Firefox, name: &str) {
    let loaded = browser
        .run("return performance.getEntriesByType('resource').map(function(e){return e.name;});")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded, serde_json::json!([]), "resources loaded by {name}");
    assert_eq!(
        browser.requests(),
        Vec::<String>::new(),
        "requests made by {name} in Firefox"
    );
}

/// The change (`details.change`) that holds the focus, by id.
fn focused_change(browser: &mut Firefox) -> Json {
    browser
        .run(
            "var a=document.activeElement;\
             while(a&&!(a.classList&&a.classList.contains('change')))a=a.parentElement;\
             return a?a.id:null;",
        )
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The ids of the changes not hidden by the filters, in page order.
fn visible_changes(browser: &mut Firefox) -> Vec<String> {
    let ids = browser
        .run(
            "return Array.prototype.map.call(\
             document.querySelectorAll('#by-provider details.change:not(.hidden)'),\
             function(d){return d.id;});",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_value(ids).unwrap_or_else(|e| panic!("{e}"))
}

fn is_open(browser: &mut Firefox, id: &str) -> bool {
    browser
        .run(&format!("return document.getElementById({id:?}).open;"))
        .unwrap_or_else(|e| panic!("{e}"))
        == Json::Bool(true)
}

#[test]
fn report_works_in_firefox_with_the_keyboard_and_the_pointer() {
    if !firefox::require_firefox() {
        return;
    }
    let work = bundled("report-firefox");
    work.write("main.tf", &sensitive_config());
    work.terrace_ok(&["plan", "-out=p.tfplan"], 0);
    let show = work.terrace_ok(&["show", "-html", "p.tfplan"], 0);
    work.write("show.html", &show.stdout);
    let json = show_json(&work, "p.tfplan");
    let (mut browser, dom) = open_in_firefox(&work, &work.path("show.html"), "sensitive");

    // What Firefox shows is what show -json says, secrets hidden.
    assert!(!dom.contains(SECRET), "the DOM holds the sensitive value");
    assert_eq!(shown_counts(&dom), json_counts(&json));
    assert_changes_match_json(&dom, &json);
    let changes = shown_changes(&dom);
    let ids: Vec<String> = changes.iter().map(|c| c.id.clone()).collect();
    assert_eq!(visible_changes(&mut browser), ids);

    // j and k walk the changes, o opens the one with the focus.
    browser.press("j").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(focused_change(&mut browser), Json::from(ids[0].clone()));
    browser.press("jj").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(focused_change(&mut browser), Json::from(ids[2].clone()));
    browser.press("k").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(focused_change(&mut browser), Json::from(ids[1].clone()));
    assert!(!is_open(&mut browser, &ids[1]));
    browser.press("o").unwrap_or_else(|e| panic!("{e}"));
    assert!(is_open(&mut browser, &ids[1]), "o did not open {}", ids[1]);
    browser.press("o").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !is_open(&mut browser, &ids[1]),
        "o did not close {}",
        ids[1]
    );

    // / goes to the filter; typing narrows the changes to the addresses
    // holding the text; Escape leaves the field.
    browser.press("/").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        browser
            .run("return document.activeElement.id;")
            .unwrap_or_else(|e| panic!("{e}")),
        Json::from("filter-text")
    );
    browser.press("green").unwrap_or_else(|e| panic!("{e}"));
    let green: Vec<String> = changes
        .iter()
        .filter(|c| c.address.contains("green"))
        .map(|c| c.id.clone())
        .collect();
    assert_eq!(green.len(), 2, "random_pet and null_resource for green");
    assert_eq!(visible_changes(&mut browser), green);
    browser.press("\u{E00C}").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        browser
            .run("return document.activeElement===document.getElementById('filter-text');")
            .unwrap_or_else(|e| panic!("{e}")),
        Json::Bool(false),
        "Escape left the focus in the filter"
    );
    browser
        .run("var t=document.getElementById('filter-text');t.value='';t.dispatchEvent(new Event('input'));return 0;")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(visible_changes(&mut browser), ids);

    // The action checkboxes: every change here is a create.
    browser
        .click("input[data-action-filter=\"a-create\"]")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(visible_changes(&mut browser), Vec::<String>::new());
    let dimmed = browser
        .run("return document.querySelectorAll('#graph .node.dim').length;")
        .unwrap_or_else(|e| panic!("{e}"));
    let nodes = browser
        .run("return document.querySelectorAll('#graph .node').length;")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dimmed, nodes, "graph nodes of hidden changes are dimmed");
    browser
        .click("input[data-action-filter=\"a-create\"]")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(visible_changes(&mut browser), ids);

    // A click on a graph node opens its change and marks the node.
    let app = changes
        .iter()
        .find(|c| c.address == "null_resource.app[\"blue\"]")
        .expect("null_resource.app[\"blue\"]");
    assert!(app.in_graph);
    assert!(!is_open(&mut browser, &app.id));
    // The node's label, as a person clicks it (Firefox gives the SVG link
    // itself no box of its own to aim at).
    browser
        .click(&format!("#graph a.node[href=\"#{}\"] text", app.id))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(is_open(&mut browser, &app.id), "the click did not open it");
    assert_eq!(
        browser
            .run(&format!(
                "return document.querySelector('#graph a.node[href=\"#{}\"]').classList.contains('selected');",
                app.id
            ))
            .unwrap_or_else(|e| panic!("{e}")),
        Json::Bool(true),
        "the clicked node is not marked"
    );
    let diff = browser
        .run(&format!(
            "return document.getElementById({:?}).innerText;",
            app.id
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    let diff = diff.as_str().unwrap_or_default();
    assert!(diff.contains("(sensitive value)"), "{diff}");
    assert!(!diff.contains(SECRET));
    assert_firefox_loaded_nothing(&mut browser, "the report after the clicks");
}

/// WCAG's contrast ratio of two `rgb(r, g, b)` colours.
fn contrast(a: &str, b: &str) -> f64 {
    fn luminance(rgb: &str) -> f64 {
        let channels: Vec<f64> = rgb
            .trim_start_matches("rgba(")
            .trim_start_matches("rgb(")
            .trim_end_matches(')')
            .split(',')
            .take(3)
            .map(|c| c.trim().parse::<f64>().unwrap_or_else(|_| panic!("{rgb}")) / 255.0)
            .map(|c| {
                if c <= 0.039_28 {
                    c / 12.92
                } else {
                    ((c + 0.055) / 1.055).powf(2.4)
                }
            })
            .collect();
        0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    }
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[test]
fn report_reads_in_the_light_and_the_dark_scheme_in_firefox() {
    if !firefox::require_firefox() {
        return;
    }
    let work = bundled("report-firefox-schemes");
    work.write("main.tf", &sensitive_config());
    work.terrace_ok(&["plan", "-out=p.tfplan"], 0);
    let show = work.terrace_ok(&["show", "-html", "p.tfplan"], 0);
    work.write("show.html", &show.stdout);
    let mut backgrounds = Vec::new();
    for dark in [false, true] {
        let mut browser =
            Firefox::start_with_scheme(&work.dir, dark).unwrap_or_else(|e| panic!("{e}"));
        browser
            .open(&work.path("show.html"), "")
            .unwrap_or_else(|e| panic!("{e}\n{}", browser.log()));
        let colours = browser
            .run(
                "function bg(e){while(e){var c=getComputedStyle(e).backgroundColor;\
                 if(c!=='rgba(0, 0, 0, 0)'&&c!=='transparent')return c;e=e.parentElement;}return 'rgb(255, 255, 255)';}\
                 var s=document.querySelector('#by-provider details.change summary');\
                 return [bg(document.body),getComputedStyle(document.body).color,\
                 getComputedStyle(s.querySelector('code')).color,bg(s),\
                 getComputedStyle(s.querySelector('b')).color,\
                 matchMedia('(prefers-color-scheme: dark)').matches];",
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let colour = |i: usize| colours[i].as_str().unwrap_or_default().to_string();
        assert_eq!(colours[5], Json::Bool(dark), "{colours}");
        let scheme = if dark { "dark" } else { "light" };
        for (what, fg, bg) in [
            ("text", colour(1), colour(0)),
            ("a change's address", colour(2), colour(3)),
            ("a change's action symbol", colour(4), colour(3)),
        ] {
            let ratio = contrast(&bg, &fg);
            assert!(
                ratio >= 4.5,
                "{what} in the {scheme} scheme: {fg} on {bg} has a contrast of {ratio:.2}"
            );
        }
        backgrounds.push(colour(0));
    }
    assert_ne!(
        backgrounds[0], backgrounds[1],
        "the dark scheme has its own colours"
    );
}

#[test]
fn the_firefox_network_check_sees_a_page_that_loads_something() {
    if !firefox::require_firefox() {
        return;
    }
    let work = bundled("report-leak-firefox");
    let page = "<!DOCTYPE html><html><body><img src=\"http://leak.invalid/x.png\">\
        <script>fetch('https://other.invalid/y').catch(function(){});</script></body></html>";
    work.write("leak.html", page);
    let mut browser = Firefox::start(&work.dir).unwrap_or_else(|e| panic!("{e}"));
    browser
        .open(&work.path("leak.html"), "")
        .unwrap_or_else(|e| panic!("{e}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while browser.requests().len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let requests = browser.requests();
    assert!(
        requests.iter().any(|r| r.contains("leak.invalid")),
        "{requests:?}"
    );
    assert!(
        requests.iter().any(|r| r.contains("other.invalid")),
        "{requests:?}"
    );
    let loaded = browser
        .run("return performance.getEntriesByType('resource').length;")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(loaded, Json::from(0), "the page's resource timings");
}
