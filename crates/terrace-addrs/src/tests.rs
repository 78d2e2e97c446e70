//! Round trips across the crate: for generated addresses with awkward keys,
//! printing then parsing gives the same address back.

use crate::*;
use std::collections::{BTreeSet, HashSet};

/// A small deterministic generator (an LCG), so the cases are the same on
/// every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() as usize) % items.len()]
    }

    fn key(&mut self) -> InstanceKey {
        const PIECES: &[&str] = &[
            "a",
            "K",
            "0",
            "",
            " ",
            "\"",
            "\\",
            "\n",
            "\r",
            "\t",
            "$",
            "${",
            "%",
            "%{",
            "$${",
            "}",
            "ü",
            "✓",
            "\u{0}",
            "\u{7f}",
            "\u{a0}",
            "\u{2028}",
            "\u{e0000}",
            "😀",
            "é",
            "/",
            ".",
            "[",
            "]",
            "*",
        ];
        match self.next() % 4 {
            0 => InstanceKey::None,
            1 => InstanceKey::Int((self.next() % 1000) as i64),
            _ => {
                let n = self.next() % 4;
                let s: String = (0..n).map(|_| self.pick(PIECES)).collect();
                InstanceKey::string(s)
            }
        }
    }

    fn name(&mut self) -> &'static str {
        self.pick(&[
            "a", "web", "b_1", "x-y", "module_x", "data", "provider", "output",
        ])
    }

    fn module_instance(&mut self) -> ModuleInstance {
        let depth = self.next() % 4;
        let mut m = ModuleInstance::root();
        for _ in 0..depth {
            let name = self.name();
            let key = self.key();
            m = m.child(name, key);
        }
        m
    }
}

#[test]
fn generated_resource_instances_round_trip() {
    let mut g = Gen(1);
    let mut seen = HashSet::new();
    for _ in 0..400 {
        let module = g.module_instance();
        let mode = g.pick(&[
            ResourceMode::Managed,
            ResourceMode::Data,
            ResourceMode::Ephemeral,
        ]);
        let type_name = g.pick(&["aws_s3_bucket", "null_resource", "t", "x-y"]);
        let key = g.key();
        let addr = module.resource_instance(mode, type_name, g.name(), key);
        let text = addr.to_string();
        assert_eq!(
            text.parse::<AbsResourceInstance>().as_ref(),
            Ok(&addr),
            "{text}"
        );
        // The same text also reads as a target of the matching kind.
        let target = Target::parse_str(&text).map(|t| t.subject);
        let want = if addr.resource.key.is_none() {
            Targetable::AbsResource(addr.containing_resource())
        } else {
            Targetable::AbsResourceInstance(addr.clone())
        };
        assert_eq!(target.as_ref(), Ok(&want), "{text}");
        seen.insert(addr);
    }
    assert!(
        seen.len() > 300,
        "the generator repeats itself: {}",
        seen.len()
    );
}

#[test]
fn generated_module_instances_round_trip() {
    let mut g = Gen(2);
    for _ in 0..300 {
        let m = g.module_instance();
        if m.is_root() {
            continue;
        }
        let text = m.to_string();
        assert_eq!(text.parse::<ModuleInstance>().as_ref(), Ok(&m), "{text}");
        assert_eq!(
            Target::parse_str(&text).map(|t| t.subject),
            Ok(Targetable::ModuleInstance(m.clone()))
        );
        let module = m.module();
        assert_eq!(module.to_string().parse::<Module>().as_ref(), Ok(&module));
        let output = OutputValue::new("o").absolute(m.clone());
        assert_eq!(
            output.to_string().parse::<AbsOutputValue>().as_ref(),
            Ok(&output)
        );
    }
}

#[test]
fn generated_provider_instances_round_trip() {
    let mut g = Gen(3);
    let providers = [
        "hashicorp/aws",
        "registry.opentofu.org/hashicorp/google",
        "example.com:8443/ns/t",
        "bücher.example/испытание/münchen",
        "terraform.io/builtin/terraform",
        "-/legacy",
    ];
    for _ in 0..200 {
        let names: Vec<&str> = (0..g.next() % 3).map(|_| g.name()).collect();
        let Ok(provider) = Provider::parse_source_str(g.pick(&providers)) else {
            panic!("valid provider");
        };
        let alias = (g.next() % 3 >= 1).then(|| std::sync::Arc::from(g.name()));
        let key = if alias.is_some() {
            g.key()
        } else {
            InstanceKey::None
        };
        let addr = AbsProviderConfig::new(Module::from_names(names), provider, alias).instance(key);
        let text = addr.to_string();
        assert_eq!(
            text.parse::<AbsProviderInstance>().as_ref(),
            Ok(&addr),
            "{text}"
        );
        if addr.key.is_none() {
            assert_eq!(
                text.parse::<AbsProviderConfig>().as_ref(),
                Ok(&addr.config),
                "{text}"
            );
        }
    }
}

#[test]
fn hcl_quote_reads_back() {
    let mut g = Gen(4);
    for _ in 0..300 {
        let InstanceKey::String(s) = g.key() else {
            continue;
        };
        let text = format!("module.m[{}]", hcl_quote(&s));
        let parsed = ModuleInstance::parse_str(&text);
        let key = parsed.as_ref().map(|m| m.steps()[0].key.clone());
        assert_eq!(key, Ok(InstanceKey::String(s.clone())), "{text}");
    }
}

#[test]
fn addresses_key_maps() {
    // Equal addresses hash alike and distinct ones stay distinct, whether
    // parsed from text or built in code.
    let texts = [
        r#"module.a["k"].aws_s3_bucket.b[0]"#,
        r#"module.a["k"].aws_s3_bucket.b"#,
        "module.a.aws_s3_bucket.b[0]",
        "data.x.y",
        "ephemeral.x.y",
        "x.y",
    ];
    let parsed: HashSet<AbsResourceInstance> =
        texts.iter().filter_map(|t| t.parse().ok()).collect();
    assert_eq!(parsed.len(), texts.len());
    let built = ModuleInstance::root()
        .child("a", InstanceKey::string("k"))
        .resource_instance(
            ResourceMode::Managed,
            "aws_s3_bucket",
            "b",
            InstanceKey::Int(0),
        );
    assert!(parsed.contains(&built));
    let ordered: BTreeSet<&AbsResourceInstance> = parsed.iter().collect();
    let shown: Vec<String> = ordered.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "ephemeral.x.y",
            "data.x.y",
            "x.y",
            "module.a.aws_s3_bucket.b[0]",
            r#"module.a["k"].aws_s3_bucket.b"#,
            r#"module.a["k"].aws_s3_bucket.b[0]"#,
        ]
    );
}
