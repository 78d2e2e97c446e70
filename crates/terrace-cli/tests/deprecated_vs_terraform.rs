//! A reference to an attribute the provider's schema deprecates warns, as
//! terraform 1.11.4 warns: "Deprecated attribute" at the reference, once
//! per evaluation (the validation walk's and the plan's, folded into one
//! with a count of the others).

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

/// The "Deprecated attribute" warning as printed, whitespace folded, or
/// nothing.
fn deprecation(run: &Run) -> String {
    let all = run.all();
    let Some(at) = all.find("Warning: Deprecated attribute") else {
        return String::new();
    };
    let rest = &all[at..];
    let end = rest.find("elsewhere)").map(|e| e + "elsewhere)".len());
    let block = match end {
        Some(end) => &rest[..end],
        None => rest.split("\n\n\n").next().unwrap_or(rest),
    };
    block.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn deprecated_attributes_warn_where_referenced() {
    if !have_terraform() {
        return;
    }
    let main = "data \"null_data_source\" \"d\" {}\n\noutput \"o\" {\n  value = data.null_data_source.d.id\n}\n\noutput \"p\" {\n  value = data.null_data_source.d.random\n}\n";
    for args in [&["validate"][..], &["plan"][..]] {
        let [terrace, terraform] = ["terrace", "terraform"].map(|tool| {
            let work = Work::new(
                &format!("deprecated-{tool}"),
                Overrides {
                    bundled: true,
                    aws: false,
                },
            );
            work.write("main.tf", main);
            let done = work.with_tool_ok(tool, args);
            deprecation(&done)
        });
        assert!(
            terrace.contains("on main.tf line 4, in output \"o\":")
                && terrace.contains("The attribute \"id\" is deprecated."),
            "{args:?}: {terrace}"
        );
        assert_eq!(terrace, terraform, "{args:?}");
    }
}
