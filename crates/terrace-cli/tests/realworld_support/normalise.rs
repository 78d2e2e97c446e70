//! The normalisation rules: only what must differ between two runs of
//! the same configuration is made equal before terraform's and terrace's
//! results are compared.
//!
//! 1. Paired values. Each side has its own directory and its own moto,
//!    so the working directory's path, moto's endpoint and every value
//!    moto or the random provider generates (ids, ARNs with ids in them,
//!    timestamps, pet names) differ. After apply, the two states are
//!    walked together, resource instance by resource instance, and where
//!    both hold a different string under an attribute that is generated
//!    (`id`, `arn`, names ending `_id`, `_ids`, `_arn`, `_arns`, `_date`,
//!    `_time`, `_timestamp`, RFC 3339 timestamps, anything of a
//!    `random_*` resource) terrace's value is paired with terraform's,
//!    as are the states' lineages; elsewhere, where two strings differ
//!    only in one run of at least 8 letters, digits and `-_.:` with a
//!    digit in it (the unique suffix `name_prefix` gets, an id inside a
//!    name), those runs are paired. The data sources the two plans read
//!    (their `prior_state` in `show -json`) are paired the same way
//!    before the plans are compared. Every terrace text is compared after
//!    replacing each paired value by its partner, longest first, so a
//!    name built from a pet name (`ex-brave-fox`) follows its pet.
//! 2. The product name. Where terraform names itself ("Terraform",
//!    "terraform apply", ...) terrace says "terrace"; terraform's text is
//!    compared with the name replaced, and a paragraph that held the name
//!    is compared with whitespace folded (a shorter name wraps a
//!    paragraph differently). terrace's text gets the same replacement,
//!    and the lines where terrace itself says "Terraform" are reported
//!    on their own, once per case.
//! 3. Progress lines. "Reading...", "Creating...", "... complete after
//!    Ns" come in the order the walk reaches them, and init's "- Finding",
//!    "- Installing" lines in the order of a Go map's iteration; both
//!    differ between two runs of terraform alone: they are compared as a
//!    sorted list,
//!    their durations replaced by `Ns`; the timing-dependent "Still
//!    creating... [10s elapsed]" lines and terraform's "Releasing state
//!    lock. This may take a few moments..." (said when the lock is slow)
//!    are dropped. RFC 3339 times are masked in texts and equal in JSON:
//!    each moto stamps its own, to the second.
//! 4. What the tools number or stamp: the plan JSON's `timestamp`, and
//!    the state's `serial` (terraform writes a snapshot per finished
//!    resource, terrace one per run).
//! 5. The order of the plan JSON's `planned_values` child modules below
//!    the root's children: terraform lists them in the order the changes
//!    were recorded, which follows the walk; both sides are sorted by
//!    address.
//! 6. Lists terraform builds from a Go map, whose order changes from run
//!    to run: the plan JSON's `relevant_attributes`, the state's
//!    `check_results` (and each entry's `objects`) and each object's
//!    `sensitive_attributes` are sorted on both sides before comparing,
//!    and the state's bytes are compared with those lists taken out
//!    (their content is compared as JSON).
//! 7. Check results (`checks` in the plan JSON, `check_results` in the
//!    state) are compared after everything else, so that a difference in
//!    the resources or values is the one reported when both differ.
//! 8. Map entries whose order follows paired values. Both tools list a
//!    map's entries sorted by key, so where keys hold generated values
//!    (`"<pet>-archive" = ...`) terrace's entries, once paired, may sit
//!    in another order than terraform's: runs of one-line map entries
//!    (`"key" = value` in texts, `"key": value` in state files) where a
//!    key holds a paired value are sorted on both sides, their trailing
//!    commas set aside.

use serde_json::Value as Json;

/// Values of terrace's run paired with terraform's.
#[derive(Default, Clone)]
pub struct Pairs {
    /// (terrace's, terraform's), longest first.
    pairs: Vec<(String, String)>,
}

impl Pairs {
    pub fn add(&mut self, terrace: &str, terraform: &str) {
        if terrace == terraform || terrace.is_empty() {
            return;
        }
        if self.pairs.iter().any(|(a, _)| a == terrace) {
            return;
        }
        self.pairs
            .push((terrace.to_string(), terraform.to_string()));
        self.pairs
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    }

    /// Whether `text` holds one of terraform's paired values.
    pub fn holds_paired_value(&self, text: &str) -> bool {
        self.pairs
            .iter()
            .any(|(_, theirs)| text.contains(theirs.as_str()))
    }

