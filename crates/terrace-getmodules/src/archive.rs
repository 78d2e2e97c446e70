//! Unpacking downloaded module packages as go-getter's decompressors do
//! when the destination is a directory: zip, tar, and gzip-compressed tar.
//! Entries with a `..` path element are refused, links in tar archives are
//! skipped (go-getter ignores them to prevent traversal), files keep their
//! archived permission bits, directories are made 0755 and then given
//! their archived modes; an archive with no file at all is an error. Error
//! texts are Go's (`gzip: invalid header`, `archive/tar: invalid header`,
//! `zip: not a valid zip file`).

use crate::fsutil::path_error;
use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
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
/// Archives are read as streams and every file is copied in bounded
/// chunks, so memory use does not grow with what an archive expands to.
/// Like go-getter as Terraform configures it, there is no limit on the
/// expanded size.
pub fn decompress_into_dir(kind: &str, src: &Path, dst: &Path) -> Result<(), String> {
    let open = || -> Result<BufReader<File>, String> {
        File::open(src)
            .map(BufReader::new)
            .map_err(|e| path_error("open", src, &e))
    };
    match kind {
        "zip" => unzip(src, dst),
        "tar.gz" | "tgz" => {
            let mut gz = GzipReader::new(open()?)?;
            untar(&mut gz, dst, src)?;
            // Go's gzip reader checks the trailer when the stream ends;
            // reading to the end makes a bad checksum an error here too.
            std::io::copy(&mut gz, &mut std::io::sink()).map_err(|e| read_error(&e))?;
            Ok(())
        }
        "tar" => untar(&mut open()?, dst, src),
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

fn set_mode(path: &Path, mode: u32) -> Result<(), String> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o7777))
        .map_err(|e| path_error("chmod", path, &e))
}

fn create_file(path: &Path) -> Result<File, String> {
    File::create(path).map_err(|e| path_error("open", path, &e))
}

/// The text of a read failure: errors this module raises carry Go's text
/// as their message; others are the OS's.
fn read_error(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        return UNEXPECTED_EOF.to_string();
    }
    e.to_string()
}

const UNEXPECTED_EOF: &str = "unexpected EOF";

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
        let mut file = create_file(&path)?;
        archive.copy_entry(entry, &mut file).map_err(|e| e.0)?;
        drop(file);
        set_mode(&path, entry.permissions())?;
    }
    Ok(())
}

/// A gzip stream's content (one member, as module archives are), inflated
/// as it is read, with the trailer's CRC and size checked at its end as
/// Go's reader checks them.
struct GzipReader<R: BufRead> {
    inner: R,
    state: Box<InflateState>,
    out: Vec<u8>,
    out_start: usize,
    out_end: usize,
    crc: u32,
    size: u32,
    /// Deflate bytes consumed, for Go's "corrupt input" offset (counted
    /// from the start of the deflate stream, after the gzip header).
    consumed: u64,
    finished: bool,
}

fn io_error(message: &str) -> std::io::Error {
    if message == UNEXPECTED_EOF {
        return std::io::Error::new(std::io::ErrorKind::UnexpectedEof, message);
    }
    std::io::Error::other(message.to_string())
}

impl<R: BufRead> GzipReader<R> {
    fn new(mut inner: R) -> Result<GzipReader<R>, String> {
        const INVALID: &str = "gzip: invalid header";
        let mut header = [0u8; 10];
        let got = read_up_to(&mut inner, &mut header).map_err(|e| read_error(&e))?;
        if got < header.len() {
            return Err(if got == 0 { "EOF" } else { UNEXPECTED_EOF }.into());
        }
        if header[0] != 0x1f || header[1] != 0x8b || header[2] != 8 {
            return Err(INVALID.into());
        }
        let flags = header[3];
        let skip = |inner: &mut R, n: usize| -> Result<(), String> {
            let mut buf = vec![0u8; n];
            inner.read_exact(&mut buf).map_err(|e| read_error(&e))
        };
        if flags & 0x04 != 0 {
            let mut xlen = [0u8; 2];
            inner.read_exact(&mut xlen).map_err(|e| read_error(&e))?;
            skip(&mut inner, usize::from(u16::from_le_bytes(xlen)))?;
        }
        for bit in [0x08u8, 0x10] {
            if flags & bit != 0 {
                // A zero-terminated name or comment.
                let mut text = Vec::new();
                inner.read_until(0, &mut text).map_err(|e| read_error(&e))?;
                if text.last() != Some(&0) {
                    return Err(UNEXPECTED_EOF.into());
                }
            }
        }
        if flags & 0x02 != 0 {
            skip(&mut inner, 2)?;
        }
        Ok(GzipReader {
            inner,
            state: InflateState::new_boxed(DataFormat::Raw),
            out: vec![0u8; CHUNK],
            out_start: 0,
            out_end: 0,
            crc: 0,
            size: 0,
            consumed: 0,
            finished: false,
        })
    }

