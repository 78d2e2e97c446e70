//! `TF_IN_AUTOMATION`: set to anything but empty, it drops the next steps
//! meant for someone at a shell, as terraform does.

use std::process::Command;

fn init(dir: &std::path::Path, in_automation: Option<&str>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_terrace"));
    command
        .args(["init", "-no-color"])
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", dir.join("none.tfrc"))
        .env_remove("TF_IN_AUTOMATION")
        .env_remove("TF_DATA_DIR");
    if let Some(value) = in_automation {
        command.env("TF_IN_AUTOMATION", value);
    }
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("running terrace: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn init_leaves_out_the_next_steps_in_automation() {
    let dir = std::env::temp_dir().join(format!("terrace-in-automation-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("main.tf"), "output \"a\" {\n  value = 1\n}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("none.tfrc"), "").unwrap_or_else(|e| panic!("{e}"));
    let next_steps = "You may now begin working with terrace.";
    for (setting, shown) in [(None, true), (Some(""), true), (Some("1"), false)] {
        let text = init(&dir, setting);
        assert!(
            text.contains("terrace has been successfully initialized!"),
            "{text}"
        );
        assert_eq!(
            text.contains(next_steps),
            shown,
            "TF_IN_AUTOMATION={setting:?}:\n{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
