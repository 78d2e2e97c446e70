//! Parsing and evaluating a generated 10,000-line configuration: the work
//! terrace does on every run before it talks to any provider.
//!
//! `cargo bench -p terrace-lang --bench parse_eval`; results are recorded in
//! `docs/BENCHMARKS.md`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::collections::BTreeMap;
use terrace_lang::eval::evaluate;
use terrace_lang::scope::MapScope;
use terrace_syntax::ast::{Body, File};
use terrace_value::{Type, Value};

/// A configuration of resource-like blocks, 20 lines each, mixing the
/// expression forms real configurations use.
fn generated_config(lines: usize) -> String {
    let mut out = String::with_capacity(lines * 40);
    let mut i = 0;
    while out.lines().count() < lines {
        out.push_str(&format!(
            r#"resource "example_thing" "r{i}" {{
  name        = "thing-${{var.prefix}}-{i}"
  count_value = var.base + {i} * 2
  enabled     = var.base > {i} ? true : false
  tags = merge(var.tags, {{
    index = "{i}"
    owner = upper(var.owner)
  }})
  zones    = [for z in var.zones : "${{z}}-{i}" if z != "c"]
  by_name  = {{ for k, v in var.tags : k => length(v) }}
  cidr     = cidrsubnet("10.0.0.0/8", 8, {i} % 256)
  joined   = join(",", sort(var.zones))
  first    = element(var.zones, {i})
  lookup   = lookup(var.tags, "env", "none")
  template = <<-EOT
    %{{ for z in var.zones ~}}
    zone ${{z}}
    %{{ endfor ~}}
  EOT
}}
"#
        ));
        i += 1;
    }
    out
}

fn scope() -> MapScope {
    let tags: BTreeMap<String, Value> = [("env", "prod"), ("team", "platform")]
        .iter()
        .map(|(k, v)| (k.to_string(), Value::string(*v)))
        .collect();
    let zones = Value::list(
        Type::String,
        ["a", "b", "c"].iter().map(Value::string).collect(),
    );
    let var = Value::object(BTreeMap::from([
        ("prefix".to_string(), Value::string("bench")),
        ("base".to_string(), Value::int(500)),
        ("owner".to_string(), Value::string("terrace")),
        ("tags".to_string(), Value::map(Type::String, tags)),
        ("zones".to_string(), zones),
    ]));
    MapScope::new().with("var", var)
}

fn evaluate_all(file: &File, scope: &MapScope) -> usize {
    let mut evaluated = 0;
    let Body::Native(body) = &file.body else {
        return 0;
    };
    for block in &body.blocks {
        let Body::Native(inner) = &block.body else {
            continue;
        };
        for attribute in &inner.attributes {
            let (value, diags) = evaluate(&attribute.expr, &file.source, scope);
            assert!(diags.is_empty(), "{diags:?}");
            evaluated += usize::from(value.is_known());
        }
    }
    evaluated
}

fn bench(c: &mut Criterion) {
    let text = generated_config(10_000);
    let scope = scope();
    let mut group = c.benchmark_group("config_10k_lines");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.bench_function("parse", |b| {
        b.iter(|| terrace_syntax::parse_native_file("main.tf", &text))
    });
    let (file, diags) = terrace_syntax::parse_native_file("main.tf", &text);
    assert!(diags.is_empty(), "{diags:?}");
    group.bench_function("evaluate", |b| b.iter(|| evaluate_all(&file, &scope)));
    group.bench_function("parse_and_evaluate", |b| {
        b.iter(|| {
            let (file, _) = terrace_syntax::parse_native_file("main.tf", &text);
            evaluate_all(&file, &scope)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
