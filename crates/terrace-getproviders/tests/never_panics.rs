//! Property tests: the readers of what comes from users and the network
//! never panic, whatever the bytes. The dependency lock file, the HCL 1
//! CLI configuration, provider zip archives and OpenPGP keys and
//! signatures, each fed mutations of valid inputs (the test data terraform
//! and the registry produced). `TERRACE_FUZZ_CASES` sets the number of
//! inputs of each.

use std::io::Write;
use std::path::{Path, PathBuf};
use terrace_getproviders::cliconfig::{self, CliEnv};
use terrace_getproviders::lockfile::Locks;
use terrace_getproviders::openpgp;
use terrace_getproviders::zip::ZipArchive;
use terrace_testsupport::fuzz::never_panics;

fn testdata(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn report(what: &str, ran: usize) {
    let _ = writeln!(std::io::stderr(), "{what}: {ran} inputs");
}

#[test]
fn the_lock_file_reader_never_panics() {
    let mut seeds: Vec<Vec<u8>> = [
        "aws_two_modules.terraform.lock.hcl",
        "many_hashes.terraform.lock.hcl",
        "mirror_two_providers.terraform.lock.hcl",
    ]
    .iter()
    .map(|name| testdata(name))
    .collect();
    seeds.push(
        b"provider \"example.com/a/b\" {\n  version = \"1.0.0-beta.1+x\"\n  constraints = \"~> 1.0, != 1.0.2\"\n  hashes = [\"h1:abc=\", \"zh:00\", \"unknown:x\"]\n}\nprovider \"terraform.io/builtin/terraform\" {}\n".to_vec(),
    );
    let dictionary: &[&[u8]] = &[
        b"provider ",
        b"\"registry.terraform.io/hashicorp/aws\"",
        b"\"hashicorp/aws\"",
        b"\"terraform.io/builtin/terraform\"",
        b"\"xn--bcher-kva.example/a/b\"",
        b"version = ",
        b"constraints = ",
        b"hashes = [",
        b"\"h1:",
        b"\"zh:",
        b"\"5.100.0\"",
        b"\">= 1.0, < 2\"",
        b"\"~>\"",
        b"\"v1\"",
        b"{",
        b"}",
        b"]",
        b"= ",
        b"module \"x\" {}",
        b"locals { a = b }",
        b"${",
        b"<<EOT\nx\nEOT\n",
        b"# comment\n",
        b"\"\\u00e9\"",
    ];
    let ran = never_panics("lockfile", &seeds, dictionary, 50_000, |input| {
        let (locks, _) = Locks::parse(&String::from_utf8_lossy(input), ".terraform.lock.hcl");
        // What was read can be written.
        let _ = locks.to_bytes();
    });
    report("lock file reader", ran);
}

fn cli_env() -> CliEnv {
    CliEnv {
        home: Some(PathBuf::from("/home/u")),
        cwd: PathBuf::from("/work"),
        vars: [("HOME", "/home/u"), ("X", "$Y"), ("Y", "${X}")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

#[test]
fn the_cli_configuration_reader_never_panics() {
    let seeds: Vec<Vec<u8>> = vec![
        br#"
plugin_cache_dir = "$HOME/.terraform.d/plugin-cache"
plugin_cache_may_break_dependency_lock_file = true
disable_checkpoint = true
disable_checkpoint_signature = false
credentials "app.terraform.io" {
  token = "xxxxxx.atlasv1.zzzzzzzzzzzzz"
}
credentials_helper "example" {
  args = ["--a", "b"]
}
host "example.com" {
  services = {
    "providers.v1" = "https://example.com/providers/"
    "modules.v1"   = "/modules/"
  }
}
provider_installation {
  dev_overrides {
    "hashicorp/null" = "/home/dev/./null/"
  }
  filesystem_mirror {
    path    = "/usr/share/terraform/providers"
    include = ["example.com/*/*"]
  }
  network_mirror {
    url                  = "https://mirror.example.com/"
    download_retry_count = 3
    exclude              = ["registry.terraform.io/hashicorp/*"]
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
"#
        .to_vec(),
        br#"{"plugin_cache_dir": "/cache", "provider_installation": {"filesystem_mirror": {"path": "/m", "include": ["a/b"]}, "direct": {"exclude": ["a/b"]}}}"#.to_vec(),
        b"providers {\n  null = \"/x/terraform-provider-null\"\n}\nprovisioners {\n  x = \"/y\"\n}\n/* block\ncomment */\n# hash\n// slashes\nlist = [1, 2.5, -3, 0x1f, 1e3, true, \"s\", <<EOF\nheredoc\nEOF\n]\n".to_vec(),
    ];
    let mut seeds = seeds;
    // Nesting past the parser's limit, which once overflowed the stack.
    seeds.push(format!("a {}\n", "{ b ".repeat(200)).into_bytes());
    seeds.push(format!("a = {}1{}\n", "[".repeat(200), "]".repeat(200)).into_bytes());
    let dictionary: &[&[u8]] = &[
        b"provider_installation {",
        b"dev_overrides {",
        b"filesystem_mirror {",
        b"network_mirror {",
        b"direct {",
        b"include = [",
        b"exclude = [",
        b"path = ",
        b"url = ",
        b"credentials ",
        b"host ",
        b"services = {",
        b"plugin_cache_dir = ",
        b"\"*/*/*\"",
        b"\"registry.terraform.io/hashicorp/*\"",
        b"\"$HOME\"",
        b"\"${X}\"",
        b"<<EOF\n",
        b"<<-EOF\n",
        b"\nEOF\n",
        b"0x",
        b"1e",
        b"\"\\u00",
        b"\"\\x",
        b"\"\\",
        b"=",
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b"\n",
        b"/*",
        b"{\"a\": [",
    ];
    let env = cli_env();
    let ran = never_panics("cliconfig", &seeds, dictionary, 100_000, |input| {
        let (config, _) = cliconfig::parse("/tmp/t.tfrc", &String::from_utf8_lossy(input), &env);
        let _ = config.validate();
        let _ = config.dev_overrides();
        let _ = config.merge(&config);
    });
    report("CLI configuration reader", ran);
}

/// name, method, flags, stored data, CRC, expanded size.
type SmallZipEntry = (&'static str, u16, u16, &'static [u8], u32, u32);

/// A small zip of our own beside the provider package: stored and
/// deflated entries, a directory, a data descriptor.
fn small_zip() -> Vec<u8> {
    let mut out = Vec::new();
    let mut directory = Vec::new();
    let entries: [SmallZipEntry; 3] = [
        ("dir/", 0, 0, b"", 0, 0),
        ("dir/a.txt", 0, 0, b"hello", 0x3610_a686, 5),
        // "hello" deflated: a stored deflate block.
        (
            "b.txt",
            8,
            0x8,
            b"\x01\x05\x00\xfa\xffhello",
            0x3610_a686,
            5,
        ),
    ];
    for (name, method, flags, data, crc, size) in entries {
        let offset = out.len() as u32;
        let mut common = Vec::new();
        common.extend_from_slice(&20u16.to_le_bytes());
        common.extend_from_slice(&flags.to_le_bytes());
        common.extend_from_slice(&method.to_le_bytes());
        common.extend_from_slice(&0u32.to_le_bytes());
        common.extend_from_slice(&crc.to_le_bytes());
        common.extend_from_slice(&(data.len() as u32).to_le_bytes());
        common.extend_from_slice(&size.to_le_bytes());
        common.extend_from_slice(&(name.len() as u16).to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&common);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        if flags & 0x8 != 0 {
            out.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
        }
        directory.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        directory.extend_from_slice(&(3u16 << 8 | 20).to_le_bytes());
        directory.extend_from_slice(&common);
        directory.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        directory.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
        directory.extend_from_slice(&offset.to_le_bytes());
        directory.extend_from_slice(name.as_bytes());
    }
    let directory_offset = out.len() as u32;
    out.extend_from_slice(&directory);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0, 3, 0, 3, 0]);
    out.extend_from_slice(&(directory.len() as u32).to_le_bytes());
    out.extend_from_slice(&directory_offset.to_le_bytes());
    out.extend_from_slice(&[2, 0, b'h', b'i']);
    out
}

#[test]
fn the_zip_reader_never_panics() {
    let seeds = vec![testdata("widget_2.0.0_linux_amd64.zip"), small_zip()];
    let dir = std::env::temp_dir().join(format!("terrace-zip-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let file = dir.join("input.zip");
    let dictionary: &[&[u8]] = &[
        b"PK\x03\x04",
        b"PK\x01\x02",
        b"PK\x05\x06",
        b"PK\x06\x06",
        b"PK\x06\x07",
        b"PK\x07\x08",
        b"\x01\x00\x10\x00",
        b"\xff\xff\xff\xff",
        b"\xff\xff",
        b"\x08\x00",
        b"\x0e\x00",
    ];
    let ran = never_panics("zip", &seeds, dictionary, 2_000, |input| {
        std::fs::write(&file, input).expect("writing the input");
        if let Ok(mut archive) = ZipArchive::open(&file) {
            let entries = archive.entries.clone();
            for entry in &entries {
                let _ = entry.name_lossy();
                let _ = entry.permissions();
                let _ = archive.copy_entry(entry, &mut std::io::sink());
            }
        }
        let _ = terrace_getproviders::hash::h1_zip(&file);
    });
    let _ = std::fs::remove_dir_all(&dir);
    report("zip reader", ran);
}

/// Binary OpenPGP data in armor without a checksum line, so mutations of
/// the packets themselves reach the packet reader.
fn armor(kind: &str, data: &[u8]) -> String {
    let body: Vec<String> = terrace_getproviders::hash::base64_std(data)
        .as_bytes()
        .chunks(64)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect();
    format!(
        "-----BEGIN PGP {kind}-----\n\n{}\n-----END PGP {kind}-----\n",
        body.join("\n")
    )
}

#[test]
fn the_openpgp_reader_never_panics() {
    let keys: Vec<Vec<u8>> = ["key_signer.asc", "key_subkey.asc", "key_stranger.asc"]
        .iter()
        .map(|name| {
            let text = String::from_utf8_lossy(&testdata(&format!("registry/{name}"))).into_owned();
            openpgp::dearmor(&text).expect("the test keys are valid armor")
        })
        .collect();
    let signatures: Vec<Vec<u8>> = [
        "SHA256SUMS.sig",
        "SHA256SUMS.subkey.sig",
        "SHA256SUMS.stranger.sig",
    ]
    .iter()
    .map(|name| testdata(&format!("registry/{name}")))
    .collect();
    let document = testdata("registry/SHA256SUMS");
    let keyring: Vec<openpgp::Entity> = keys
        .iter()
        .flat_map(|k| {
            openpgp::read_armored_key_ring(&armor("PUBLIC KEY BLOCK", k))
                .expect("the test keys read")
        })
        .collect();
    // The seeds hold: the signer's signature checks against its key.
    assert!(openpgp::check_detached_signature(&keyring, &document, &signatures[0]).is_ok());

    let dictionary: &[&[u8]] = &[
        b"\x99\x01\x0d",
        b"\x99\xff\xff",
        b"\xc6\xff",
        b"\xc6\xff\xff\xff\xff\xff",
        b"\xb4\x05",
        b"\x88\x9c",
        b"\x89\x02\x33",
        b"\xb9\x01\x0d",
        b"\x04",
        b"\x01",
        b"\x16",
        b"\x10\x00",
        b"\x00\x00",
        b"\xff\xff",
        b"\x02\x08",
        b"\x1b\x0f",
    ];
    let mut seeds = keys.clone();
    seeds.extend(signatures.iter().cloned());
    let ran = never_panics("openpgp", &seeds, dictionary, 10_000, |input| {
        // As a key ring, armored and bare.
        let _ = openpgp::read_armored_key_ring(&armor("PUBLIC KEY BLOCK", input));
        let _ = openpgp::read_armored_key_ring(&String::from_utf8_lossy(input));
        // As a signature, binary and armored, against the real keys.
        let _ = openpgp::check_detached_signature(&keyring, &document, input);
        let _ = openpgp::check_detached_signature(
            &keyring,
            &document,
            armor("SIGNATURE", input).as_bytes(),
        );
        let _ = openpgp::dearmor(&String::from_utf8_lossy(input));
    });
    report("OpenPGP reader", ran);
}
