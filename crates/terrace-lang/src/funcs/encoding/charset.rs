//! Character sets for `textencodebase64` and `textdecodebase64`, named as
//! IANA names them (Terraform looks names up with
//! `golang.org/x/text/encoding/ianaindex`, case-insensitively, and reports
//! the IANA preferred name in errors).
//!
//! Unicode encodings, US-ASCII, ISO-8859-1 and ISO-8859-9 are implemented
//! here; the rest use `encoding_rs`'s WHATWG tables, with the difference
//! that x/text's tables leave the C1 control range undefined in the
//! single-byte sets (so `0x81` is not a windows-1252 character).
//! Terraform knows a few more sets (IBM code pages other than 866); those
//! are reported as unsupported here.

use encoding_rs::EncoderResult;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Charset {
    Utf8,
    Utf16 {
        big_endian: bool,
        bom: bool,
    },
    UsAscii,
    Latin1,
    Latin5,
    /// A WHATWG single-byte set whose C1 positions are undefined here.
    SingleByte(&'static encoding_rs::Encoding, &'static str),
    MultiByte(&'static encoding_rs::Encoding, &'static str),
}

/// Every supported set: its IANA preferred name (first) and aliases.
const NAMES: &[&[&str]] = &[
    &["UTF-8", "csUTF8"],
    &["UTF-16BE", "csUTF16BE"],
    &["UTF-16LE", "csUTF16LE"],
    &["UTF-16", "csUTF16"],
    &[
        "US-ASCII",
        "iso-ir-6",
        "ANSI_X3.4-1968",
        "ANSI_X3.4-1986",
        "ISO_646.irv:1991",
        "ISO646-US",
        "us",
        "IBM367",
        "cp367",
        "csASCII",
    ],
    &[
        "ISO_8859-1:1987",
        "iso-ir-100",
        "ISO_8859-1",
        "ISO-8859-1",
        "latin1",
        "l1",
        "IBM819",
        "CP819",
        "csISOLatin1",
    ],
    &[
        "ISO_8859-2:1987",
        "iso-ir-101",
        "ISO_8859-2",
        "ISO-8859-2",
        "latin2",
        "l2",
        "csISOLatin2",
    ],
    &[
        "ISO_8859-3:1988",
        "iso-ir-109",
        "ISO_8859-3",
        "ISO-8859-3",
        "latin3",
        "l3",
        "csISOLatin3",
    ],
    &[
        "ISO_8859-4:1988",
        "iso-ir-110",
        "ISO_8859-4",
        "ISO-8859-4",
        "latin4",
        "l4",
        "csISOLatin4",
    ],
    &[
        "ISO_8859-5:1988",
        "iso-ir-144",
        "ISO_8859-5",
        "ISO-8859-5",
        "cyrillic",
        "csISOLatinCyrillic",
    ],
    &[
        "ISO_8859-6:1987",
        "iso-ir-127",
        "ISO_8859-6",
        "ISO-8859-6",
        "ECMA-114",
        "ASMO-708",
        "arabic",
        "csISOLatinArabic",
    ],
    &[
        "ISO_8859-7:1987",
        "iso-ir-126",
        "ISO_8859-7",
        "ISO-8859-7",
        "ELOT_928",
        "ECMA-118",
        "greek",
        "greek8",
        "csISOLatinGreek",
    ],
    &[
        "ISO_8859-8:1988",
        "iso-ir-138",
        "ISO_8859-8",
        "ISO-8859-8",
        "hebrew",
        "csISOLatinHebrew",
    ],
    &[
        "ISO_8859-9:1989",
        "iso-ir-148",
        "ISO_8859-9",
        "ISO-8859-9",
        "latin5",
        "l5",
        "csISOLatin5",
    ],
    &[
        "ISO-8859-10",
        "iso-ir-157",
        "l6",
        "ISO_8859-10:1992",
        "csISOLatin6",
        "latin6",
    ],
    &["ISO-8859-13", "csISO885913"],
    &[
        "ISO-8859-14",
        "iso-ir-199",
        "ISO_8859-14:1998",
        "ISO_8859-14",
        "latin8",
        "iso-celtic",
        "l8",
        "csISO885914",
    ],
    &["ISO-8859-15", "ISO_8859-15", "Latin-9", "csISO885915"],
    &[
        "ISO-8859-16",
        "iso-ir-226",
        "ISO_8859-16:2001",
        "ISO_8859-16",
        "latin10",
        "l10",
        "csISO885916",
    ],
    &["windows-874", "cswindows874"],
    &["windows-1250", "cswindows1250"],
    &["windows-1251", "cswindows1251"],
    &["windows-1252", "cswindows1252"],
    &["windows-1253", "cswindows1253"],
    &["windows-1254", "cswindows1254"],
    &["windows-1255", "cswindows1255"],
    &["windows-1256", "cswindows1256"],
    &["windows-1257", "cswindows1257"],
    &["windows-1258", "cswindows1258"],
    &["KOI8-R", "csKOI8R"],
    &["KOI8-U", "csKOI8U"],
    &["macintosh", "mac", "csMacintosh"],
    &["IBM866", "cp866", "866", "csIBM866"],
    &["Shift_JIS", "MS_Kanji", "csShiftJIS"],
    &[
        "EUC-JP",
        "Extended_UNIX_Code_Packed_Format_for_Japanese",
        "csEUCPkdFmtJapanese",
    ],
    &["ISO-2022-JP", "csISO2022JP"],
    &["EUC-KR", "csEUCKR"],
    &["GBK", "CP936", "MS936", "windows-936", "csGBK"],
    &["GB18030", "csGB18030"],
    &["Big5", "csBig5"],
];