    /// Inflates the next piece into `out`; false at the end of the stream.
    fn fill(&mut self) -> std::io::Result<bool> {
        while !self.finished {
            let input = self.inner.fill_buf()?;
            let at_eof = input.is_empty();
            let flush = if at_eof {
                MZFlush::Finish
            } else {
                MZFlush::None
            };
            let res = inflate(&mut self.state, input, &mut self.out, flush);
            self.inner.consume(res.bytes_consumed);
            self.consumed += res.bytes_consumed as u64;
            let produced = &self.out[..res.bytes_written];
            self.crc = terrace_value::crc32::update_ieee(self.crc, produced);
            self.size = self.size.wrapping_add(res.bytes_written as u32);
            match res.status {
                Ok(MZStatus::StreamEnd) => {
                    self.finished = true;
                    self.check_trailer()?;
                }
                Ok(_) => {}
                Err(MZError::Buf) if res.bytes_written > 0 || res.bytes_consumed > 0 => {}
                Err(MZError::Buf) if at_eof => return Err(io_error(UNEXPECTED_EOF)),
                Err(MZError::Buf) => {}
                Err(_) => {
                    return Err(io_error(&format!(
                        "flate: corrupt input before offset {}",
                        self.consumed
                    )))
                }
            }
            if at_eof && !self.finished && res.bytes_written == 0 {
                return Err(io_error(UNEXPECTED_EOF));
            }
            if res.bytes_written > 0 {
                self.out_start = 0;
                self.out_end = res.bytes_written;
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn check_trailer(&mut self) -> std::io::Result<()> {
        let mut trailer = [0u8; 8];
        if read_up_to(&mut self.inner, &mut trailer)? < trailer.len() {
            return Err(io_error(UNEXPECTED_EOF));
        }
        let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        if crc != self.crc || size != self.size {
            return Err(io_error("gzip: invalid checksum"));
        }
        Ok(())
    }
}

impl<R: BufRead> Read for GzipReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.out_start == self.out_end && !self.fill()? {
            return Ok(0);
        }
        let n = buf.len().min(self.out_end - self.out_start);
        buf[..n].copy_from_slice(&self.out[self.out_start..self.out_start + n]);
        self.out_start += n;
        Ok(n)
    }
}

/// Reads until `buf` is full or the input ends; how much was read.
fn read_up_to(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The size of the copies between an archive and a file.
const CHUNK: usize = 64 * 1024;

/// Go's bound on the PAX and GNU metadata entries it reads into memory.
const MAX_SPECIAL_FILE_SIZE: u64 = 1 << 20;

const INVALID_TAR_HEADER: &str = "archive/tar: invalid header";

fn octal(field: &[u8]) -> Result<u64, String> {
    if field.first().is_some_and(|b| b & 0x80 != 0) {
        // GNU base-256 for large values.
        let mut v: u64 = u64::from(field[0] & 0x7f);
        for b in &field[1..] {
            v = v.checked_shl(8).ok_or(INVALID_TAR_HEADER)? | u64::from(*b);
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
    u64::from_str_radix(text, 8).map_err(|_| INVALID_TAR_HEADER.to_string())
}

fn cstr(field: &[u8]) -> String {
    let end = field.iter().position(|b| *b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

fn pax_records(body: &[u8]) -> Result<Vec<(String, String)>, String> {
    let bad = || INVALID_TAR_HEADER.to_string();
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

/// Copies exactly `len` bytes from `r` to `w` in bounded chunks.
fn copy_exact(r: &mut dyn Read, w: &mut dyn Write, len: u64, path: &Path) -> Result<(), String> {
    let mut buf = vec![0u8; CHUNK];
    let mut left = len;
    while left > 0 {
        let want = usize::try_from(left.min(CHUNK as u64)).unwrap_or(CHUNK);
        let got = read_up_to(r, &mut buf[..want]).map_err(|e| read_error(&e))?;
        if got == 0 {
            return Err(UNEXPECTED_EOF.into());
        }
        w.write_all(&buf[..got])
            .map_err(|e| path_error("write", path, &e))?;
        left -= got as u64;
    }
    Ok(())
}

/// Reads and drops `len` bytes.
fn skip_exact(r: &mut dyn Read, len: u64) -> Result<(), String> {
    copy_exact(r, &mut std::io::sink(), len, Path::new(""))
}

/// Unpacks a tar stream as go-getter does, entry by entry, the way Go's
/// `archive/tar` reader returns them (PAX and GNU metadata entries applied
/// to the entry that follows).
fn untar(r: &mut dyn Read, dst: &Path, src: &Path) -> Result<(), String> {
    const BLOCK: u64 = 512;
    let mut long_name: Option<String> = None;
    let mut pax_path: Option<String> = None;
    let mut pax_size: Option<u64> = None;
    let mut wrote_file = false;
    let mut dirs: Vec<(PathBuf, u32)> = Vec::new();
    loop {
        let mut h = [0u8; BLOCK as usize];
        match read_up_to(r, &mut h).map_err(|e| read_error(&e))? {
            0 => break,
            n if n < h.len() => return Err(UNEXPECTED_EOF.into()),
            _ => {}
        }
        if h.iter().all(|b| *b == 0) {
            break;
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
            return Err(INVALID_TAR_HEADER.into());
        }
        let kind = h[156];
        let mut size = octal(&h[124..136])?;
        if let Some(s) = pax_size.take() {
            size = s;
        }
        let padding = size.div_ceil(BLOCK) * BLOCK - size;
        if matches!(kind, b'L' | b'K' | b'x' | b'g') {
            if size > MAX_SPECIAL_FILE_SIZE {
                return Err("archive/tar: header field too long".into());
            }
            let mut body = Vec::new();
            copy_exact(r, &mut body, size, src)?;
            skip_exact(r, padding)?;
            match kind {
                b'L' => long_name = Some(cstr(&body)),
                b'x' => {
                    for (k, v) in pax_records(&body)? {
                        match k.as_str() {
                            "path" => pax_path = Some(v),
                            "size" => {
                                pax_size =
                                    Some(v.parse().map_err(|_| INVALID_TAR_HEADER.to_string())?)
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            continue;
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
        // Links could point outside the destination; go-getter skips them.
        if kind == b'1' || kind == b'2' {
            skip_exact(r, size + padding)?;
            continue;
        }
        if contains_dot_dot(&name) {
            return Err(format!("entry contains '..': {name}"));
        }
        let path = entry_path(dst, &name);
        if kind == b'5' || name.ends_with('/') {
            skip_exact(r, size + padding)?;
            mkdir_all(&path)?;
            dirs.push((path, mode));
            continue;
        }
        if let Some(parent) = path.parent() {
            mkdir_all(parent)?;
        }
        let mut file = create_file(&path)?;
        copy_exact(r, &mut file, size, &path)?;
        drop(file);
        skip_exact(r, padding)?;
        set_mode(&path, mode)?;
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
        let src = dir.write_mode("m.tgz", gzip(&archive), 0o644);
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
        let src = dir.write_mode("a.tar", tar(&[("../evil", b'0', 0o644, b"x")]), 0o644);
        assert_eq!(
            decompress_into_dir("tar", &src, &dir.path().join("o1")),
            Err("entry contains '..': ../evil".to_string())
        );
        let src = dir.write_mode("b.tar", tar(&[("d/", b'5', 0o755, b"")]), 0o644);
        assert_eq!(
            decompress_into_dir("tar", &src, &dir.path().join("o2")),
            Err(format!("empty archive: {}", src.display()))
        );
        let src = dir.write_mode("c.tgz", b"not gzip at all", 0o644);
        assert_eq!(
            decompress_into_dir("tgz", &src, &dir.path().join("o3")),
            Err("gzip: invalid header".to_string())
        );
        let mut bad_crc = gzip(&tar(&[("f", b'0', 0o644, b"x")]));
        let n = bad_crc.len();
        bad_crc[n - 8] ^= 0xff;
        let src = dir.write_mode("d.tgz", &bad_crc, 0o644);
        assert_eq!(
            decompress_into_dir("tgz", &src, &dir.path().join("o4")),
            Err("gzip: invalid checksum".to_string())
        );
        let mut corrupt = tar(&[("f", b'0', 0o644, b"x")]);
        corrupt[0] = b'g';
        let src = dir.write_mode("e.tar", &corrupt, 0o644);
        assert_eq!(
            decompress_into_dir("tar", &src, &dir.path().join("o5")),
            Err("archive/tar: invalid header".to_string())
        );
        let src = dir.write_mode("f.zip", b"PK\x03\x04 truncated", 0o644);
        assert_eq!(
            decompress_into_dir("zip", &src, &dir.path().join("o6")),
            Err("zip: not a valid zip file".to_string())
        );
    }

    #[test]
    fn unpacks_zip() {
        let dir = TempDir::new("unzip");
        let src = dir.write_mode(
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