    /// terrace's text with every paired value replaced by terraform's.
    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (from, to) in &self.pairs {
            if out.contains(from.as_str()) {
                out = out.replace(from.as_str(), to);
            }
        }
        out
    }

    /// Pairs the generated values of two states (see the module's rule 1).
    pub fn add_states(&mut self, terraform: &Json, terrace: &Json) {
        if let (Some(a), Some(b)) = (terrace["lineage"].as_str(), terraform["lineage"].as_str()) {
            self.add(a, b);
        }
        let key = |r: &Json| {
            format!(
                "{}|{}|{}|{}",
                r["module"].as_str().unwrap_or_default(),
                r["mode"].as_str().unwrap_or_default(),
                r["type"].as_str().unwrap_or_default(),
                r["name"].as_str().unwrap_or_default()
            )
        };
        let empty = Vec::new();
        let theirs = terraform["resources"].as_array().unwrap_or(&empty);
        let ours = terrace["resources"].as_array().unwrap_or(&empty);
        // Random values first: names built from them are then replaced
        // through them, and need no pair of their own.
        for random_first in [true, false] {
            for their in theirs {
                let is_random = their["type"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("random_"));
                if is_random != random_first {
                    continue;
                }
                let Some(our) = ours.iter().find(|r| key(r) == key(their)) else {
                    continue;
                };
                for their_instance in their["instances"].as_array().unwrap_or(&empty) {
                    let Some(our_instance) = our["instances"]
                        .as_array()
                        .unwrap_or(&empty)
                        .iter()
                        .find(|i| i["index_key"] == their_instance["index_key"])
                    else {
                        continue;
                    };
                    self.walk(
                        &their_instance["attributes"],
                        &our_instance["attributes"],
                        "",
                        is_random,
                    );
                }
            }
        }
    }

    /// Pairs the generated values of the data sources two plans read
    /// (their `prior_state`, in `show -json`'s shape), before any state
    /// exists to pair them from: each moto makes up its own ids.
    pub fn add_plan_data_sources(&mut self, terraform: &Json, terrace: &Json) {
        fn walk_module(pairs: &mut Pairs, theirs: &Json, ours: &Json) {
            let empty = Vec::new();
            let our_resources = ours["resources"].as_array().unwrap_or(&empty);
            for their in theirs["resources"].as_array().unwrap_or(&empty) {
                if their["mode"] != "data" {
                    continue;
                }
                if let Some(our) = our_resources
                    .iter()
                    .find(|r| r["address"] == their["address"])
                {
                    pairs.walk(&their["values"], &our["values"], "", false);
                }
            }
            let our_children = ours["child_modules"].as_array().unwrap_or(&empty);
            for their_child in theirs["child_modules"].as_array().unwrap_or(&empty) {
                if let Some(our_child) = our_children
                    .iter()
                    .find(|c| c["address"] == their_child["address"])
                {
                    walk_module(pairs, their_child, our_child);
                }
            }
        }
        walk_module(
            self,
            &terraform["prior_state"]["values"]["root_module"],
            &terrace["prior_state"]["values"]["root_module"],
        );
    }

    fn walk(&mut self, theirs: &Json, ours: &Json, key: &str, all: bool) {
        match (theirs, ours) {
            (Json::Object(a), Json::Object(b)) => {
                for (k, va) in a {
                    if let Some(vb) = b.get(k) {
                        self.walk(va, vb, k, all);
                    }
                }
            }
            (Json::Array(a), Json::Array(b)) => {
                for (va, vb) in a.iter().zip(b) {
                    self.walk(va, vb, key, all);
                }
            }
            (Json::String(a), Json::String(b)) if a != b => {
                // Through the pairs found so far: a name made of a pet
                // name is equal once the pet is replaced.
                let ours_now = self.apply(b);
                if &ours_now == a {
                    return;
                }
                if all || generated_key(key) || (is_timestamp(a) && is_timestamp(b)) {
                    self.add(b, a);
                } else if let Some((theirs, ours)) = generated_middle(a, &ours_now) {
                    self.add(&ours, &theirs);
                }
            }
            _ => {}
        }
    }
}

