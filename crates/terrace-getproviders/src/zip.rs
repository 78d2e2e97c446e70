//! A streaming reader for the zip archives providers are packaged in: the
//! central directory (zip64 included), stored and deflated entries (the
//! only two methods provider packages use), CRC checks, and Go's
//! `archive/zip` error texts, which Terraform shows as they are ("zip: not
//! a valid zip file"). Entries are copied to any writer in bounded chunks,
//! so a 700 MB provider binary never sits in memory.
//!
//! Its own reader rather than the `zip` crate: the parts needed are small,
//! Go's error wording and its treatment of directory entries and
//! duplicates (which decide `h1:` hashes of archives) are easier to match
//! exactly, and only the inflater (`miniz_oxide`) is borrowed.

use crate::goerr::errno_text;
use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

const ERR_FORMAT: &str = "zip: not a valid zip file";
const ERR_ALGORITHM: &str = "zip: unsupported compression algorithm";
const ERR_CHECKSUM: &str = "zip: checksum error";
const ERR_UNEXPECTED_EOF: &str = "unexpected EOF";

const DIRECTORY_END_LEN: usize = 22;
const DIRECTORY_HEADER_LEN: usize = 46;
const FILE_HEADER_LEN: usize = 30;
const DIRECTORY64_LOC_LEN: u64 = 20;
const DIRECTORY64_END_LEN: usize = 56;

/// A zip problem, worded as Go's `archive/zip` (or the OS) would.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZipError(pub String);

impl std::fmt::Display for ZipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ZipError {}

impl From<io::Error> for ZipError {
    fn from(e: io::Error) -> ZipError {
        ZipError(errno_text(&e))
    }
}

fn format_err<T>() -> Result<T, ZipError> {
    Err(ZipError(ERR_FORMAT.into()))
}

/// One central-directory record.
#[derive(Clone, Debug)]
pub struct ZipEntry {
    /// The raw name bytes (zip names need not be UTF-8).
    pub name: Vec<u8>,
    creator_version: u16,
    flags: u16,
    method: u16,
    crc32: u32,
    compressed_size: u64,
    pub uncompressed_size: u64,
    header_offset: u64,
    external_attrs: u32,
}

impl ZipEntry {
    pub fn name_lossy(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }

    /// A directory entry: its name ends with a slash.
    pub fn is_dir(&self) -> bool {
        self.name.last() == Some(&b'/')
    }

    /// The permission bits Go's `FileHeader.Mode` derives from the creator
    /// system and external attributes (0 when the creator is unknown).
    pub fn permissions(&self) -> u32 {
        const UNIX: u16 = 3;
        const MACOSX: u16 = 19;
        const FAT: u16 = 0;
        const NTFS: u16 = 11;
        const VFAT: u16 = 14;
        match self.creator_version >> 8 {
            UNIX | MACOSX => (self.external_attrs >> 16) & 0o777,
            FAT | NTFS | VFAT => {
                let mut mode = if self.external_attrs & 0x10 != 0 {
                    0o777
                } else {
                    0o666
                };
                if self.external_attrs & 0x01 != 0 {
                    mode &= !0o222;
                }
                mode
            }
            _ => 0,
        }
    }

    fn has_data_descriptor(&self) -> bool {
        self.flags & 0x8 != 0
    }
}

/// An open archive and its entries, in central-directory order.
pub struct ZipArchive {
    file: File,
    size: u64,
    pub entries: Vec<ZipEntry>,
}

fn read_at(file: &mut File, offset: u64, buf: &mut [u8]) -> Result<(), ZipError> {
    file.seek(SeekFrom::Start(offset))?;
    match file.read_exact(buf) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            Err(ZipError(ERR_UNEXPECTED_EOF.into()))
        }
        Err(e) => Err(e.into()),
    }
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(a)
}

struct DirectoryEnd {
    records: u64,
    size: u64,
    offset: u64,
}

impl ZipArchive {
    pub fn open(path: &Path) -> Result<ZipArchive, ZipError> {
        let file =
            File::open(path).map_err(|e| ZipError(crate::goerr::path_error("open", path, &e)))?;
        let size = file.metadata()?.len();
        let mut archive = ZipArchive {
            file,
            size,
            entries: Vec::new(),
        };
        archive.read_directory()?;
        Ok(archive)
    }

