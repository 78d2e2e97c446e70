//! Decoding and static evaluation must turn any input into diagnostics,
//! never a panic: every configuration file of the fixtures, cut short at
//! many points (which leaves unclosed blocks, half expressions, broken
//! JSON), goes through parsing, decoding, module assembly and static
//! evaluation.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_config::body::Body;
use terrace_config::decode::decode_file;
use terrace_config::loader::apply_static_context;
use terrace_config::module::new_module;
use terrace_config::static_eval::{StaticContext, StaticSettings, VariableValues};

fn config_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let path = e.path();
        if path.is_dir() {
            config_files(&path, out);
        } else if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".tf") || n.ends_with(".tf.json") || n.ends_with(".tofu"))
        {
            out.push(path);
        }
    }
}

fn load_text(name: &str, text: &str) {
    let (file, _) = terrace_syntax::parse_file(name, text);
    let (decoded, _) = decode_file(&Body::from_file(&file), name, name.contains("override"));
    let (mut module, _) = new_module(vec![decoded], Vec::new(), PathBuf::from("."));
    let settings = StaticSettings {
        root_dir: ".".into(),
        workspace: "default".into(),
        cwd: PathBuf::from("/"),
    };
    let ctx = Arc::new(StaticContext::new(
        Vec::new(),
        module.variables.clone(),
        module.locals.clone(),
        &module.source_dir,
        &settings,
        VariableValues::Defaults,
    ));
    let _ = apply_static_context(&mut module, &ctx, &Default::default());
    for local in module.locals.values() {
        let _ = ctx.evaluate(
            &local.expr,
            &ctx.identifier("local", local.decl_range.clone()),
        );
    }
}

#[test]
fn truncated_configurations_give_diagnostics() {
    let mut files = Vec::new();
    config_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut files,
    );
    // The local fixtures are enough to run; the shared ones widen it.
    if let Some(shared) = terrace_testsupport::shared("conformance/opentofu-configs") {
        config_files(&shared, &mut files);
    }
    assert!(files.len() > 50, "only {} files", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("x.tf");
        let step = (text.len() / 40).max(1);
        let mut cut = 0;
        while cut <= text.len() {
            if text.is_char_boundary(cut) {
                load_text(name, &text[..cut]);
            }
            cut += step;
        }
        load_text(name, &text);
    }
}
