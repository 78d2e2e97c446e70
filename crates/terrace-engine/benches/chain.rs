//! The `terraform_data` chain benchmark: n instances, the second half
//! each referencing one of the first half by index, planned and applied
//! in memory with the built-in provider. Time must grow linearly with n.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use terrace_config::loader::{load_config, LoadOptions};
use terrace_engine::{Context, NoHooks, PlanOptions, ProviderFactory};
use terrace_providers::{Provider, ProviderSchema};
use terrace_states::model::State;

struct Builtin(PathBuf);

impl ProviderFactory for Builtin {
    fn schema(
        &self,
        _: &terrace_addrs::Provider,
    ) -> Result<Arc<ProviderSchema>, terrace_syntax::Diagnostics> {
        Ok(Arc::new(terrace_builtin::TerraformProvider::schema()))
    }
    fn start(
        &self,
        _: &terrace_addrs::Provider,
    ) -> Result<Arc<dyn Provider>, terrace_syntax::Diagnostics> {
        Ok(Arc::new(terrace_builtin::TerraformProvider::new(
            self.0.clone(),
        )))
    }
}

fn context(n: usize) -> Context {
    let dir = std::env::temp_dir().join(format!("terrace-chain-bench-{}-{n}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let half = n / 2;
    let text = format!(
        r#"
resource "terraform_data" "a" {{
  count = {half}
  input = "a-${{count.index}}"
}}
resource "terraform_data" "b" {{
  count = {half}
  input = terraform_data.a[count.index].output
}}
"#
    );
    if std::fs::write(dir.join("main.tf"), text).is_err() {
        panic!("cannot write the benchmark configuration");
    }
    let (config, diags) = load_config(&dir, &LoadOptions::default());
    assert!(
        !terrace_syntax::diagnostic::has_errors(&diags),
        "{diags:#?}"
    );
    Context {
        config: Arc::new(config),
        providers: Arc::new(Builtin(dir.clone())),
        variables: HashMap::new(),
        workspace: "default".into(),
        working_dir: dir,
        parallelism: 10,
        terraform_version: "1.11.4".into(),
        commands: Arc::new(terrace_engine::NoCommandRunner),
    }
}

fn chain(c: &mut Criterion) {
    let mut group = c.benchmark_group("chain");
    group.sample_size(10);
    for n in [1_000usize, 5_000, 20_000] {
        let ctx = context(n);
        let empty = State::new_with_lineage("bench");
        group.bench_with_input(BenchmarkId::new("plan", n), &n, |b, _| {
            b.iter(|| terrace_engine::plan(&ctx, &empty, &PlanOptions::default(), &NoHooks))
        });
        let (plan, _) = terrace_engine::plan(&ctx, &empty, &PlanOptions::default(), &NoHooks);
        assert_eq!(plan.changes.len(), n);
        group.bench_with_input(BenchmarkId::new("apply", n), &n, |b, _| {
            b.iter(|| terrace_engine::apply(&ctx, &plan, &NoHooks))
        });
        let (state, _) = terrace_engine::apply(&ctx, &plan, &NoHooks);
        group.bench_with_input(BenchmarkId::new("replan", n), &n, |b, _| {
            b.iter(|| terrace_engine::plan(&ctx, &state, &PlanOptions::default(), &NoHooks))
        });
    }
    group.finish();
}

criterion_group!(benches, chain);
criterion_main!(benches);