    fn read_directory(&mut self) -> Result<(), ZipError> {
        let (end, base_offset) = self.read_directory_end()?;
        let start = base_offset
            .checked_add(end.offset)
            .ok_or_else(|| ZipError(ERR_FORMAT.into()))?;
        self.file.seek(SeekFrom::Start(start))?;
        let mut reader = io::BufReader::new(&mut self.file);
        let mut entries = Vec::new();
        // Like Go, read headers until one is malformed and only complain
        // if the count (modulo 65536) disagrees with the directory end.
        let stop = loop {
            match read_directory_header(&mut reader) {
                Ok(mut entry) => {
                    entry.header_offset = entry.header_offset.wrapping_add(base_offset);
                    entries.push(entry);
                }
                Err(e) => break e,
            }
        };
        if entries.len() as u16 != end.records as u16 {
            return Err(stop);
        }
        self.entries = entries;
        Ok(())
    }

    fn read_directory_end(&mut self) -> Result<(DirectoryEnd, u64), ZipError> {
        let mut found = None;
        for (i, want) in [1024u64, 65 * 1024].into_iter().enumerate() {
            let len = want.min(self.size);
            let mut buf = vec![0u8; len as usize];
            read_at(&mut self.file, self.size - len, &mut buf)?;
            if let Some(p) = find_signature(&buf) {
                found = Some((buf[p..].to_vec(), self.size - len + p as u64));
                break;
            }
            if i == 1 || len == self.size {
                return format_err();
            }
        }
        let (buf, mut end_offset) = match found {
            Some(f) => f,
            None => return format_err(),
        };
        let mut end = DirectoryEnd {
            records: u64::from(u16_at(&buf, 10)),
            size: u64::from(u32_at(&buf, 12)),
            offset: u64::from(u32_at(&buf, 16)),
        };
        let comment_len = usize::from(u16_at(&buf, 20));
        if comment_len > buf.len() - DIRECTORY_END_LEN {
            return Err(ZipError("zip: invalid comment length".into()));
        }
        if end.records == 0xffff || end.size == 0xffff || end.offset == 0xffff_ffff {
            if let Some(p) = self.find_directory64_end(end_offset)? {
                end_offset = p;
                let mut b = [0u8; DIRECTORY64_END_LEN];
                read_at(&mut self.file, p, &mut b)?;
                if u32_at(&b, 0) != 0x0606_4b50 {
                    return format_err();
                }
                end.records = u64_at(&b, 32);
                end.size = u64_at(&b, 40);
                end.offset = u64_at(&b, 48);
            }
        }
        let base = i128::from(end_offset) - i128::from(end.size) - i128::from(end.offset);
        let dir_start = base + i128::from(end.offset);
        if dir_start < 0 || dir_start >= i128::from(self.size) {
            return format_err();
        }
        let mut base_offset = u64::try_from(base).unwrap_or(0);
        if base_offset > 0 {
            // A wrong base offset in the directory end is common; prefer
            // zero when a directory header is found there.
            self.file.seek(SeekFrom::Start(end.offset))?;
            let mut r = io::BufReader::new(&mut self.file);
            if read_directory_header(&mut r).is_ok() {
                base_offset = 0;
            }
        }
        Ok((end, base_offset))
    }

    fn find_directory64_end(&mut self, end_offset: u64) -> Result<Option<u64>, ZipError> {
        let Some(loc) = end_offset.checked_sub(DIRECTORY64_LOC_LEN) else {
            return Ok(None);
        };
        let mut b = [0u8; DIRECTORY64_LOC_LEN as usize];
        read_at(&mut self.file, loc, &mut b)?;
        if u32_at(&b, 0) != 0x0706_4b50 || u32_at(&b, 4) != 0 || u32_at(&b, 16) != 1 {
            return Ok(None);
        }
        Ok(Some(u64_at(&b, 8)))
    }