fn charset_for(preferred: &'static str) -> Option<Charset> {
    use encoding_rs as e;
    let single = |encoding| Some(Charset::SingleByte(encoding, preferred));
    let multi = |encoding| Some(Charset::MultiByte(encoding, preferred));
    match preferred {
        "UTF-8" => Some(Charset::Utf8),
        "UTF-16BE" => Some(Charset::Utf16 {
            big_endian: true,
            bom: false,
        }),
        "UTF-16LE" => Some(Charset::Utf16 {
            big_endian: false,
            bom: false,
        }),
        "UTF-16" => Some(Charset::Utf16 {
            big_endian: true,
            bom: true,
        }),
        "US-ASCII" => Some(Charset::UsAscii),
        "ISO_8859-1:1987" => Some(Charset::Latin1),
        "ISO_8859-9:1989" => Some(Charset::Latin5),
        "ISO_8859-2:1987" => single(e::ISO_8859_2),
        "ISO_8859-3:1988" => single(e::ISO_8859_3),
        "ISO_8859-4:1988" => single(e::ISO_8859_4),
        "ISO_8859-5:1988" => single(e::ISO_8859_5),
        "ISO_8859-6:1987" => single(e::ISO_8859_6),
        "ISO_8859-7:1987" => single(e::ISO_8859_7),
        "ISO_8859-8:1988" => single(e::ISO_8859_8),
        "ISO-8859-10" => single(e::ISO_8859_10),
        "ISO-8859-13" => single(e::ISO_8859_13),
        "ISO-8859-14" => single(e::ISO_8859_14),
        "ISO-8859-15" => single(e::ISO_8859_15),
        "ISO-8859-16" => single(e::ISO_8859_16),
        "windows-874" => single(e::WINDOWS_874),
        "windows-1250" => single(e::WINDOWS_1250),
        "windows-1251" => single(e::WINDOWS_1251),
        "windows-1252" => single(e::WINDOWS_1252),
        "windows-1253" => single(e::WINDOWS_1253),
        "windows-1254" => single(e::WINDOWS_1254),
        "windows-1255" => single(e::WINDOWS_1255),
        "windows-1256" => single(e::WINDOWS_1256),
        "windows-1257" => single(e::WINDOWS_1257),
        "windows-1258" => single(e::WINDOWS_1258),
        "KOI8-R" => single(e::KOI8_R),
        "KOI8-U" => single(e::KOI8_U),
        "macintosh" => single(e::MACINTOSH),
        "IBM866" => single(e::IBM866),
        "Shift_JIS" => multi(e::SHIFT_JIS),
        "EUC-JP" => multi(e::EUC_JP),
        "ISO-2022-JP" => multi(e::ISO_2022_JP),
        "EUC-KR" => multi(e::EUC_KR),
        "GBK" => multi(e::GBK),
        "GB18030" => multi(e::GB18030),
        "Big5" => multi(e::BIG5),
        _ => None,
    }
}

/// The set an IANA name or alias stands for, ignoring case.
pub(super) fn lookup(name: &str) -> Option<Charset> {
    NAMES
        .iter()
        .find(|names| names.iter().any(|n| n.eq_ignore_ascii_case(name)))
        .and_then(|names| charset_for(names[0]))
}

fn is_c1(c: char) -> bool {
    ('\u{80}'..='\u{9f}').contains(&c)
}

/// ISO-8859-9 differs from ISO-8859-1 in six positions.
const LATIN5_DIFFERENCES: [(u8, char); 6] = [
    (0xD0, 'Ğ'),
    (0xDD, 'İ'),
    (0xDE, 'Ş'),
    (0xF0, 'ğ'),
    (0xFD, 'ı'),
    (0xFE, 'ş'),
];

fn encode_with(encoding: &'static encoding_rs::Encoding, text: &str) -> Option<Vec<u8>> {
    let mut encoder = encoding.new_encoder();
    let capacity = encoder.max_buffer_length_from_utf8_without_replacement(text.len())?;
    let mut out = Vec::with_capacity(capacity);
    let (result, _) = encoder.encode_from_utf8_to_vec_without_replacement(text, &mut out, true);
    match result {
        EncoderResult::InputEmpty => Some(out),
        _ => None,
    }
}

