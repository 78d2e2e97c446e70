//! Unpacking downloaded module packages as go-getter's decompressors do
//! when the destination is a directory: zip, tar, and gzip-compressed tar.
//! Entries with a `..` path element are refused, links in tar archives are
//! skipped (go-getter ignores them to prevent traversal), files keep their
//! archived permission bits, directories are made 0755 and then given
//! their archived modes; an archive with no file at all is an error. Error
//! texts are Go's (`gzip: invalid header`, `archive/tar: invalid header`,
//! `zip: not a valid zip file`).

use crate::fsutil::path_error;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use terrace_getproviders::zip::ZipArchive;

/// The archive types go-getter knows, longest suffix first, so that
/// `x.tar.gz` is a `tar.gz` and not a `gz`.
pub const ARCHIVE_TYPES: &[&str] = &[
    "tar.bz2", "tar.tbz2", "tar.gz", "tar.xz", "tbz2", "tgz", "txz", "bz2", "zip", "gz", "xz",
];

/// The archive type an URL path names by its extension, if any.
pub fn archive_type_of(path: &str) -> Option<&'static str> {
    ARCHIVE_TYPES
        .iter()
        .copied()
        .filter(|t| path.ends_with(&format!(".{t}")))
        .max_by_key(|t| t.len())
}

/// Unpacks the archive file `src` of type `kind` into the directory `dst`.
pub fn decompress_into_dir(kind: &str, src: &Path, dst: &Path) -> Result<(), String> {
    match kind {
        "zip" => unzip(src, dst),
        "tar.gz" | "tgz" => {
            let data = std::fs::read(src).map_err(|e| path_error("open", src, &e))?;
            let tar = gunzip(&data)?;
            untar(&tar, dst, src)
        }
        "tar" => {
            let data = std::fs::read(src).map_err(|e| path_error("open", src, &e))?;
            untar(&data, dst, src)
        }
        "gz" => Err("gzip-style decompression to dir not supported".into()),
        "bz2" => Err("bzip2-style decompression to dir not supported".into()),
        "xz" => Err("xz-style decompression to dir not supported".into()),
        other => Err(format!(
            "{} cannot unpack {} archives",
            crate::PRODUCT,
            terrace_value::gostr::quote(other)
        )),
    }
}

fn contains_dot_dot(name: &str) -> bool {
    name.split(['/', '\\']).any(|p| p == "..")
}

fn entry_path(dst: &Path, name: &str) -> PathBuf {
    let rel: PathBuf = name
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    dst.join(rel)
}

fn mkdir_all(p: &Path) -> Result<(), String> {
    if p.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(p).map_err(|e| path_error("mkdir", p, &e))?;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| path_error("chmod", p, &e))
}

fn write_file(path: &Path, data: &[u8], mode: u32) -> Result<(), String> {
    let mut f = std::fs::File::create(path).map_err(|e| path_error("open", path, &e))?;
    f.write_all(data)
        .map_err(|e| path_error("write", path, &e))?;
    drop(f);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o7777))
        .map_err(|e| path_error("chmod", path, &e))
}

fn unzip(src: &Path, dst: &Path) -> Result<(), String> {
    mkdir_all(dst)?;
    let mut archive = ZipArchive::open(src).map_err(|e| e.0)?;
    if archive.entries.is_empty() {
        return Err(format!("empty archive: {}", src.display()));
    }
    let entries = archive.entries.clone();
    for entry in &entries {
        let name = entry.name_lossy();
        if contains_dot_dot(&name) {
            return Err(format!("entry contains '..': {name}"));
        }
        let path = entry_path(dst, &name);
        if entry.is_dir() {
            mkdir_all(&path)?;
            continue;
        }
        if let Some(parent) = path.parent() {
            mkdir_all(parent)?;
        }
        let mut data = Vec::new();
        archive.copy_entry(entry, &mut data).map_err(|e| e.0)?;
        write_file(&path, &data, entry.permissions())?;
    }
    Ok(())
}

