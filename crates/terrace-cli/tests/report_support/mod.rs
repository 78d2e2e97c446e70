//! Reading the HTML report back in tests: the DOM Chromium dumps after
//! the page's script ran, taken apart by plain string search (the report's
//! markup is terrace's own and regular), compared with `show -json`; the
//! checks that the page loads nothing; screenshots kept under `target/`.

#![allow(dead_code)]

use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where screenshots and reports are kept for CI to collect:
/// `target/report-html/`.
pub fn artifacts_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/report-html");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
    dir
}

/// Text content of an HTML fragment: tags dropped, entities decoded.
pub fn text_of(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The text between `start` and the next `end` after position `from`.
fn between<'a>(html: &'a str, from: usize, start: &str, end: &str) -> Option<(&'a str, usize)> {
    let s = html[from..].find(start)? + from + start.len();
    let e = html[s..].find(end)? + s;
    Some((&html[s..e], e + end.len()))
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let (value, _) = between(tag, 0, &format!(" {name}=\""), "\"")?;
    Some(text_of(value))
}

/// One change as the page shows it.
#[derive(Debug, Clone)]
pub struct ShownChange {
    pub id: String,
    pub address: String,
    pub actions: String,
    /// The summary line's text (symbol, address, verb, reason, notes).
    pub summary: String,
    /// The diff's text.
    pub diff: String,
    /// The provider instance group it is in, and that group's provider.
    pub group: String,
    pub group_provider: String,
    /// The graph node pointing at it exists.
    pub in_graph: bool,
}

/// The changes in the page's "by provider instance" section.
pub fn shown_changes(dom: &str) -> Vec<ShownChange> {
    let graph_targets: BTreeSet<&str> = dom
        .match_indices("<a href=\"#")
        .filter_map(|(at, _)| {
            let rest = &dom[at + "<a href=\"#".len()..];
            let (id, after) = rest.split_once('"')?;
            after.starts_with(" class=\"node ").then_some(id)
        })
        .collect();
    let start = dom
        .find("<section id=\"by-provider\"")
        .expect("the by-provider section");
    let end = dom[start..]
        .find("</section>")
        .map(|e| e + start)
        .expect("its end");
    let section = &dom[start..end];
    let mut changes = Vec::new();
    let mut group = String::new();
    let mut group_provider = String::new();
    let mut pos = 0;
    loop {
        let next_group = section[pos..]
            .find("<details class=\"group\"")
            .map(|p| p + pos);
        let next_change = section[pos..]
            .find("<details class=\"change")
            .map(|p| p + pos);
        match (next_group, next_change) {
            (Some(g), c) if c.is_none_or(|c| g < c) => {
                let tag_end = section[g..].find('>').map(|e| e + g).expect("tag end");
                group = attribute(&section[g..=tag_end], "data-provider").unwrap_or_default();
                group_provider = between(section, g, "<span class=\"fqn\">", "</span>")
                    .map(|(t, _)| text_of(t))
                    .unwrap_or_default();
                pos = tag_end;
            }
            (_, Some(c)) => {
                let tag_end = section[c..].find('>').map(|e| e + c).expect("tag end");
                let tag = &section[c..=tag_end];
                let id = attribute(tag, "id").expect("change id");
                let actions = attribute(tag, "data-actions").expect("change actions");
                let (summary, after) =
                    between(section, tag_end, "<summary>", "</summary>").expect("summary");
                let address = between(summary, 0, "<code>", "</code>")
                    .map(|(t, _)| text_of(t))
                    .expect("address");
                let (diff, after) = between(section, after, "<pre>", "</pre>").expect("diff");
                changes.push(ShownChange {
                    in_graph: graph_targets.contains(id.as_str()),
                    id,
                    address,
                    actions,
                    summary: text_of(summary),
                    diff: text_of(diff),
                    group: group.clone(),
                    group_provider: group_provider.clone(),
                });
                pos = after;
            }
            _ => break,
        }
    }
    changes
}

/// The summary's counts by kind (`add`, `change`, `replace`...).
pub fn shown_counts(dom: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut pos = 0;
    while let Some((kind, after)) = between(dom, pos, "data-kind=\"", "\"") {
        let (n, after) = between(dom, after, "<span class=\"n\">", "</span>").expect("count");
        counts.insert(kind.to_string(), n.parse().expect("a number"));
        pos = after;
    }
    counts
}

