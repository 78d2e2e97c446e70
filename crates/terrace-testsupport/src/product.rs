//! terraform's text as terrace prints it: where terraform's own messages
//! name the tool ("Terraform will perform the following actions", `run
//! "terraform apply"`), terrace's name terrace. Differential tests pass
//! terraform's output through [`as_terrace`] before comparing it with
//! terrace's.
//!
//! A renamed word is shorter, so a paragraph terraform word-wrapped comes
//! out wrapped differently: such a paragraph is joined and wrapped again at
//! the same limit, as terrace wraps its own text. A paragraph counts as
//! word-wrapped where each line break is one the wrapping made: the next
//! line's first word would not have fitted on the line before. Lines
//! broken by hand (shorter than that) keep their breaks.

use terrace_gocompat::wordwrap::wrap_string;

/// The name terrace's messages use where terraform's say "Terraform".
pub const PRODUCT: &str = "terrace";

/// The width both tools lay text out for when not writing to a terminal.
const WIDTH: usize = 78;

/// The commands a message may tell the user to run.
const COMMANDS: &[&str] = &[
    "apply",
    "console",
    "destroy",
    "fmt",
    "force-unlock",
    "get",
    "graph",
    "import",
    "init",
    "login",
    "logout",
    "output",
    "plan",
    "providers",
    "refresh",
    "show",
    "state",
    "taint",
    "test",
    "untaint",
    "validate",
    "workspace",
];

/// `text` with terraform's self-references renamed (see the module
/// documentation); everything else as it was.
pub fn as_terrace(text: &str) -> String {
    let lines: Vec<Line<'_>> = text.split('\n').map(Line::split).collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        // The paragraph starting here: following lines that its wrapping
        // broke off.
        let mut end = i + 1;
        while end < lines.len() && lines[end - 1].continues_into(&lines[end]) {
            end += 1;
        }
        let paragraph = &lines[i..end];
        i = end;
        if paragraph.len() == 1 {
            out.push(rename(paragraph[0].whole));
            continue;
        }
        let joined = paragraph
            .iter()
            .map(|l| l.body)
            .collect::<Vec<_>>()
            .join(" ");
        let renamed = rename(&joined);
        if renamed == joined {
            out.extend(paragraph.iter().map(|l| l.whole.to_string()));
            continue;
        }
        let wrapped = wrap_string(&renamed, paragraph[0].limit());
        for (n, text) in wrapped.split('\n').enumerate() {
            let frame = if n == 0 {
                paragraph[0].frame
            } else {
                paragraph[1].frame
            };
            out.push(format!("{frame}{text}"));
        }
    }
    out.join("\n")
}

/// A line of output: its frame (a diagnostic box's `│ `, and colour codes
/// that take no room) and the text inside it.
struct Line<'a> {
    whole: &'a str,
    frame: &'a str,
    body: &'a str,
    boxed: bool,
}