/// A gzip stream's content (one member, as module archives are), with
/// the trailer's CRC and size checked as Go's reader checks them.
pub fn gunzip(data: &[u8]) -> Result<Vec<u8>, String> {
    const INVALID: &str = "gzip: invalid header";
    if data.len() < 10 {
        return Err(if data.is_empty() {
            "EOF"
        } else {
            "unexpected EOF"
        }
        .into());
    }
    if data[0] != 0x1f || data[1] != 0x8b || data[2] != 8 {
        return Err(INVALID.into());
    }
    let flags = data[3];
    let mut i = 10;
    let need = |i: usize| -> Result<(), String> {
        if i > data.len() {
            Err("unexpected EOF".into())
        } else {
            Ok(())
        }
    };
    if flags & 0x04 != 0 {
        need(i + 2)?;
        let xlen = usize::from(u16::from_le_bytes([data[i], data[i + 1]]));
        i += 2 + xlen;
        need(i)?;
    }
    for bit in [0x08u8, 0x10] {
        if flags & bit != 0 {
            match data[i.min(data.len())..].iter().position(|b| *b == 0) {
                Some(n) => i += n + 1,
                None => return Err("unexpected EOF".into()),
            }
        }
    }
    if flags & 0x02 != 0 {
        i += 2;
    }
    need(i)?;
    if data.len() < i + 8 {
        return Err("unexpected EOF".into());
    }
    let out =
        miniz_oxide::inflate::decompress_to_vec(&data[i..data.len() - 8]).map_err(|e| {
            match e.status {
                miniz_oxide::inflate::TINFLStatus::FailedCannotMakeProgress => {
                    "unexpected EOF".to_string()
                }
                _ => format!("flate: corrupt input before offset {}", i + e.output.len()),
            }
        })?;
    let t = &data[data.len() - 8..];
    let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
    let size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
    if crc != terrace_value::crc32::checksum_ieee(&out) || size != out.len() as u32 {
        return Err("gzip: invalid checksum".into());
    }
    Ok(out)
}

/// One tar header, with PAX and GNU long names applied.
struct TarEntry {
    name: String,
    mode: u32,
    kind: u8,
    data: std::ops::Range<usize>,
}

fn octal(field: &[u8]) -> Result<u64, String> {
    if field.first().is_some_and(|b| b & 0x80 != 0) {
        // GNU base-256 for large values.
        let mut v: u64 = u64::from(field[0] & 0x7f);
        for b in &field[1..] {
            v = v.checked_shl(8).ok_or("archive/tar: invalid header")? | u64::from(*b);
        }
        return Ok(v);
    }
    let text: String = field
        .iter()
        .take_while(|b| **b != 0)
        .map(|b| *b as char)
        .collect();
    let text = text.trim_matches(' ');
    if text.is_empty() {
        return Ok(0);
    }
    u64::from_str_radix(text, 8).map_err(|_| "archive/tar: invalid header".to_string())
}