    /// Copies the entry's uncompressed content to `out`, checking its size
    /// and CRC as Go's reader does. Directory entries have no content (and
    /// are malformed if they claim some).
    pub fn copy_entry(&mut self, entry: &ZipEntry, out: &mut dyn Write) -> Result<(), ZipError> {
        let mut header = [0u8; FILE_HEADER_LEN];
        read_at(&mut self.file, entry.header_offset, &mut header)?;
        if u32_at(&header, 0) != 0x0403_4b50 {
            return format_err();
        }
        if entry.is_dir() {
            return if entry.uncompressed_size != 0 {
                format_err()
            } else {
                Ok(())
            };
        }
        let body = entry.header_offset
            + FILE_HEADER_LEN as u64
            + u64::from(u16_at(&header, 26))
            + u64::from(u16_at(&header, 28));
        self.file.seek(SeekFrom::Start(body))?;
        let mut checked = CheckedWriter {
            out,
            crc: Crc32::new(),
            written: 0,
            limit: entry.uncompressed_size,
        };
        let mut compressed = (&mut self.file).take(entry.compressed_size);
        match entry.method {
            0 => copy_stored(&mut compressed, &mut checked)?,
            8 => copy_deflated(&mut compressed, &mut checked)?,
            _ => return Err(ZipError(ERR_ALGORITHM.into())),
        }
        if checked.written != entry.uncompressed_size {
            return Err(ZipError(ERR_UNEXPECTED_EOF.into()));
        }
        let crc = checked.crc.finish();
        if entry.has_data_descriptor() {
            let at = body + entry.compressed_size;
            let mut d = [0u8; 16];
            read_at(&mut self.file, at, &mut d[..4])?;
            let want = if u32_at(&d, 0) == 0x0807_4b50 {
                read_at(&mut self.file, at + 4, &mut d[4..8])?;
                u32_at(&d, 4)
            } else {
                u32_at(&d, 0)
            };
            if want != crc {
                return Err(ZipError(ERR_CHECKSUM.into()));
            }
        } else if entry.crc32 != 0 && entry.crc32 != crc {
            return Err(ZipError(ERR_CHECKSUM.into()));
        }
        Ok(())
    }
}

fn find_signature(b: &[u8]) -> Option<usize> {
    if b.len() < DIRECTORY_END_LEN {
        return None;
    }
    (0..=b.len() - DIRECTORY_END_LEN).rev().find(|&i| {
        b[i..i + 4] == [b'P', b'K', 5, 6] && {
            let n = usize::from(u16_at(b, i + DIRECTORY_END_LEN - 2));
            n + DIRECTORY_END_LEN + i <= b.len()
        }
    })
}

fn read_directory_header(r: &mut dyn Read) -> Result<ZipEntry, ZipError> {
    let mut b = [0u8; DIRECTORY_HEADER_LEN];
    read_full(r, &mut b)?;
    if u32_at(&b, 0) != 0x0201_4b50 {
        return format_err();
    }
    let name_len = usize::from(u16_at(&b, 28));
    let extra_len = usize::from(u16_at(&b, 30));
    let comment_len = usize::from(u16_at(&b, 32));
    let mut rest = vec![0u8; name_len + extra_len + comment_len];
    read_full(r, &mut rest)?;
    let mut entry = ZipEntry {
        name: rest[..name_len].to_vec(),
        creator_version: u16_at(&b, 4),
        flags: u16_at(&b, 8),
        method: u16_at(&b, 10),
        crc32: u32_at(&b, 16),
        compressed_size: u64::from(u32_at(&b, 20)),
        uncompressed_size: u64::from(u32_at(&b, 24)),
        header_offset: u64::from(u32_at(&b, 42)),
        external_attrs: u32_at(&b, 38),
    };
    let mut need_usize = entry.uncompressed_size == 0xffff_ffff;
    let mut need_csize = entry.compressed_size == 0xffff_ffff;
    let mut need_offset = entry.header_offset == 0xffff_ffff;
    let mut extra = &rest[name_len..name_len + extra_len];
    while extra.len() >= 4 {
        let tag = u16_at(extra, 0);
        let size = usize::from(u16_at(extra, 2));
        extra = &extra[4..];
        if extra.len() < size {
            break;
        }
        let mut field = &extra[..size];
        extra = &extra[size..];
        if tag != 0x0001 {
            continue;
        }
        for (need, slot) in [
            (&mut need_usize, &mut entry.uncompressed_size),
            (&mut need_csize, &mut entry.compressed_size),
            (&mut need_offset, &mut entry.header_offset),
        ] {
            if *need {
                *need = false;
                if field.len() < 8 {
                    return format_err();
                }
                *slot = u64_at(field, 0);
                field = &field[8..];
            }
        }
    }
    if need_csize || need_offset {
        return format_err();
    }
    Ok(entry)
}

fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> Result<(), ZipError> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) if filled == 0 => return Err(ZipError("EOF".into())),
            Ok(0) => return Err(ZipError(ERR_UNEXPECTED_EOF.into())),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

struct CheckedWriter<'a> {
    out: &'a mut dyn Write,
    crc: Crc32,
    written: u64,
    limit: u64,
}

impl CheckedWriter<'_> {
    fn put(&mut self, data: &[u8]) -> Result<(), ZipError> {
        self.written += data.len() as u64;
        if self.written > self.limit {
            return format_err();
        }
        self.crc.update(data);
        self.out.write_all(data)?;
        Ok(())
    }
}

const CHUNK: usize = 64 * 1024;

fn copy_stored(r: &mut dyn Read, w: &mut CheckedWriter<'_>) -> Result<(), ZipError> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => w.put(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
}

fn copy_deflated(r: &mut dyn Read, w: &mut CheckedWriter<'_>) -> Result<(), ZipError> {
    let mut state = InflateState::new_boxed(DataFormat::Raw);
    let mut input = vec![0u8; CHUNK];
    let mut output = vec![0u8; CHUNK];
    let (mut start, mut end) = (0usize, 0usize);
    let mut consumed_total = 0u64;
    let mut input_done = false;
    loop {
        if start == end && !input_done {
            start = 0;
            end = loop {
                match r.read(&mut input) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e.into()),
                }
            };
            input_done = end == 0;
        }
        let flush = if input_done {
            MZFlush::Finish
        } else {
            MZFlush::None
        };
        let res = inflate(&mut state, &input[start..end], &mut output, flush);
        start += res.bytes_consumed;
        consumed_total += res.bytes_consumed as u64;
        w.put(&output[..res.bytes_written])?;
        match res.status {
            Ok(MZStatus::StreamEnd) => return Ok(()),
            Ok(_) => {}
            Err(MZError::Buf) if res.bytes_written > 0 || res.bytes_consumed > 0 => {}
            Err(MZError::Buf) => {
                if input_done {
                    return Err(ZipError(ERR_UNEXPECTED_EOF.into()));
                }
            }
            Err(_) => {
                return Err(ZipError(format!(
                    "flate: corrupt input before offset {consumed_total}"
                )))
            }
        }
        if input_done && start == end && res.bytes_written == 0 {
            return Err(ZipError(ERR_UNEXPECTED_EOF.into()));
        }
    }
}

/// CRC-32 (IEEE), incrementally.
struct Crc32 {
    value: u32,
}

impl Crc32 {
    fn new() -> Crc32 {
        Crc32 { value: !0 }
    }