impl<'a> Line<'a> {
    fn split(whole: &'a str) -> Line<'a> {
        let rest = without_leading_escapes(whole);
        let (body, boxed) = match rest.strip_prefix('│') {
            Some(after) => {
                let after = without_leading_escapes(after);
                match after.strip_prefix(' ') {
                    Some(text) => (without_leading_escapes(text), true),
                    None => (after, true),
                }
            }
            None => (rest, false),
        };
        Line {
            whole,
            frame: &whole[..whole.len() - body.len()],
            body,
            boxed,
        }
    }

    /// The limit text in this frame was wrapped to.
    fn limit(&self) -> usize {
        if self.boxed {
            WIDTH - 3
        } else {
            WIDTH - 1
        }
    }

    /// Whether `next` is the rest of this line's paragraph, broken off by
    /// the wrapping: the same kind of frame, both with text, and `next`'s
    /// first word too long to have stayed on this line. The wrapping
    /// drops the space where it breaks: a line that ends in one was
    /// broken by hand.
    fn continues_into(&self, next: &Line<'_>) -> bool {
        if self.boxed != next.boxed
            || self.body.trim().is_empty()
            || self.body.ends_with(' ')
            || next.body.is_empty()
            || next.body.starts_with(' ')
        {
            return false;
        }
        // A wrapped line is never longer than the limit, unless it is one
        // word that does not fit anywhere.
        let length = visible_len(self.body);
        if length > self.limit() && self.body.contains(' ') {
            return false;
        }
        let first_word = next.body.split(' ').next().unwrap_or_default();
        length + 1 + visible_len(first_word) > self.limit()
    }
}

/// One line with terraform's self-references renamed: "Terraform" where it
/// names the tool (not "HCP Terraform", "Terraform Enterprise" or
/// "Terraform Cloud", not a release such as "Terraform v1.3" or "Terraform
/// 0.13", not the version a state file records), and `terraform COMMAND`.
fn rename(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("erraform") {
        let initial = at.checked_sub(1).map(|i| rest.as_bytes()[i]);
        let (capital, lower) = (initial == Some(b'T'), initial == Some(b't'));
        if !capital && !lower {
            out.push_str(&rest[..at + 8]);
            rest = &rest[at + 8..];
            continue;
        }
        // The byte before is ASCII, so a character starts there.
        let (before, word_and_after) = rest.split_at(at - 1);
        out.push_str(before);
        let after = &word_and_after[9..];
        let whole_word = !without_trailing_escapes(&out)
            .ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '-')
            && !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '-');
        let names_the_tool = whole_word
            && if capital {
                !out.ends_with("HCP ") && !names_another_thing(after)
            } else {
                // A command line: `terraform [global options] ...`, or
                // `terraform COMMAND`.
                after.starts_with(" [global options]")
                    || COMMANDS.iter().any(|command| {
                        after
                            .strip_prefix(' ')
                            .and_then(|a| a.strip_prefix(command))
                            .is_some_and(|a| {
                                !a.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                            })
                    })
            };
        out.push_str(if names_the_tool {
            PRODUCT
        } else {
            &word_and_after[..9]
        });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The length of `text` as shown: colour codes (`ESC [ ... m`) take no
/// room.
fn visible_len(text: &str) -> usize {
    let mut len = 0;
    let mut in_escape = false;
    for c in text.chars() {
        match c {
            '\x1b' => in_escape = true,
            'm' if in_escape => in_escape = false,
            _ if in_escape => {}
            _ => len += 1,
        }
    }
    len
}

/// `text` after the colour codes it starts with.
fn without_leading_escapes(mut text: &str) -> &str {
    while let Some(rest) = text.strip_prefix("\x1b[") {
        match rest.find('m') {
            Some(end) if rest[..end].chars().all(|c| c.is_ascii_digit() || c == ';') => {
                text = &rest[end + 1..];
            }
            _ => break,
        }
    }
    text
}

/// `text` before the colour codes it ends with.
fn without_trailing_escapes(mut text: &str) -> &str {
    while text.ends_with('m') {
        match text.rfind("\x1b[") {
            Some(start)
                if text[start + 2..text.len() - 1]
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == ';') =>
            {
                text = &text[..start];
            }
            _ => break,
        }
    }
    text
}