impl Charset {
    /// The IANA preferred name, as Terraform's messages show it.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Charset::Utf8 => "UTF-8",
            Charset::Utf16 {
                big_endian: true,
                bom: false,
            } => "UTF-16BE",
            Charset::Utf16 {
                big_endian: false, ..
            } => "UTF-16LE",
            Charset::Utf16 { .. } => "UTF-16",
            Charset::UsAscii => "US-ASCII",
            Charset::Latin1 => "ISO_8859-1:1987",
            Charset::Latin5 => "ISO_8859-9:1989",
            Charset::SingleByte(_, name) | Charset::MultiByte(_, name) => name,
        }
    }

    /// The text in this set; `None` when some character has no encoding.
    pub(super) fn encode(&self, text: &str) -> Option<Vec<u8>> {
        match self {
            Charset::Utf8 => Some(text.as_bytes().to_vec()),
            Charset::Utf16 { big_endian, bom } => {
                let mut out = Vec::with_capacity(text.len() * 2 + 2);
                let mut push = |unit: u16| {
                    let bytes = if *big_endian {
                        unit.to_be_bytes()
                    } else {
                        unit.to_le_bytes()
                    };
                    out.extend_from_slice(&bytes);
                };
                if *bom {
                    push(0xFEFF);
                }
                for unit in text.encode_utf16() {
                    push(unit);
                }
                Some(out)
            }
            Charset::UsAscii => text.is_ascii().then(|| text.as_bytes().to_vec()),
            Charset::Latin1 => text
                .chars()
                .map(|c| u8::try_from(u32::from(c)).ok())
                .collect(),
            Charset::Latin5 => text
                .chars()
                .map(|c| {
                    if let Some(&(byte, _)) = LATIN5_DIFFERENCES.iter().find(|(_, d)| *d == c) {
                        return Some(byte);
                    }
                    let byte = u8::try_from(u32::from(c)).ok()?;
                    (!LATIN5_DIFFERENCES.iter().any(|(b, _)| *b == byte)).then_some(byte)
                })
                .collect(),
            Charset::SingleByte(encoding, _) => {
                if text.chars().any(is_c1) {
                    return None;
                }
                encode_with(encoding, text)
            }
            Charset::MultiByte(encoding, _) => {
                // WHATWG maps these to ASCII bytes for Japanese sets; x/text
                // has no encoding for them.
                let japanese = [encoding_rs::SHIFT_JIS, encoding_rs::EUC_JP].contains(encoding);
                if japanese && text.chars().any(|c| c == '\u{a5}' || c == '\u{203e}') {
                    return None;
                }
                encode_with(encoding, text)
            }
        }
    }

    /// The bytes read as text in this set; `None` when they are not valid.
    pub(super) fn decode(&self, bytes: &[u8]) -> Option<String> {
        match self {
            Charset::Utf8 => String::from_utf8(bytes.to_vec()).ok(),
            Charset::Utf16 { big_endian, bom } => {
                if !bytes.len().is_multiple_of(2) {
                    return None;
                }
                let mut big_endian = *big_endian;
                let mut data = bytes;
                if *bom && data.len() >= 2 {
                    match (data[0], data[1]) {
                        (0xFE, 0xFF) => {
                            big_endian = true;
                            data = &data[2..];
                        }
                        (0xFF, 0xFE) => {
                            big_endian = false;
                            data = &data[2..];
                        }
                        _ => {}
                    }
                }
                let units = data.chunks(2).map(|pair| {
                    let pair = [pair[0], pair[1]];
                    if big_endian {
                        u16::from_be_bytes(pair)
                    } else {
                        u16::from_le_bytes(pair)
                    }
                });
                char::decode_utf16(units)
                    .collect::<Result<String, _>>()
                    .ok()
            }
            Charset::UsAscii => bytes
                .is_ascii()
                .then(|| String::from_utf8_lossy(bytes).into_owned()),
            Charset::Latin1 => Some(bytes.iter().map(|&b| char::from(b)).collect()),
            Charset::Latin5 => Some(
                bytes
                    .iter()
                    .map(|&b| {
                        LATIN5_DIFFERENCES
                            .iter()
                            .find(|(d, _)| *d == b)
                            .map_or(char::from(b), |(_, c)| *c)
                    })
                    .collect(),
            ),
            Charset::SingleByte(encoding, _) => encoding
                .decode_without_bom_handling_and_without_replacement(bytes)
                .filter(|text| !text.chars().any(is_c1))
                .map(|text| text.into_owned()),
            Charset::MultiByte(encoding, _) => encoding
                .decode_without_bom_handling_and_without_replacement(bytes)
                .map(|text| text.into_owned()),
        }
    }
}