/// The counts `show -json` implies, by the same kinds.
pub fn json_counts(plan: &Json) -> BTreeMap<String, usize> {
    let mut counts: BTreeMap<String, usize> = [
        "add", "change", "replace", "destroy", "read", "import", "move", "forget",
    ]
    .iter()
    .map(|k| (k.to_string(), 0))
    .collect();
    for rc in plan["resource_changes"].as_array().into_iter().flatten() {
        if !shown_in_plan(rc) {
            continue;
        }
        let actions: Vec<&str> = rc["change"]["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
            .collect();
        let kind = match actions.as_slice() {
            ["create"] => Some("add"),
            ["update"] => Some("change"),
            ["delete", "create"] | ["create", "delete"] => Some("replace"),
            ["delete"] => Some("destroy"),
            ["read"] => Some("read"),
            ["forget"] => Some("forget"),
            _ => None,
        };
        if let Some(kind) = kind {
            *counts.entry(kind.to_string()).or_default() += 1;
        }
        if rc["change"].get("importing").is_some() {
            *counts.entry("import".to_string()).or_default() += 1;
        }
        if rc.get("previous_address").is_some() {
            *counts.entry("move".to_string()).or_default() += 1;
        }
    }
    counts
}

/// Whether the human plan shows a JSON resource change (no-ops that are
/// neither moved nor imported are not shown, nor deletes of data sources).
pub fn shown_in_plan(rc: &Json) -> bool {
    let actions = rc["change"]["actions"].to_string();
    if actions == r#"["no-op"]"# {
        return rc.get("previous_address").is_some() || rc["change"].get("importing").is_some();
    }
    !(rc["mode"] == "data" && actions == r#"["delete"]"#)
}

/// Checks every shown change against `show -json`: the same set of
/// addresses and actions; each in the group of its provider; each top
/// level attribute's planned value in its diff as the text renderer puts
/// it (known strings quoted, unknowns `(known after apply)`, sensitive
/// values `(sensitive value)`).
pub fn assert_changes_match_json(dom: &str, plan: &Json) {
    let shown = shown_changes(dom);
    let by_address: BTreeMap<&str, &ShownChange> =
        shown.iter().map(|c| (c.address.as_str(), c)).collect();
    let mut expected = BTreeSet::new();
    for rc in plan["resource_changes"].as_array().into_iter().flatten() {
        if !shown_in_plan(rc) {
            continue;
        }
        let address = rc["address"].as_str().expect("address");
        expected.insert(address.to_string());
        let change = by_address
            .get(address)
            .unwrap_or_else(|| panic!("{address} is not in the page"));
        let actions: Vec<&str> = rc["change"]["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
            .collect();
        assert_eq!(change.actions, actions.join(","), "actions of {address}");
        assert_eq!(
            change.group_provider, rc["provider_name"],
            "{address} is grouped under {}",
            change.group
        );
        assert!(change.in_graph, "{address} has no graph node");
        let after = &rc["change"]["after"];
        let before = &rc["change"]["before"];
        let unknown = &rc["change"]["after_unknown"];
        let sensitive = &rc["change"]["after_sensitive"];
        for (name, value) in after.as_object().into_iter().flatten() {
            // Unchanged attributes of an update or replacement are hidden,
            // as in the text plan.
            let unchanged = !before.is_null() && before[name] == *value;
            // Null attributes of a new object are not shown either.
            if unchanged || (value.is_null() && before.is_null()) {
                continue;
            }
            if sensitive[name] == Json::Bool(true) {
                assert!(
                    change.diff.contains(&format!("{name} "))
                        && change.diff.contains("(sensitive value)"),
                    "{address}.{name} is sensitive, the diff says:\n{}",
                    change.diff
                );
            } else if let Some(text) = value.as_str() {
                if !text.contains('\n') {
                    assert!(
                        change
                            .diff
                            .contains(&serde_json::to_string(text).expect("quote")),
                        "{address}.{name} = {text:?} is not in its diff:\n{}",
                        change.diff
                    );
                }
            }
        }
        for (name, value) in unknown.as_object().into_iter().flatten() {
            if value == &Json::Bool(true) && sensitive[name] != Json::Bool(true) {
                let line = change
                    .diff
                    .lines()
                    .find(|l| {
                        l.trim_start()
                            .trim_start_matches(['+', '~', ' '])
                            .starts_with(&format!("{name} "))
                    })
                    .unwrap_or_else(|| {
                        panic!("{address}.{name} is not in its diff:\n{}", change.diff)
                    });
                assert!(
                    line.contains("(known after apply)"),
                    "{address}.{name} is unknown, the diff says {line:?}"
                );
            }
        }
    }
    let shown_addresses: BTreeSet<String> = shown.iter().map(|c| c.address.clone()).collect();
    assert_eq!(
        shown_addresses, expected,
        "the page's changes against show -json"
    );
}

/// URLs the page asked the network for, from Chromium's NetLog: requests
/// made for a `file://` page carry its origin in their network isolation
/// key; the browser's own background requests do not.
pub fn page_requests(net_log: &str) -> Vec<String> {
    let log: Json = serde_json::from_str(net_log.trim_end().trim_end_matches(',').trim_end())
        .or_else(|_| {
            serde_json::from_str(&format!("{}]}}", net_log.trim_end().trim_end_matches(',')))
        })
        .expect("the NetLog is JSON");
    let mut urls: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    let mut for_page = BTreeSet::new();
    for event in log["events"].as_array().into_iter().flatten() {
        let source = event["source"]["id"].as_u64().unwrap_or_default();
        let params = &event["params"];
        if let Some(url) = params["url"].as_str() {
            urls.entry(source).or_default().push(url.to_string());
        }
        if params["network_isolation_key"]
            .as_str()
            .is_some_and(|k| k.contains("file://"))
            || params["initiator"]
                .as_str()
                .is_some_and(|i| i.starts_with("file://"))
        {
            for_page.insert(source);
        }
    }
    let mut out: Vec<String> = for_page
        .iter()
        .flat_map(|s| urls.get(s).cloned().unwrap_or_default())
        .filter(|u| !u.starts_with("file://") && !u.starts_with("data:"))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What in the file itself would make a browser load something: in any
/// tag, a `src`/`srcset`/`action`/`poster`/`data`/`background` attribute or
/// an `href` that is not to a fragment of the page, and the elements that
/// embed or point at other documents; in a style element, `@import` or a
/// `url()` other than `url(#...)`. Text never counts: the page escapes
/// every `<` in it, so each raw `<` starts a tag.
pub fn loading_references(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut pos = 0;
    while let Some(start) = lower[pos..].find('<').map(|p| p + pos) {
        let end = lower[start..]
            .find('>')
            .map(|e| e + start)
            .unwrap_or(lower.len());
        let tag = &lower[start..end];
        let name: String = tag[1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '/')
            .collect();
        if [
            "link", "iframe", "object", "embed", "base", "img", "image", "audio", "video",
            "source", "frame", "meta",
        ]
        .contains(&name.as_str())
            && (name != "meta" || tag.contains("http-equiv=\"refresh\""))
        {
            found.push(tag.to_string());
        }
        for attribute in [
            " src=",
            " srcset=",
            " action=",
            " poster=",
            " data=",
            " background=",
            " xlink:href=",
        ] {
            if tag.contains(attribute) {
                found.push(tag.to_string());
            }
        }
        let mut at = 0;
        while let Some(p) = tag[at..].find(" href=") {
            let value = tag[at + p + " href=".len()..].trim_start_matches(['"', '\'']);
            if !value.starts_with('#') {
                found.push(tag.to_string());
            }
            at += p + 1;
        }
        if name == "style" {
            let close = lower[end..]
                .find("</style>")
                .map(|c| c + end)
                .unwrap_or(lower.len());
            let style = &lower[end..close];
            if style.contains("@import") {
                found.push("@import".to_string());
            }
            let mut at = 0;
            while let Some(p) = style[at..].find("url(") {
                let value = style[at + p + 4..].trim_start_matches(['"', '\'']);
                if !value.starts_with('#') {
                    found.push(style[at + p..(at + p + 60).min(style.len())].to_string());
                }
                at += p + 1;
            }
            pos = close;
            continue;
        }
        if name == "script" {
            if tag.contains(" src") {
                found.push(tag.to_string());
            }
            pos = lower[end..]
                .find("</script>")
                .map(|c| c + end)
                .unwrap_or(lower.len());
            continue;
        }
        pos = end;
    }
    found
}