/// Where two strings differ only in one run of characters that looks made
/// up by a server (a unique suffix of `name_prefix`, a random id in an
/// ARN): that run on each side, widened to whole words. "Looks made up":
/// at least 8 characters of letters, digits and `-_.:`, a digit among
/// them.
fn generated_middle(theirs: &str, ours: &str) -> Option<(String, String)> {
    let a: Vec<char> = theirs.chars().collect();
    let b: Vec<char> = ours.chars().collect();
    let word = |c: char| c.is_ascii_alphanumeric();
    let mut start = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    while start > 0 && word(a[start - 1]) {
        start -= 1;
    }
    let max_suffix = a.len().min(b.len()) - start;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    while suffix > 0 && word(a[a.len() - suffix]) {
        suffix -= 1;
    }
    let mid_a: String = a[start..a.len() - suffix].iter().collect();
    let mid_b: String = b[start..b.len() - suffix].iter().collect();
    let looks_made_up = |s: &str| {
        s.len() >= 8
            && s.chars().any(|c| c.is_ascii_digit())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c))
    };
    (looks_made_up(&mid_a) && looks_made_up(&mid_b)).then_some((mid_a, mid_b))
}

/// Whether an attribute of this name holds a value the server makes up.
fn generated_key(key: &str) -> bool {
    key == "id"
        || key == "arn"
        || [
            "_id",
            "_ids",
            "_arn",
            "_arns",
            "_date",
            "_time",
            "_timestamp",
        ]
        .iter()
        .any(|suffix| key.ends_with(suffix))
}

/// An RFC 3339 date-time (`2006-01-02T15:04:05...`).
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 19
        && b[4] == b'-'
        && b[7] == b'-'
        && (b[10] == b'T' || b[10] == b' ')
        && b[13] == b':'
        && b[16] == b':'
        && b[..4].iter().all(u8::is_ascii_digit)
}

/// How a difference in check results alone starts (rule 7).
pub const CHECKS_DIFFER: &str = "check results differ: ";

/// Sorts, in place, the lists of `doc` whose order terraform takes from a
/// Go map (rule 6).
pub fn sort_unordered_lists(doc: &mut Json) {
    let by_text = |a: &Json, b: &Json| a.to_string().cmp(&b.to_string());
    if let Some(resources) = doc.get_mut("resources").and_then(Json::as_array_mut) {
        for resource in resources {
            let instances = resource.get_mut("instances").and_then(Json::as_array_mut);
            for instance in instances.into_iter().flatten() {
                if let Some(paths) = instance
                    .get_mut("sensitive_attributes")
                    .and_then(Json::as_array_mut)
                {
                    paths.sort_by(by_text);
                }
            }
        }
    }
    if let Some(list) = doc
        .get_mut("relevant_attributes")
        .and_then(Json::as_array_mut)
    {
        list.sort_by(by_text);
    }
    if let Some(list) = doc.get_mut("check_results").and_then(Json::as_array_mut) {
        for entry in list.iter_mut() {
            if let Some(objects) = entry.get_mut("objects").and_then(Json::as_array_mut) {
                objects.sort_by(by_text);
            }
        }
        list.sort_by(by_text);
    }
    if let Some(list) = doc.get_mut("checks").and_then(Json::as_array_mut) {
        for entry in list.iter_mut() {
            if let Some(instances) = entry.get_mut("instances").and_then(Json::as_array_mut) {
                instances.sort_by(by_text);
            }
        }
        list.sort_by(by_text);
    }
}

/// Takes the check results (`checks`, `check_results`) out of two
/// documents and compares them (rule 7): `Err` names the difference.
pub fn split_check_results(theirs: &mut Json, ours: &mut Json) -> Result<(), String> {
    for key in ["checks", "check_results"] {
        let take = |doc: &mut Json| {
            doc.as_object_mut()
                .and_then(|o| o.remove(key))
                .unwrap_or(Json::Null)
        };
        let (a, b) = (take(theirs), take(ours));
        if let Some(d) = json_difference(&a, &b, &format!(".{key}")) {
            return Err(format!("{CHECKS_DIFFER}{d}"));
        }
    }
    Ok(())
}