/// What follows "Terraform" when it names a product other than the tool
/// itself, a release, or the version a state records.
fn names_another_thing(after: &str) -> bool {
    const OTHERS: &[&str] = &[
        " Enterprise",
        " Cloud",
        " Registry",
        " AWS Provider",
        // The built-in `terraform` provider's schema, which is data.
        " workspace to use",
        " expression syntax",
        " language expression syntax",
        " CLI would expect",
    ];
    if OTHERS.iter().any(|o| after.starts_with(o)) {
        return true;
    }
    let release = |s: &str| s.starts_with(|c: char| c.is_ascii_digit());
    if after.strip_prefix(" v").is_some_and(release) {
        return true;
    }
    if let Some(v) = after.strip_prefix(' ') {
        if release(v) {
            return true;
        }
        if let Some(v) = v.strip_prefix("version ") {
            return release(v) || v.starts_with(['"', '{']);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_where_terraform_names_itself() {
        assert_eq!(
            as_terrace("Terraform will perform the following actions:"),
            "terrace will perform the following actions:"
        );
        assert_eq!(
            as_terrace(r#"Run "terraform apply" now, or terraform init."#),
            r#"Run "terrace apply" now, or terrace init."#
        );
        assert_eq!(
            as_terrace("Usage: terraform [global options] fmt [options]"),
            "Usage: terrace [global options] fmt [options]"
        );
        for kept in [
            "HCP Terraform",
            "Terraform Enterprise (app.terraform.io)",
            "Terraform v1.3 or later",
            "Terraform 0.13 and earlier",
            "written by Terraform version 1.2.0",
            "terraform_data.a",
            "hashicorp/terraform",
            "terraform.tfstate",
            "terraform {",
            "a terraform-provider-x",
            "terraform something",
        ] {
            assert_eq!(as_terrace(kept), kept);
        }
        assert_eq!(
            as_terrace("reserved for use in a future Terraform version."),
            "reserved for use in a future terrace version."
        );
    }

    #[test]
    fn word_wrapped_paragraphs_are_wrapped_again() {
        let terraform = "Terraform used the selected providers to generate the following execution\nplan. Resource actions are indicated with the following symbols:\n  + create";
        let wrapped = as_terrace(terraform);
        let want = wrap_string(
            "terrace used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:",
            77,
        ) + "\n  + create";
        assert_eq!(wrapped, want);
        assert_ne!(wrapped.split('\n').next(), terraform.split('\n').next());
    }

    #[test]
    fn colour_codes_take_no_room_and_do_not_join_words() {
        let terraform = "\x1b[0mTerraform has compared your real infrastructure against your configuration\nand found no differences, so no changes are needed.";
        let want = format!(
            "\x1b[0m{}",
            wrap_string(
                "terrace has compared your real infrastructure against your configuration and found no differences, so no changes are needed.",
                77
            )
        );
        assert_eq!(as_terrace(terraform), want);
    }

    #[test]
    fn lines_broken_by_hand_keep_their_breaks() {
        let terraform = "Terraform acquires a state lock to protect the state from being written\nby multiple users at the same time.";
        assert_eq!(
            as_terrace(terraform),
            "terrace acquires a state lock to protect the state from being written\nby multiple users at the same time."
        );
    }

    #[test]
    fn a_command_the_wrapping_split_is_renamed() {
        let terraform = "No matching objects found. To view the available instances, use \"terraform\nstate list\". Please modify the address to reference a specific instance.";
        assert_eq!(
            as_terrace(terraform),
            "No matching objects found. To view the available instances, use \"terrace\nstate list\". Please modify the address to reference a specific instance."
        );
    }

    #[test]
    fn lines_longer_than_the_limit_are_not_joined() {
        let terraform = format!(
            "{{\"@message\":\"{}\",\"detail\":\"run:\\n  terraform init\"}}\n{{\"@message\":\"next\"}}",
            "word ".repeat(20)
        );
        let got = as_terrace(&terraform);
        assert_eq!(got.lines().count(), 2, "{got}");
        assert!(got.contains("  terrace init"), "{got}");
    }

    #[test]
    fn a_line_ending_in_a_space_was_broken_by_hand() {
        let terraform = "To view the available instances, use \"terraform state list\". Please modify \nthe address to reference a specific instance.";
        assert_eq!(
            as_terrace(terraform),
            "To view the available instances, use \"terrace state list\". Please modify \nthe address to reference a specific instance."
        );
    }

    #[test]
    fn boxed_diagnostics_wrap_inside_the_box() {
        let terraform = "│ The \"count\" value depends on resource attributes that cannot be\n│ determined until apply, so Terraform cannot predict how many instances will\n│ be created.\n│ ";
        let got = as_terrace(terraform);
        for line in got.split('\n') {
            assert!(line.starts_with("│"), "{got}");
            assert!(line.chars().count() <= 78, "{got}");
        }
        assert!(got.contains("so terrace cannot predict"), "{got}");
        assert!(got.ends_with("\n│ "), "{got}");
    }
}