    fn table() -> &'static [u32; 256] {
        static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
        TABLE.get_or_init(|| {
            let mut t = [0u32; 256];
            for (i, slot) in t.iter_mut().enumerate() {
                let mut c = i as u32;
                for _ in 0..8 {
                    c = if c & 1 != 0 {
                        0xEDB8_8320 ^ (c >> 1)
                    } else {
                        c >> 1
                    };
                }
                *slot = c;
            }
            t
        })
    }

    fn update(&mut self, data: &[u8]) {
        let t = Crc32::table();
        for &b in data {
            self.value = t[((self.value ^ u32::from(b)) & 0xff) as usize] ^ (self.value >> 8);
        }
    }

    fn finish(&self) -> u32 {
        !self.value
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testutil::TempDir;

    /// A minimal zip writer for tests: stored entries, Unix creator.
    pub(crate) fn write_stored_zip(path: &Path, entries: &[(&str, &[u8], u32)]) {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data, mode) in entries {
            let offset = out.len() as u32;
            let mut crc = Crc32::new();
            crc.update(data);
            let crc = crc.finish();
            let n = name.len() as u16;
            let size = data.len() as u32;
            out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
            out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(data);
            central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            central.extend_from_slice(&[20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            central.extend_from_slice(&crc.to_le_bytes());
            central.extend_from_slice(&size.to_le_bytes());
            central.extend_from_slice(&size.to_le_bytes());
            central.extend_from_slice(&n.to_le_bytes());
            central.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
            central.extend_from_slice(&((mode | 0o100000) << 16).to_le_bytes());
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let dir_offset = out.len() as u32;
        let count = entries.len() as u16;
        out.extend_from_slice(&central);
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        out.extend_from_slice(&[0, 0, 0, 0]);
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&dir_offset.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        if let Err(e) = std::fs::write(path, out) {
            panic!("writing {}: {e}", path.display());
        }
    }

    fn read_all(path: &Path) -> Result<Vec<(String, Vec<u8>, u32)>, ZipError> {
        let mut z = ZipArchive::open(path)?;
        let entries = z.entries.clone();
        let mut out = Vec::new();
        for e in &entries {
            let mut data = Vec::new();
            z.copy_entry(e, &mut data)?;
            out.push((e.name_lossy(), data, e.permissions()));
        }
        Ok(out)
    }

    #[test]
    fn reads_deflated_archive_from_python() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/widget_2.0.0_linux_amd64.zip");
        let got = match read_all(&path) {
            Ok(g) => g,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            got,
            vec![
                (
                    "terraform-provider-widget_v2.0.0".to_string(),
                    b"#!/bin/sh\necho widget\n".to_vec(),
                    0o755
                ),
                ("docs/README.md".to_string(), b"readme\n".to_vec(), 0o644),
            ]
        );
    }

    #[test]
    fn reads_stored_archive() {
        let dir = TempDir::new("zip-stored");
        let path = dir.path().join("a.zip");
        write_stored_zip(&path, &[("a/b.txt", b"hello", 0o640), ("a/", b"", 0o755)]);
        let got = match read_all(&path) {
            Ok(g) => g,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(got[0], ("a/b.txt".to_string(), b"hello".to_vec(), 0o640));
        assert_eq!(got[1].0, "a/");
    }

    #[test]
    fn malformed_archives_give_go_errors() {
        let dir = TempDir::new("zip-bad");
        let good = match std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/widget_2.0.0_linux_amd64.zip"),
        ) {
            Ok(b) => b,
            Err(e) => panic!("{e}"),
        };
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            ("truncated", good[..100].to_vec(), ERR_FORMAT),
            ("empty", Vec::new(), ERR_FORMAT),
            (
                "text",
                b"this is not a zip file at all".to_vec(),
                ERR_FORMAT,
            ),
            (
                "corrupt-crc",
                {
                    let mut b = good.clone();
                    // The stored CRC of the first entry in its central record.
                    let cd = good.len()
                        - 22
                        - 2 * 46
                        - "terraform-provider-widget_v2.0.0".len()
                        - "docs/README.md".len();
                    b[cd + 16] ^= 0xff;
                    b
                },
                ERR_CHECKSUM,
            ),
            (
                "corrupt-data",
                {
                    let mut b = good.clone();
                    // Inside the first entry's deflated data.
                    let at = 30 + "terraform-provider-widget_v2.0.0".len() + 2;
                    b[at] ^= 0x55;
                    b
                },
                "",
            ),
        ];
        for (name, bytes, want) in cases {
            let path = dir.path().join(name);
            if let Err(e) = std::fs::write(&path, &bytes) {
                panic!("{e}");
            }
            match read_all(&path) {
                Ok(_) => panic!("{name}: expected an error"),
                Err(e) if want.is_empty() => assert!(
                    e.0.starts_with("flate: corrupt input")
                        || e.0 == ERR_CHECKSUM
                        || e.0 == ERR_UNEXPECTED_EOF
                        || e.0 == ERR_FORMAT,
                    "{name}: {e}"
                ),
                Err(e) => assert_eq!(e.0, want, "{name}"),
            }
        }
        match ZipArchive::open(&dir.path().join("missing.zip")) {
            Ok(_) => panic!("expected an error"),
            Err(e) => assert!(
                e.0.starts_with("open ") && e.0.ends_with(": no such file or directory"),
                "{e}"
            ),
        }
    }

    #[test]
    fn crc_matches_go() {
        let mut c = Crc32::new();
        c.update(b"1234");
        c.update(b"56789");
        assert_eq!(c.finish(), 0xcbf4_3926);
    }
}