/// A state file's text with each object's `sensitive_attributes` list
/// (one path per entry, in Go map order) replaced by a placeholder (rule
/// 6): the lines from the member to the `]` closing it at its indentation.
pub fn without_sensitive_attribute_lists(text: &str) -> String {
    let mut out = Vec::new();
    let mut closing: Option<String> = None;
    for line in text.lines() {
        if let Some(end) = &closing {
            if line.starts_with(end.as_str()) {
                closing = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("\"sensitive_attributes\": [") && !trimmed.contains("[]") {
            let indent = &line[..line.len() - trimmed.len()];
            out.push(format!("{indent}\"sensitive_attributes\": _"));
            closing = Some(format!("{indent}]"));
            continue;
        }
        out.push(line.to_string());
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// A state file's text without its `check_results` member (rule 6): the
/// lines from `"check_results"` to the end of its value.
pub fn without_check_results(text: &str) -> String {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in text.lines() {
        if line.starts_with("  \"check_results\":") {
            // `null` ends on its own line; a list ends at the line
            // closing it at the same indentation.
            skipping = !line.trim_end().ends_with("null") && !line.trim_end().ends_with("null,");
            out.push("  \"check_results\": _".to_string());
            continue;
        }
        if skipping {
            if line.starts_with("  ]") {
                skipping = false;
            }
            continue;
        }
        out.push(line.to_string());
    }
    out.join("\n")
}

/// terraform's text with terrace's name where terraform names itself
/// (the rule every differential test shares).
pub fn as_terrace(text: &str) -> String {
    terrace_testsupport::product::as_terrace(text)
}

/// Sorts the `child_modules` of the modules below `module` (a
/// `planned_values` module at `depth`) by address; the root's own
/// children terraform already sorts.
pub fn sort_nested_child_modules(module: &mut Json, depth: usize) {
    let Some(children) = module.get_mut("child_modules").and_then(Json::as_array_mut) else {
        return;
    };
    if depth > 0 {
        children.sort_by(|a, b| {
            a["address"]
                .as_str()
                .unwrap_or_default()
                .cmp(b["address"].as_str().unwrap_or_default())
        });
    }
    for child in children {
        sort_nested_child_modules(child, depth + 1);
    }
}

/// The lines of terrace's output that name the product "Terraform" (or
/// a `terraform` command) where terrace should name itself.
pub fn names_itself_terraform(text: &str) -> Vec<String> {
    // JSON documents and quoted values (tags such as `"Terraform" =
    // "true"`) are data, not terrace speaking.
    text.lines()
        .filter(|line| !line.trim_start().starts_with('{') && !line.contains("\"Terraform\""))
        .filter(|line| as_terrace(line) != *line)
        .map(|line| line.trim().to_string())
        .collect()
}

fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

const PROGRESS: [&str; 14] = [
    ": Reading...",
    ": Read complete after ",
    ": Refreshing state...",
    ": Creating...",
    ": Creation complete after ",
    ": Modifying...",
    ": Modifications complete after ",
    ": Destroying...",
    ": Destruction complete after ",
    ": Still reading...",
    ": Still creating...",
    ": Still modifying...",
    ": Still destroying...",
    ": Provisioning with ",
];

const INSTALL: [&str; 5] = [
    "- Finding ",
    "- Installing ",
    "- Installed ",
    "- Using previously-installed ",
    "- Reusing previous version of ",
];

/// A progress line with its duration made `Ns`, or `None` for a line
/// that is not progress. "Still ..." lines come back empty (dropped).
fn progress_line(line: &str) -> Option<String> {
    // Said only when releasing or taking the state lock is slow.
    if SLOW_LOCK.contains(&line.trim_end()) {
        return Some(String::new());
    }
    // init's provider lines come in the order of a Go map's iteration.
    if INSTALL.iter().any(|p| line.starts_with(p)) {
        return Some(line.to_string());
    }
    let at = PROGRESS.iter().find(|p| line.contains(*p))?;
    if at.starts_with(": Still") {
        return Some(String::new());
    }
    Some(match line.find(" after ") {
        Some(pos) => {
            let rest = &line[pos + 7..];
            let end = rest.find([' ', '\n']).unwrap_or(rest.len());
            format!("{} after Ns{}", &line[..pos], &rest[end..])
        }
        None => line.to_string(),
    })
}

/// The lines terraform prints only when the state lock is slow to come
/// or go (a loaded machine), like the "Still creating..." lines.
const SLOW_LOCK: [&str; 2] = [
    "Releasing state lock. This may take a few moments...",
    "Acquiring state lock. This may take a few moments...",
];

/// `text` with every RFC 3339 date-time (`2006-01-02T15:04:05Z`, with
/// fractions or an offset) replaced by `<time>`: creation times come from
/// each side's own moto, at one-second precision, so two objects made in
/// the same second cannot be paired one to one.
pub fn mask_timestamps(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    let at = |i: usize, c: char| chars.get(i) == Some(&c);
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let stamp = (0..4).all(|k| digit(i + k))
            && at(i + 4, '-')
            && digit(i + 5)
            && digit(i + 6)
            && at(i + 7, '-')
            && digit(i + 8)
            && digit(i + 9)
            && at(i + 10, 'T')
            && digit(i + 11)
            && digit(i + 12)
            && at(i + 13, ':')
            && digit(i + 14)
            && digit(i + 15)
            && at(i + 16, ':')
            && digit(i + 17)
            && digit(i + 18);
        if !stamp {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let mut end = i + 19;
        if at(end, '.') {
            end += 1;
            while digit(end) {
                end += 1;
            }
        }
        if at(end, 'Z') {
            end += 1;
        } else if (at(end, '+') || at(end, '-'))
            && digit(end + 1)
            && digit(end + 2)
            && at(end + 3, ':')
        {
            end += 6;
        }
        out.push_str("<time>");
        i = end.min(chars.len());
    }
    out
}

/// `text` with the id after each `RequestID: ` (which every moto answer
/// makes up afresh, quoted in the AWS provider's errors) replaced by `_`.
pub fn mask_request_ids(text: &str) -> String {
    const LABEL: &str = "RequestID: ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(LABEL) {
        let after = &rest[at + LABEL.len()..];
        let end = after
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .unwrap_or(after.len());
        out.push_str(&rest[..at + LABEL.len()]);
        out.push('_');
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// A command's text in two parts: the progress lines (sorted) and the
/// rest, in order.
pub struct Text {
    pub progress: Vec<String>,
    pub rest: String,
}

pub fn split_progress(text: &str) -> Text {
    let mut progress = Vec::new();
    let mut rest = String::new();
    for line in text.lines() {
        match progress_line(line) {
            Some(p) if p.is_empty() => {}
            Some(p) => progress.push(p),
            None => {
                rest.push_str(line);
                rest.push('\n');
            }
        }
    }
    progress.sort();
    Text { progress, rest }
}

/// The key of a map entry on one line: a quoted key then ` = ` or `: `,
/// or in a plan's diff an action symbol, a bare key, padding and ` = `;
/// and a value that opens no block.
fn one_line_map_entry_key(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    let (key, value) = if let Some(rest) = trimmed.strip_prefix('"') {
        let close = rest.find("\" = ").or_else(|| rest.find("\": "))?;
        (&rest[..close], &rest[close + 3..])
    } else {
        let rest = ["+ ", "- ", "~ "]
            .iter()
            .find_map(|symbol| trimmed.strip_prefix(symbol))?;
        let rest = rest.strip_prefix('"').unwrap_or(rest);
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || "_.-/".contains(c)))?;
        let after = rest[end..].trim_start_matches('"');
        let value = after.trim_start().strip_prefix("= ")?;
        (&rest[..end], value)
    };
    let value = value.trim_end().trim_end_matches(',');
    let opens =
        value.is_empty() || value.ends_with('{') || value.ends_with('[') || value.ends_with('(');
    (!opens).then_some(key)
}

/// A sorted run's line: its padding before ` = ` (which follows the
/// longest key, generated or not) folded, its trailing comma dropped.
fn folded_entry(line: &str) -> String {
    let line = line.trim_end().trim_end_matches(',');
    match line.find(" = ") {
        Some(i) => format!("{} = {}", line[..i].trim_end(), &line[i + 3..]),
        None => line.to_string(),
    }
}

/// Rule 8: each run of one-line map entries at one indentation, where
/// `generated` says a key holds a paired value, sorted (trailing commas
/// dropped); other runs kept as they are.
pub fn sort_map_entry_runs(text: &str, generated: &dyn Fn(&str) -> bool) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Vec<String> = Vec::new();
    let mut run_indent = usize::MAX;
    let mut run_generated = false;
    let flush = |run: &mut Vec<String>, out: &mut Vec<String>, sort: bool| {
        if sort {
            for line in run.iter_mut() {
                *line = folded_entry(line);
            }
            run.sort();
        }
        out.append(run);
    };
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(key) = one_line_map_entry_key(line) {
            if indent != run_indent {
                flush(&mut run, &mut out, run_generated);
                run_indent = indent;
                run_generated = false;
            }
            run_generated |= generated(key);
            run.push(line.to_string());
        } else {
            flush(&mut run, &mut out, run_generated);
            run_indent = usize::MAX;
            run_generated = false;
            out.push(line.to_string());
        }
    }
    flush(&mut run, &mut out, run_generated);
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// Compares terraform's and terrace's output of one command under the
/// rules above; `Err` says where they differ.
pub fn compare_text(terraform: &str, terrace: &str, pairs: &Pairs) -> Result<(), String> {
    let generated = |key: &str| pairs.holds_paired_value(key);
    let theirs = split_progress(&sort_map_entry_runs(
        &mask_request_ids(&mask_timestamps(terraform)),
        &generated,
    ));
    let ours = split_progress(&sort_map_entry_runs(
        &mask_request_ids(&mask_timestamps(&pairs.apply(terrace))),
        &generated,
    ));
    if theirs.progress != ours.progress {
        let only_theirs: Vec<&String> = theirs
            .progress
            .iter()
            .filter(|l| !ours.progress.contains(l))
            .collect();
        let only_ours: Vec<&String> = ours
            .progress
            .iter()
            .filter(|l| !theirs.progress.contains(l))
            .collect();
        return Err(format!(
            "progress lines differ: only terraform's: {}; only terrace's: {}",
            excerpt_lines(&only_theirs),
            excerpt_lines(&only_ours)
        ));
    }
    compare_paragraphs(&theirs.rest, &ours.rest)
}

fn excerpt_lines(lines: &[&String]) -> String {
    if lines.is_empty() {
        return "none".into();
    }
    let shown: Vec<String> = lines.iter().take(4).map(|l| format!("{l:?}")).collect();
    let more = if lines.len() > 4 {
        format!(" (+{} more)", lines.len() - 4)
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(", "))
}

fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Paragraph by paragraph; a paragraph of terraform's that names the
/// product is compared with whitespace folded.
pub fn compare_paragraphs(terraform: &str, terrace: &str) -> Result<(), String> {
    let theirs = paragraphs(terraform);
    let ours = paragraphs(terrace);
    for (i, (a, b)) in theirs.iter().zip(&ours).enumerate() {
        let renamed = as_terrace(a);
        // terrace's own text is renamed too: where it still says
        // "Terraform" is reported apart (`names_itself_terraform`), so
        // that it does not hide what else a paragraph says.
        let b = &as_terrace(b);
        let same = if renamed != *a {
            fold(&renamed) == fold(b)
        } else {
            a == b
        };
        if !same {
            return Err(format!(
                "paragraph {} differs:\n--- terraform\n{}--- terrace\n{}",
                i + 1,
                clip(&renamed),
                clip(b)
            ));
        }
    }
    if theirs.len() != ours.len() {
        let (who, extra) = if theirs.len() > ours.len() {
            ("terraform", &theirs[ours.len()])
        } else {
            ("terrace", &ours[theirs.len()])
        };
        return Err(format!(
            "{who} prints more ({} vs {} paragraphs), first extra:\n{}",
            theirs.len(),
            ours.len(),
            clip(extra)
        ));
    }
    Ok(())
}

/// At most 30 lines of a text.
pub fn clip(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 30 {
        return text.to_string();
    }
    format!(
        "{}\n... ({} more lines)\n",
        lines[..30].join("\n"),
        lines.len() - 30
    )
}

/// The first place two JSON values differ, as a path and both values.
pub fn json_difference(theirs: &Json, ours: &Json, path: &str) -> Option<String> {
    match (theirs, ours) {
        (Json::Object(a), Json::Object(b)) => {
            for (k, va) in a {
                let p = format!("{path}.{k}");
                match b.get(k) {
                    None => return Some(format!("{p}: only terraform has it: {}", short(va))),
                    Some(vb) => {
                        if let Some(d) = json_difference(va, vb, &p) {
                            return Some(d);
                        }
                    }
                }
            }
            for (k, vb) in b {
                if !a.contains_key(k) {
                    return Some(format!("{path}.{k}: only terrace has it: {}", short(vb)));
                }
            }
            None
        }
        (Json::Array(a), Json::Array(b)) => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                if let Some(d) = json_difference(va, vb, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            if a.len() != b.len() {
                return Some(format!(
                    "{path}: terraform has {} elements, terrace {}",
                    a.len(),
                    b.len()
                ));
            }
            None
        }
        _ if theirs == ours => None,
        (Json::String(a), Json::String(b)) if mask_timestamps(a) == mask_timestamps(b) => None,
        _ => Some(format!(
            "{path}: terraform {} vs terrace {}",
            short(theirs),
            short(ours)
        )),
    }
}

fn short(v: &Json) -> String {
    let text = v.to_string();
    if text.len() > 300 {
        let mut end = 300;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &text[..end])
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pairs_follow_generated_values_and_names_built_from_them() {
        let terraform = json!({"lineage": "L1", "resources": [
            {"mode": "managed", "type": "random_pet", "name": "this", "instances": [
                {"attributes": {"id": "brave-fox", "length": 2}}]},
            {"mode": "managed", "type": "aws_kms_key", "name": "k", "instances": [
                {"attributes": {"id": "1111", "arn": "arn:k/1111", "description": "ex-brave-fox",
                                "policy": "same"}}]}]});
        let terrace = json!({"lineage": "L2", "resources": [
            {"mode": "managed", "type": "random_pet", "name": "this", "instances": [
                {"attributes": {"id": "calm-owl", "length": 2}}]},
            {"mode": "managed", "type": "aws_kms_key", "name": "k", "instances": [
                {"attributes": {"id": "2222", "arn": "arn:k/2222", "description": "ex-calm-owl",
                                "policy": "different"}}]}]});
        let mut pairs = Pairs::default();
        pairs.add_states(&terraform, &terrace);
        assert_eq!(
            pairs.apply("L2 calm-owl ex-calm-owl 2222 arn:k/2222 different"),
            "L1 brave-fox ex-brave-fox 1111 arn:k/1111 different"
        );
    }

    #[test]
    fn sensitive_attribute_lists_are_compared_in_any_order() {
        let path = |name: &str| json!([{"type": "get_attr", "value": name}]);
        let mut theirs = json!({"resources": [{"instances": [
            {"sensitive_attributes": [path("value_wo"), path("value")]}]}]});
        let mut ours = json!({"resources": [{"instances": [
            {"sensitive_attributes": [path("value"), path("value_wo")]}]}]});
        sort_unordered_lists(&mut theirs);
        sort_unordered_lists(&mut ours);
        assert_eq!(theirs, ours);
        let text = |first: &str, second: &str| {
            format!("      \"sensitive_attributes\": [\n        [\n          {{\n            \"value\": \"{first}\"\n          }}\n        ],\n        [\n          {{\n            \"value\": \"{second}\"\n          }}\n        ]\n      ],\n      \"status\": \"tainted\"\n")
        };
        assert_eq!(
            without_sensitive_attribute_lists(&text("value_wo", "value")),
            without_sensitive_attribute_lists(&text("value", "value_wo"))
        );
        assert!(
            without_sensitive_attribute_lists(&text("a", "b")).contains("\"status\": \"tainted\"")
        );
        let empty = "      \"sensitive_attributes\": [],\n";
        assert_eq!(without_sensitive_attribute_lists(empty), empty);
    }

    #[test]
    fn data_sources_read_by_the_plans_are_paired() {
        let plan = |snapshot: &str| {
            json!({"prior_state": {"values": {"root_module": {
                "resources": [{"address": "data.aws_ami.x", "mode": "data",
                    "values": {"block_device_mappings": [{"ebs": {"snapshot_id": snapshot}}],
                               "name": "same"}}],
                "child_modules": [{"address": "module.m", "resources": [
                    {"address": "module.m.data.aws_ami.y", "mode": "data",
                     "values": {"image_id": format!("{snapshot}-m")}}]}]
            }}}})
        };
        let mut pairs = Pairs::default();
        pairs.add_plan_data_sources(
            &plan("snap-ab4374a1c5aa3eab2"),
            &plan("snap-79f677b3b4c6f79ae"),
        );
        assert_eq!(
            pairs.apply("snap-79f677b3b4c6f79ae and snap-79f677b3b4c6f79ae-m"),
            "snap-ab4374a1c5aa3eab2 and snap-ab4374a1c5aa3eab2-m"
        );
    }

    #[test]
    fn map_entries_ordered_by_paired_keys_compare_equal() {
        let theirs = "outputs = {\n  \"bold-fox-archive\" = \"a\"\n  \"launch\" = \"b\"\n}\n";
        let ours = "outputs = {\n  \"launch\" = \"b\"\n  \"bold-fox-archive\" = \"a\"\n}\n";
        let mut pairs = Pairs::default();
        pairs.add("mellow-opossum", "bold-fox");
        let generated = |key: &str| pairs.holds_paired_value(key);
        assert_eq!(
            sort_map_entry_runs(theirs, &generated),
            sort_map_entry_runs(ours, &generated)
        );
        let state_theirs =
            "    \"value\": {\n      \"bold-fox-a\": \"1\",\n      \"c\": \"2\"\n    },\n";
        let state_ours =
            "    \"value\": {\n      \"c\": \"2\",\n      \"bold-fox-a\": \"1\"\n    },\n";
        assert_eq!(
            sort_map_entry_runs(state_theirs, &generated),
            sort_map_entry_runs(state_ours, &generated)
        );
        // A value that differs still differs, and entries whose keys hold
        // no generated value keep their order.
        assert_ne!(
            sort_map_entry_runs(theirs, &generated),
            sort_map_entry_runs(&theirs.replace("\"b\"", "\"c\""), &generated)
        );
        // A plan's diff of the same map: bare keys, padded to the longest.
        let plan_theirs = "  - archives = {\n      - bold-fox-archive = \"a\"\n      - launch           = \"b\"\n    } -> null\n";
        let plan_ours = "  - archives = {\n      - launch                 = \"b\"\n      - bold-fox-archive = \"a\"\n    } -> null\n";
        assert_eq!(
            sort_map_entry_runs(plan_theirs, &generated),
            sort_map_entry_runs(plan_ours, &generated)
        );
        let fixed = "  \"mode\": \"managed\",\n  \"type\": \"x\",\n";
        let swapped = "  \"type\": \"x\",\n  \"mode\": \"managed\",\n";
        assert_ne!(
            sort_map_entry_runs(fixed, &generated),
            sort_map_entry_runs(swapped, &generated)
        );
    }

    #[test]
    fn lists_in_go_map_order_are_sorted_and_check_results_compared_last() {
        let mut theirs = json!({"relevant_attributes": [{"resource": "b"}, {"resource": "a"}],
            "checks": [{"address": "y", "instances": [2, 1]}, {"address": "x"}]});
        let mut ours = json!({"relevant_attributes": [{"resource": "a"}, {"resource": "b"}],
            "checks": [{"address": "x"}, {"address": "y", "instances": [1, 2]}]});
        sort_unordered_lists(&mut theirs);
        sort_unordered_lists(&mut ours);
        assert_eq!(split_check_results(&mut theirs, &mut ours), Ok(()));
        assert_eq!(json_difference(&theirs, &ours, ""), None);
        let mut with_checks = json!({"check_results": [{"status": "pass"}]});
        let mut without = json!({"check_results": null});
        let difference = split_check_results(&mut with_checks, &mut without);
        assert!(difference.is_err_and(|d| d.starts_with(CHECKS_DIFFER)));
        assert_eq!(with_checks, without);
        let state = "{\n  \"version\": 4,\n  \"check_results\": [\n    {\n      \"status\": \"pass\"\n    }\n  ]\n}";
        assert_eq!(
            without_check_results(state),
            without_check_results("{\n  \"version\": 4,\n  \"check_results\": null\n}")
        );
    }

    #[test]
    fn timestamps_and_slow_lock_lines_are_masked() {
        assert_eq!(
            mask_timestamps("a 2026-11-27T03:01:23Z b 2026-11-27T03:01:22.123+01:00."),
            "a <time> b <time>."
        );
        assert_eq!(mask_timestamps("2026-11-27 x"), "2026-11-27 x");
        assert_eq!(
            json_difference(
                &json!("2026-11-27T03:01:23Z"),
                &json!("2026-11-27T03:01:22Z"),
                ""
            ),
            None
        );
        assert_eq!(
            mask_request_ids("400, RequestID: Zd-x9, api error"),
            "400, RequestID: _, api error"
        );
        let theirs = "Plan: 1 to add.\nReleasing state lock. This may take a few moments...\n";
        assert_eq!(
            compare_text(theirs, "Plan: 1 to add.\n", &Pairs::default()),
            Ok(())
        );
    }

    #[test]
    fn made_up_runs_inside_names_are_paired() {
        assert_eq!(
            generated_middle(
                "IAMSelfManagement-20261126233752553100000001",
                "IAMSelfManagement-20261126233757826200000002"
            ),
            Some((
                "20261126233752553100000001".to_string(),
                "20261126233757826200000002".to_string()
            ))
        );
        assert_eq!(
            generated_middle("retention 7 days", "retention 14 days"),
            None
        );
        assert_eq!(
            generated_middle("{\"a\": \"x\"}", "{\"a\": \"y1234567\"}"),
            None
        );
    }

    #[test]
    fn progress_lines_are_sorted_with_durations_dropped() {
        let a = "b: Reading...\na: Read complete after 2s [id=x]\na: Still reading... [10s elapsed]\n\nPlan: 1 to add.\n";
        let b = "a: Read complete after 0s [id=x]\nb: Reading...\n\nPlan: 1 to add.\n";
        assert_eq!(compare_text(a, b, &Pairs::default()), Ok(()));
        assert!(compare_text(a, "b: Reading...\n\nPlan: 1 to add.\n", &Pairs::default()).is_err());
    }

    #[test]
    fn the_product_name_is_replaced_and_its_paragraphs_folded() {
        let theirs = "Terraform will perform the following\nactions:\n\nPlan: 1 to add.\n";
        let ours = "terrace will perform the following actions:\n\nPlan: 1 to add.\n";
        assert_eq!(compare_paragraphs(theirs, ours), Ok(()));
        assert!(compare_paragraphs("  a = 1\n", "a = 1\n").is_err());
    }
}