fn cstr(field: &[u8]) -> String {
    let end = field.iter().position(|b| *b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

/// The entries of a tar archive, as Go's `archive/tar` reader returns
/// them (metadata entries consumed).
fn tar_entries(data: &[u8]) -> Result<Vec<TarEntry>, String> {
    const BLOCK: usize = 512;
    let mut out = Vec::new();
    let mut pos = 0;
    let mut long_name: Option<String> = None;
    let mut pax_path: Option<String> = None;
    let mut pax_size: Option<u64> = None;
    loop {
        if pos == data.len() {
            return Ok(out);
        }
        if pos + BLOCK > data.len() {
            return Err("unexpected EOF".into());
        }
        let h = &data[pos..pos + BLOCK];
        if h.iter().all(|b| *b == 0) {
            return Ok(out);
        }
        let stored = octal(&h[148..156])?;
        let sum: u64 = h
            .iter()
            .enumerate()
            .map(|(i, b)| {
                if (148..156).contains(&i) {
                    32
                } else {
                    u64::from(*b)
                }
            })
            .sum();
        if stored != sum {
            return Err("archive/tar: invalid header".into());
        }
        let kind = h[156];
        let mut size = octal(&h[124..136])?;
        if let Some(s) = pax_size.take() {
            size = s;
        }
        let start = pos + BLOCK;
        let len = usize::try_from(size).map_err(|_| "archive/tar: invalid header".to_string())?;
        let end = start
            .checked_add(len)
            .ok_or("archive/tar: invalid header")?;
        if end > data.len() {
            return Err("unexpected EOF".into());
        }
        pos = start + len.div_ceil(BLOCK) * BLOCK;
        let body = &data[start..end];
        match kind {
            b'L' => {
                long_name = Some(cstr(body));
                continue;
            }
            b'K' => continue,
            b'x' => {
                for (k, v) in pax_records(body)? {
                    match k.as_str() {
                        "path" => pax_path = Some(v),
                        "size" => {
                            pax_size = Some(
                                v.parse()
                                    .map_err(|_| "archive/tar: invalid header".to_string())?,
                            )
                        }
                        _ => {}
                    }
                }
                continue;
            }
            b'g' => continue,
            _ => {}
        }
        let ustar = &h[257..263] == b"ustar\0";
        let mut name = cstr(&h[0..100]);
        if ustar {
            let prefix = cstr(&h[345..500]);
            if !prefix.is_empty() {
                name = format!("{prefix}/{name}");
            }
        }
        if let Some(n) = long_name.take() {
            name = n;
        }
        if let Some(n) = pax_path.take() {
            name = n;
        }
        let mode = u32::try_from(octal(&h[100..108])? & 0o7777).unwrap_or(0o644);
        out.push(TarEntry {
            name,
            mode,
            kind,
            data: start..end,
        });
    }
}

fn pax_records(body: &[u8]) -> Result<Vec<(String, String)>, String> {
    let bad = || "archive/tar: invalid header".to_string();
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let sp = rest.iter().position(|b| *b == b' ').ok_or_else(bad)?;
        let len: usize = std::str::from_utf8(&rest[..sp])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(bad)?;
        if len <= sp + 1 || len > rest.len() {
            return Err(bad());
        }
        let record = &rest[sp + 1..len];
        let record = record.strip_suffix(b"\n").ok_or_else(bad)?;
        let eq = record.iter().position(|b| *b == b'=').ok_or_else(bad)?;
        out.push((
            String::from_utf8_lossy(&record[..eq]).into_owned(),
            String::from_utf8_lossy(&record[eq + 1..]).into_owned(),
        ));
        rest = &rest[len..];
    }
    Ok(out)
}

fn untar(data: &[u8], dst: &Path, src: &Path) -> Result<(), String> {
    let entries = tar_entries(data)?;
    let mut wrote_file = false;
    let mut dirs: Vec<(PathBuf, u32)> = Vec::new();
    for e in &entries {
        // Links could point outside the destination; go-getter skips them.
        if e.kind == b'1' || e.kind == b'2' {
            continue;
        }
        if contains_dot_dot(&e.name) {
            return Err(format!("entry contains '..': {}", e.name));
        }
        let path = entry_path(dst, &e.name);
        if e.kind == b'5' || e.name.ends_with('/') {
            mkdir_all(&path)?;
            dirs.push((path, e.mode));
            continue;
        }
        if let Some(parent) = path.parent() {
            mkdir_all(parent)?;
        }
        write_file(&path, &data[e.data.clone()], e.mode)?;
        wrote_file = true;
    }
    if !wrote_file {
        return Err(format!("empty archive: {}", src.display()));
    }
    for (path, mode) in dirs {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
            .map_err(|e| path_error("chmod", &path, &e))?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testutil::TempDir;

    /// A tar archive built by hand: `(name, kind, mode, data)`.
    pub(crate) fn tar(entries: &[(&str, u8, u32, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, kind, mode, data) in entries {
            let mut h = [0u8; 512];
            h[..name.len()].copy_from_slice(name.as_bytes());
            h[100..107].copy_from_slice(format!("{mode:07o}").as_bytes());
            h[108..115].copy_from_slice(b"0000000");
            h[116..123].copy_from_slice(b"0000000");
            h[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
            h[136..147].copy_from_slice(b"00000000000");
            h[156] = *kind;
            h[257..263].copy_from_slice(b"ustar\0");
            h[263..265].copy_from_slice(b"00");
            h[148..156].copy_from_slice(b"        ");
            let sum: u32 = h.iter().map(|b| u32::from(*b)).sum();
            h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
            out.extend_from_slice(&h);
            out.extend_from_slice(data);
            out.resize(out.len().div_ceil(512) * 512, 0);
        }
        out.resize(out.len() + 1024, 0);
        out
    }

    /// gzip with a stored (uncompressed) deflate block.
    pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
        out.extend_from_slice(&terrace_value::crc32::checksum_ieee(data).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
            let Ok(rd) = std::fs::read_dir(d) else { return };
            for e in rd.flatten() {
                let p = e.path();
                let rel = p
                    .strip_prefix(base)
                    .map(|r| r.display().to_string())
                    .unwrap_or_default();
                let Ok(m) = std::fs::symlink_metadata(&p) else {
                    continue;
                };
                if m.is_dir() {
                    out.push(format!("{rel}/ {:o}", m.permissions().mode() & 0o777));
                    walk(base, &p, out);
                } else {
                    out.push(format!("{rel} {:o}", m.permissions().mode() & 0o777));
                }
            }
        }
        walk(dir, dir, &mut out);
        out.sort();
        out
    }

    #[test]
    fn unpacks_tar_gz_like_go_getter() {
        let dir = TempDir::new("untar");
        let archive = tar(&[
            ("./", b'5', 0o755, b""),
            ("./main.tf", b'0', 0o644, b"variable \"v\" {}\n"),
            ("./modules/sub/main.tf", b'0', 0o600, b""),
            ("./bin/", b'5', 0o700, b""),
            ("./bin/run", b'0', 0o755, b"#!/bin/sh\n"),
            ("./link", b'2', 0o777, b""),
        ]);
        let src = dir.write("m.tgz", &gzip(&archive), 0o644);
        let dst = dir.path().join("out");
        assert_eq!(decompress_into_dir("tgz", &src, &dst), Ok(()));
        assert_eq!(
            listing(&dst),
            [
                "bin/ 700",
                "bin/run 755",
                "main.tf 644",
                "modules/ 755",
                "modules/sub/ 755",
                "modules/sub/main.tf 600"
            ]
        );
        assert_eq!(
            std::fs::read_to_string(dst.join("main.tf")).ok().as_deref(),
            Some("variable \"v\" {}\n")
        );
    }

    #[test]
    fn refuses_what_go_getter_refuses() {
        let dir = TempDir::new("untar-bad");
        let src = dir.write("a.tar", &tar(&[("../evil", b'0', 0o644, b"x")]), 0o644);
        assert_eq!(
            decompress_into_dir("tar", &src, &dir.path().join("o1")),
            Err("entry contains '..': ../evil".to_string())
        );
        let src = dir.write("b.tar", &tar(&[("d/", b'5', 0o755, b"")]), 0o644);
        assert_eq!(
            decompress_into_dir("tar", &src, &dir.path().join("o2")),
            Err(format!("empty archive: {}", src.display()))
        );
        let src = dir.write("c.tgz", b"not gzip at all", 0o644);
        assert_eq!(
            decompress_into_dir("tgz", &src, &dir.path().join("o3")),
            Err("gzip: invalid header".to_string())
        );
        let mut bad_crc = gzip(&tar(&[("f", b'0', 0o644, b"x")]));
        let n = bad_crc.len();
        bad_crc[n - 8] ^= 0xff;
        let src = dir.write("d.tgz", &bad_crc, 0o644);
        assert_eq!(
            decompress_into_dir("tgz", &src, &dir.path().join("o4")),
            Err("gzip: invalid checksum".to_string())
        );
        let mut corrupt = tar(&[("f", b'0', 0o644, b"x")]);
        corrupt[0] = b'g';
        let src = dir.write("e.tar", &corrupt, 0o644);
        assert_eq!(
            decompress_into_dir("tar", &src, &dir.path().join("o5")),
            Err("archive/tar: invalid header".to_string())
        );
        let src = dir.write("f.zip", b"PK\x03\x04 truncated", 0o644);
        assert_eq!(
            decompress_into_dir("zip", &src, &dir.path().join("o6")),
            Err("zip: not a valid zip file".to_string())
        );
    }

    #[test]
    fn unpacks_zip() {
        let dir = TempDir::new("unzip");
        let src = dir.write(
            "w.zip",
            include_bytes!("../../terrace-getproviders/testdata/widget_2.0.0_linux_amd64.zip"),
            0o644,
        );
        let dst = dir.path().join("out");
        assert_eq!(decompress_into_dir("zip", &src, &dst), Ok(()));
        assert_eq!(
            listing(&dst),
            [
                "docs/ 755",
                "docs/README.md 644",
                "terraform-provider-widget_v2.0.0 755"
            ]
        );
    }

    #[test]
    fn archive_types_by_extension() {
        assert_eq!(archive_type_of("/x/m.tar.gz"), Some("tar.gz"));
        assert_eq!(archive_type_of("/x/m.gz"), Some("gz"));
        assert_eq!(archive_type_of("/x/m.tgz"), Some("tgz"));
        assert_eq!(archive_type_of("/x/m.zip"), Some("zip"));
        assert_eq!(archive_type_of("/x/m"), None);
    }
}
