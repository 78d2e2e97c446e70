//! The MessagePack encoding of cty values (go-cty's `cty/msgpack`): the
//! wire format of `DynamicValue` in the provider plugin protocol.
//!
//! Objects are maps holding every attribute (nulls included) in name order;
//! lists, sets and tuples are arrays; numbers are the smallest integer
//! encoding when they are integers within int64, else a float64 when one
//! holds them exactly, else their decimal text; unknown values are
//! extension values (type 0, one zero byte, or type 12 carrying the
//! refinements as a small map); values in `Dynamic` slots are
//! `[type JSON as bin, value]` pairs.
//!
//! The reader and writer are our own rather than the `rmp` crate's: the
//! format is small, and matching Go exactly means reproducing the decoding
//! leniencies of `vmihailenco/msgpack` that cty relies on (nil read as a
//! zero, bin accepted as str, ext headers skipped before maps) and cty's
//! own quirks, which a general library would not have.

pub use crate::json::CodecError;
use crate::json::{
    build_list, build_map, build_object, build_set, conform_value, go_lossy_utf8, Path, Step,
};
use crate::number::Number;
use crate::types::{ObjectType, Type};
use crate::value::{Repr, Value};
use std::cmp::Ordering;

const NIL: u8 = 0xc0;
const FALSE: u8 = 0xc2;
const TRUE: u8 = 0xc3;
const BIN8: u8 = 0xc4;
const BIN16: u8 = 0xc5;
const BIN32: u8 = 0xc6;
const EXT8: u8 = 0xc7;
const EXT16: u8 = 0xc8;
const EXT32: u8 = 0xc9;
const FLOAT32: u8 = 0xca;
const FLOAT64: u8 = 0xcb;
const UINT8: u8 = 0xcc;
const UINT16: u8 = 0xcd;
const UINT32: u8 = 0xce;
const UINT64: u8 = 0xcf;
const INT8: u8 = 0xd0;
const INT16: u8 = 0xd1;
const INT32: u8 = 0xd2;
const INT64: u8 = 0xd3;
const FIXEXT1: u8 = 0xd4;
const FIXEXT2: u8 = 0xd5;
const FIXEXT4: u8 = 0xd6;
const FIXEXT8: u8 = 0xd7;
const FIXEXT16: u8 = 0xd8;
const STR8: u8 = 0xd9;
const STR16: u8 = 0xda;
const STR32: u8 = 0xdb;
const ARRAY16: u8 = 0xdc;
const ARRAY32: u8 = 0xdd;
const MAP16: u8 = 0xde;
const MAP32: u8 = 0xdf;

/// The extension type of an unknown value that carries refinements.
const REFINED_UNKNOWN_EXT: i8 = 0x0c;
/// A wholly unknown value: a one-byte extension of type 0 (one byte shorter
/// than a zero-length extension).
const UNKNOWN_BYTES: [u8; 3] = [FIXEXT1, 0, 0];

/// Refinement map keys.
const KEY_NULLNESS: i64 = 1;
const KEY_STRING_PREFIX: i64 = 2;
const KEY_NUMBER_MIN: i64 = 3;
const KEY_NUMBER_MAX: i64 = 4;
const KEY_LENGTH_MIN: i64 = 5;
const KEY_LENGTH_MAX: i64 = 6;

/// cty truncates longer string-prefix refinements so the refinement stays
/// well under the decoder's 1 KiB limit.
const MAX_PREFIX_LENGTH: usize = 256;
const MAX_REFINEMENT_LENGTH: usize = 1024;

fn is_fixed_num(c: u8) -> bool {
    c <= 0x7f || c >= 0xe0
}

fn is_ext(c: u8) -> bool {
    (FIXEXT1..=FIXEXT16).contains(&c) || (EXT8..=EXT32).contains(&c)
}

// ----- writing -----

fn write_uint(out: &mut Vec<u8>, n: u64) {
    if n <= 0x7f {
        out.push(n as u8);
    } else if n <= u64::from(u8::MAX) {
        out.extend_from_slice(&[UINT8, n as u8]);
    } else if n <= u64::from(u16::MAX) {
        out.push(UINT16);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else if n <= u64::from(u32::MAX) {
        out.push(UINT32);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    } else {
        out.push(UINT64);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

/// The most compact encoding of an integer, as msgpack's `EncodeInt`.
fn write_int(out: &mut Vec<u8>, n: i64) {
    if n >= 0 {
        write_uint(out, n as u64);
    } else if n >= -32 {
        out.push(n as u8);
    } else if n >= i64::from(i8::MIN) {
        out.extend_from_slice(&[INT8, n as u8]);
    } else if n >= i64::from(i16::MIN) {
        out.push(INT16);
        out.extend_from_slice(&(n as i16).to_be_bytes());
    } else if n >= i64::from(i32::MIN) {
        out.push(INT32);
        out.extend_from_slice(&(n as i32).to_be_bytes());
    } else {
        out.push(INT64);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

fn write_f64(out: &mut Vec<u8>, f: f64) {
    out.push(FLOAT64);
    out.extend_from_slice(&f.to_bits().to_be_bytes());
}

/// A length header: the one-byte "fix" form below `fix_limit` when the
/// kind has one, else the 8-, 16- or 32-bit form (str and bin only have an
/// 8-bit form).
fn write_len(
    out: &mut Vec<u8>,
    n: usize,
    fix: Option<(u8, usize)>,
    c8: Option<u8>,
    c16: u8,
    c32: u8,
) {
    match (fix, c8) {
        (Some((base, limit)), _) if n < limit => out.push(base | n as u8),
        (_, Some(c)) if n <= usize::from(u8::MAX) => out.extend_from_slice(&[c, n as u8]),
        _ if n <= usize::from(u16::MAX) => {
            out.push(c16);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        _ => {
            out.push(c32);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
    }
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    write_len(out, s.len(), Some((0xa0, 32)), Some(STR8), STR16, STR32);
    out.extend_from_slice(s.as_bytes());
}

fn write_bin(out: &mut Vec<u8>, b: &[u8]) {
    write_len(out, b.len(), None, Some(BIN8), BIN16, BIN32);
    out.extend_from_slice(b);
}

fn write_array_len(out: &mut Vec<u8>, n: usize) {
    write_len(out, n, Some((0x90, 16)), None, ARRAY16, ARRAY32);
}

fn write_map_len(out: &mut Vec<u8>, n: usize) {
    write_len(out, n, Some((0x80, 16)), None, MAP16, MAP32);
}

fn write_ext_header(out: &mut Vec<u8>, ext_type: i8, len: usize) {
    match len {
        1 => out.push(FIXEXT1),
        2 => out.push(FIXEXT2),
        4 => out.push(FIXEXT4),
        8 => out.push(FIXEXT8),
        16 => out.push(FIXEXT16),
        _ => write_len(out, len, None, Some(EXT8), EXT16, EXT32),
    }
    out.push(ext_type as u8);
}

// ----- encoding -----

/// cty `msgpack.Marshal`: the bytes of `value` for a slot of type `ty`
/// (which may contain `Dynamic`). Unknown values, refinements included, are
/// encoded; marked values are an error. A value whose type does not
/// conform to `ty` is converted first.
pub fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>, CodecError> {
    let value = conform_value(value, ty)?;
    let mut out = Vec::new();
    marshal(&value, ty, Path::ROOT, &mut out)?;
    Ok(out)
}

// Compound values are written by their own functions to keep the
// recursing frame small.
fn marshal(val: &Value, ty: &Type, path: Path<'_>, out: &mut Vec<u8>) -> Result<(), CodecError> {
    if val.is_marked() {
        return Err(path.error("value has marks, so it cannot be serialized"));
    }
    if ty.is_dynamic() && !val.ty.is_dynamic() {
        write_array_len(out, 2);
        write_bin(out, crate::typejson::type_to_json(&val.ty).as_bytes());
        return marshal(val, &val.ty, path, out);
    }
    match (&val.repr, ty) {
        (Repr::Unknown(_), _) => write_unknown(val, out),
        (Repr::Null, _) => out.push(NIL),
        (Repr::Bool(b), _) => out.push(if *b { TRUE } else { FALSE }),
        (Repr::Number(n), _) => write_number(out, n),
        (Repr::String(s), _) => write_str(out, s),
        (Repr::Seq(elems), Type::List(ety) | Type::Set(ety)) => {
            marshal_seq(elems, ty.is_set(), ety, path, out)?
        }
        (Repr::Seq(elems), Type::Tuple(etys)) => marshal_tuple(elems, etys, path, out)?,
        (Repr::Attrs(attrs), Type::Map(ety)) => marshal_map(attrs, ety, path, out)?,
        (Repr::Attrs(attrs), Type::Object(ot)) => marshal_object(attrs, ot, path, out)?,
        _ => return Err(path.error(format!("cannot msgpack-serialize {}", ty.friendly_name()))),
    }
    Ok(())
}

fn marshal_seq(
    elems: &[Value],
    is_set: bool,
    ety: &Type,
    path: Path<'_>,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    write_array_len(out, elems.len());
    for (i, e) in elems.iter().enumerate() {
        let step = if is_set {
            Step::Elem(e)
        } else {
            Step::Index(i as i64)
        };
        marshal(e, ety, path.child(step), out)?;
    }
    Ok(())
}

fn marshal_tuple(
    elems: &[Value],
    etys: &[Type],
    path: Path<'_>,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    // cty writes the length of the type; a conforming value has as many
    // elements.
    write_array_len(out, etys.len());
    for (i, (e, ety)) in elems.iter().zip(etys.iter()).enumerate() {
        marshal(e, ety, path.child(Step::Index(i as i64)), out)?;
    }
    Ok(())
}

fn marshal_map(
    attrs: &crate::Attrs,
    ety: &Type,
    path: Path<'_>,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    write_map_len(out, attrs.len());
    for (k, v) in attrs {
        write_str(out, k);
        marshal(v, ety, path.child(Step::Key(k)), out)?;
    }
    Ok(())
}

fn marshal_object(
    attrs: &crate::Attrs,
    ot: &ObjectType,
    path: Path<'_>,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    write_map_len(out, ot.attributes.len());
    for (name, aty) in &ot.attributes {
        let child = path.child(Step::Attr(name));
        let av = attrs
            .get(name)
            .ok_or_else(|| child.error("value has no such attribute"))?;
        write_str(out, name);
        marshal(av, aty, child, out)?;
    }
    Ok(())
}

fn write_number(out: &mut Vec<u8>, n: &Number) {
    if n.is_infinite() {
        write_f64(
            out,
            if n.signum() < 0 {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            },
        );
    } else if let Some(i) = n.to_i64() {
        write_int(out, i);
    } else if let Some(f) = exact_f64(n) {
        write_f64(out, f);
    } else {
        write_str(out, &n.text('f', -1));
    }
}

/// The float64 equal to a non-integer `n`, when there is one (Go's
/// `Float64` with `Exact` accuracy and `!IsInt`).
fn exact_f64(n: &Number) -> Option<f64> {
    if n.is_integer() {
        return None;
    }
    let f = n.to_f64();
    if !f.is_finite() {
        return None;
    }
    Number::from_f64(f)
        .filter(|back| back.cmp(n) == Ordering::Equal)
        .map(|_| f)
}

fn write_unknown(val: &Value, out: &mut Vec<u8>) {
    let mut body = Vec::new();
    let mut entries = 0;
    if let (Some(r), false) = (val.refinement(), val.ty.is_dynamic()) {
        if r.not_null {
            entries += 1;
            write_int(&mut body, KEY_NULLNESS);
            body.push(FALSE);
        }
        match &val.ty {
            Type::Number => {
                for (key, bound) in [
                    (KEY_NUMBER_MIN, &r.number_lower),
                    (KEY_NUMBER_MAX, &r.number_upper),
                ] {
                    if let Some((n, inclusive)) = bound {
                        entries += 1;
                        write_int(&mut body, key);
                        write_array_len(&mut body, 2);
                        write_number(&mut body, n);
                        body.push(if *inclusive { TRUE } else { FALSE });
                    }
                }
            }
            Type::String => {
                if let Some(prefix) = r.string_prefix.as_deref().filter(|p| !p.is_empty()) {
                    entries += 1;
                    write_int(&mut body, KEY_STRING_PREFIX);
                    write_str(&mut body, &truncated_prefix(prefix));
                }
            }
            t if t.is_collection() => {
                if let Some(min) = r.length_lower.filter(|&m| m != 0) {
                    entries += 1;
                    write_int(&mut body, KEY_LENGTH_MIN);
                    write_int(&mut body, i64::try_from(min).unwrap_or(i64::MAX));
                }
                if let Some(max) = r.length_upper.filter(|&m| m != crate::refine::MAX_LENGTH) {
                    entries += 1;
                    write_int(&mut body, KEY_LENGTH_MAX);
                    write_int(&mut body, i64::try_from(max).unwrap_or(i64::MAX));
                }
            }
            _ => {}
        }
    }
    if entries == 0 {
        out.extend_from_slice(&UNKNOWN_BYTES);
        return;
    }
    let mut header = Vec::new();
    write_map_len(&mut header, entries);
    write_ext_header(out, REFINED_UNKNOWN_EXT, header.len() + body.len());
    out.extend_from_slice(&header);
    out.extend_from_slice(&body);
}

/// cty cuts a prefix longer than 256 bytes to its first 255 bytes and then
/// to a safe prefix of those. (When byte 255 falls inside a character, Go
/// works on the broken text; we drop the partial character first, which
/// can keep one grapheme less than Go would.)
fn truncated_prefix(prefix: &str) -> String {
    if prefix.len() <= MAX_PREFIX_LENGTH {
        return prefix.to_string();
    }
    let mut cut = MAX_PREFIX_LENGTH - 1;
    while !prefix.is_char_boundary(cut) {
        cut -= 1;
    }
    crate::refine::safe_known_prefix(&prefix[..cut])
}

// ----- reading -----

/// Reads msgpack with the leniencies of Go's `vmihailenco/msgpack` decoder
/// and its error messages.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn peek_code(&self) -> Result<u8, String> {
        self.buf
            .get(self.pos)
            .copied()
            .ok_or_else(|| "EOF".to_string())
    }

    fn read_code(&mut self) -> Result<u8, String> {
        let c = self.peek_code()?;
        self.pos += 1;
        Ok(c)
    }

    /// `io.ReadFull` semantics: "EOF" when nothing was left, "unexpected
    /// EOF" when only part was.
    fn read_n(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n == 0 {
            return Ok(&[]);
        }
        if self.remaining() == 0 {
            return Err("EOF".into());
        }
        if self.remaining() < n {
            self.pos = self.buf.len();
            return Err("unexpected EOF".into());
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn be(&mut self, n: usize) -> Result<u64, String> {
        Ok(self
            .read_n(n)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    fn int_after(&mut self, c: u8) -> Result<i64, String> {
        if c == NIL {
            return Ok(0);
        }
        if is_fixed_num(c) {
            return Ok(i64::from(c as i8));
        }
        Ok(match c {
            UINT8 => self.be(1)? as i64,
            INT8 => i64::from(self.be(1)? as u8 as i8),
            UINT16 => self.be(2)? as i64,
            INT16 => i64::from(self.be(2)? as u16 as i16),
            UINT32 => self.be(4)? as i64,
            INT32 => i64::from(self.be(4)? as u32 as i32),
            UINT64 | INT64 => self.be(8)? as i64,
            _ => return Err(format!("msgpack: invalid code={c:x} decoding int64")),
        })
    }

    fn decode_int64(&mut self) -> Result<i64, String> {
        let c = self.read_code()?;
        self.int_after(c)
    }

    fn decode_uint64(&mut self) -> Result<u64, String> {
        let c = self.read_code()?;
        if c == NIL {
            return Ok(0);
        }
        if is_fixed_num(c) {
            return Ok(i64::from(c as i8) as u64);
        }
        Ok(match c {
            UINT8 => self.be(1)?,
            INT8 => i64::from(self.be(1)? as u8 as i8) as u64,
            UINT16 => self.be(2)?,
            INT16 => i64::from(self.be(2)? as u16 as i16) as u64,
            UINT32 => self.be(4)?,
            INT32 => i64::from(self.be(4)? as u32 as i32) as u64,
            UINT64 | INT64 => self.be(8)?,
            _ => return Err(format!("msgpack: invalid code={c:x} decoding uint64")),
        })
    }

    fn decode_float64(&mut self) -> Result<f64, String> {
        let c = self.read_code()?;
        match c {
            FLOAT32 => Ok(f64::from(f32::from_bits(self.be(4)? as u32))),
            FLOAT64 => Ok(f64::from_bits(self.be(8)?)),
            _ => self
                .int_after(c)
                .map(|i| i as f64)
                .map_err(|_| format!("msgpack: invalid code={c:x} decoding float32")),
        }
    }

    fn decode_bool(&mut self) -> Result<bool, String> {
        match self.read_code()? {
            NIL | FALSE => Ok(false),
            TRUE => Ok(true),
            c => Err(format!("msgpack: invalid code={c:x} decoding bool")),
        }
    }

    /// The length of a str or bin, -1 for nil.
    fn bytes_len(&mut self, c: u8) -> Result<i64, String> {
        Ok(match c {
            NIL => -1,
            0xa0..=0xbf => i64::from(c & 0x1f),
            STR8 | BIN8 => self.be(1)? as i64,
            STR16 | BIN16 => self.be(2)? as i64,
            STR32 | BIN32 => self.be(4)? as i64,
            _ => {
                return Err(format!(
                    "msgpack: invalid code={c:x} decoding string/bytes length"
                ))
            }
        })
    }

    /// A str or bin (nil reads as empty), as raw bytes.
    fn decode_string(&mut self) -> Result<&'a [u8], String> {
        let c = self.read_code()?;
        let n = self.bytes_len(c)?;
        if n <= 0 {
            return Ok(&[]);
        }
        self.read_n(n as usize)
    }

    /// A bin or str; None for nil.
    fn decode_bytes(&mut self) -> Result<Option<&'a [u8]>, String> {
        let c = self.read_code()?;
        let n = self.bytes_len(c)?;
        if n < 0 {
            return Ok(None);
        }
        self.read_n(n as usize).map(Some)
    }

    /// An array length, -1 for nil.
    fn decode_array_len(&mut self) -> Result<i64, String> {
        let c = self.read_code()?;
        Ok(match c {
            NIL => -1,
            0x90..=0x9f => i64::from(c & 0x0f),
            ARRAY16 => self.be(2)? as i64,
            ARRAY32 => self.be(4)? as i64,
            _ => return Err(format!("msgpack: invalid code={c:x} decoding array length")),
        })
    }

    /// A map length, -1 for nil. Like Go's decoder, an extension header in
    /// front of the map is skipped.
    fn decode_map_len(&mut self) -> Result<i64, String> {
        let mut c = self.read_code()?;
        if is_ext(c) {
            self.read_code()?;
            let len_bytes = match c {
                EXT8 => 1,
                EXT16 => 2,
                EXT32 => 4,
                _ => 0,
            };
            self.read_n(len_bytes)?;
            c = self.read_code()?;
        }
        Ok(match c {
            NIL => -1,
            0x80..=0x8f => i64::from(c & 0x0f),
            MAP16 => self.be(2)? as i64,
            MAP32 => self.be(4)? as i64,
            _ => {
                return Err(format!(
                    "msgpack: unexpected code={c:x} decoding map length"
                ))
            }
        })
    }

    fn decode_ext_header(&mut self) -> Result<(i8, usize), String> {
        let c = self.read_code()?;
        let len = match c {
            FIXEXT1 => 1,
            FIXEXT2 => 2,
            FIXEXT4 => 4,
            FIXEXT8 => 8,
            FIXEXT16 => 16,
            EXT8 => self.be(1)? as usize,
            EXT16 => self.be(2)? as usize,
            EXT32 => self.be(4)? as usize,
            _ => return Err(format!("msgpack: invalid code={c:x} decoding ext len")),
        };
        let ext_type = self.read_code()? as i8;
        Ok((ext_type, len))
    }
}

/// A declared element count, capped by what the input could possibly hold
/// so that a hostile length cannot make us allocate.
fn capacity_for(declared: i64, r: &Reader<'_>) -> usize {
    usize::try_from(declared).unwrap_or(0).min(r.remaining())
}

// ----- decoding -----

/// cty `msgpack.Unmarshal`: decodes bytes written by `encode` (or by a
/// provider) as a value of type `ty`. Anything after the first value is
/// ignored, as in cty.
pub fn decode(buf: &[u8], ty: &Type) -> Result<Value, CodecError> {
    let mut r = Reader::new(buf);
    unmarshal(&mut r, ty, Path::ROOT)
}

// Each kind is decoded by its own function to keep the recursing frame
// small.
fn unmarshal(r: &mut Reader<'_>, ty: &Type, path: Path<'_>) -> Result<Value, CodecError> {
    let peek = r.peek_code().map_err(|e| path.error(e))?;
    if is_ext(peek) {
        // cty has no other extensions: any extension is an unknown value.
        return unmarshal_unknown(r, ty, path);
    }
    if ty.is_dynamic() {
        return unmarshal_dynamic(r, path);
    }
    if peek == NIL {
        r.pos += 1;
        return Ok(Value::null(ty.clone()));
    }
    match ty {
        Type::Bool => r
            .decode_bool()
            .map(Value::bool)
            .map_err(|_| path.error("bool is required")),
        Type::Number => unmarshal_number(r).ok_or_else(|| path.error("number is required")),
        Type::String => match r.decode_string() {
            Ok(s) => Ok(Value::string(go_lossy_utf8(s))),
            Err(_) => Err(path.error("string is required")),
        },
        Type::List(ety) | Type::Set(ety) => unmarshal_seq(r, ty, ety, path),
        Type::Map(ety) => unmarshal_map(r, ty, ety, path),
        Type::Tuple(etys) => unmarshal_tuple(r, ty, etys, path),
        Type::Object(ot) => unmarshal_object(r, ty, ot, path),
        Type::Dynamic => unmarshal_dynamic(r, path),
    }
}

fn unmarshal_seq(
    r: &mut Reader<'_>,
    ty: &Type,
    ety: &Type,
    path: Path<'_>,
) -> Result<Value, CodecError> {
    let is_set = ty.is_set();
    let what = if is_set {
        "a set is required"
    } else {
        "a list is required"
    };
    let len = r.decode_array_len().map_err(|_| path.error(what))?;
    if len < 0 {
        return Ok(Value::null(ty.clone()));
    }
    let mut vals = Vec::with_capacity(capacity_for(len, r));
    for i in 0..len {
        vals.push(unmarshal(r, ety, path.child(Step::Index(i)))?);
    }
    let built = if is_set {
        build_set(ety, vals)
    } else {
        build_list(ety, vals)
    };
    built.map_err(|m| path.error(m))
}

fn unmarshal_map(
    r: &mut Reader<'_>,
    ty: &Type,
    ety: &Type,
    path: Path<'_>,
) -> Result<Value, CodecError> {
    let len = r
        .decode_map_len()
        .map_err(|_| path.error("a map is required"))?;
    if len < 0 {
        return Ok(Value::null(ty.clone()));
    }
    let mut vals = Vec::with_capacity(capacity_for(len, r));
    for _ in 0..len {
        // cty builds an error for a non-string key but never returns it, so
        // such a key reads as "".
        let key = r.decode_string().map(go_lossy_utf8).unwrap_or_default();
        let val = unmarshal(r, ety, path.child(Step::Key(&key)))?;
        vals.push((key, val));
    }
    build_map(ety, vals).map_err(|m| path.error(m))
}

fn unmarshal_tuple(
    r: &mut Reader<'_>,
    ty: &Type,
    etys: &[Type],
    path: Path<'_>,
) -> Result<Value, CodecError> {
    let len = r
        .decode_array_len()
        .map_err(|_| path.error("a tuple is required"))?;
    match len {
        _ if len < 0 => return Ok(Value::null(ty.clone())),
        // cty gives the empty tuple for an empty array whatever tuple type
        // was asked for.
        0 => return Ok(Value::empty_tuple()),
        _ if len != etys.len() as i64 => {
            return Err(path.error(format!("a tuple of length {} is required", etys.len())))
        }
        _ => {}
    }
    let mut vals = Vec::with_capacity(etys.len());
    for (i, ety) in etys.iter().enumerate() {
        vals.push(unmarshal(r, ety, path.child(Step::Index(i as i64)))?);
    }
    Ok(Value::tuple(vals))
}

fn unmarshal_object(
    r: &mut Reader<'_>,
    ty: &Type,
    ot: &ObjectType,
    path: Path<'_>,
) -> Result<Value, CodecError> {
    let len = r
        .decode_map_len()
        .map_err(|_| path.error("an object is required"))?;
    match len {
        _ if len < 0 => return Ok(Value::null(ty.clone())),
        // As for tuples, cty gives the empty object for an empty map.
        0 => return Ok(Value::empty_object()),
        _ if len != ot.attributes.len() as i64 => {
            return Err(path.error(format!(
                "an object with {} attributes is required ({len} given)",
                ot.attributes.len()
            )))
        }
        _ => {}
    }
    let mut vals = Vec::with_capacity(ot.attributes.len());
    for _ in 0..len {
        let key = r
            .decode_string()
            .map_err(|_| path.error("all keys must be strings"))?;
        let key = go_lossy_utf8(key);
        let child = path.child(Step::Key(&key));
        let Some(aty) = ot.attributes.get(&key) else {
            return Err(child.error("unsupported attribute"));
        };
        let val = unmarshal(r, aty, child)?;
        vals.push((key, val));
    }
    Ok(build_object(vals))
}

fn unmarshal_number(r: &mut Reader<'_>) -> Option<Value> {
    let peek = r.peek_code().ok()?;
    let n = match peek {
        c if is_fixed_num(c) || (INT8..=INT64).contains(&c) => {
            Number::from_i64(r.decode_int64().ok()?)
        }
        UINT8..=UINT64 => Number::from_u64(r.decode_uint64().ok()?),
        // Go's big.Float refuses NaN (cty would crash); here it is not a number.
        FLOAT32 | FLOAT64 => Number::from_f64(r.decode_float64().ok()?)?,
        _ => Number::parse(std::str::from_utf8(r.decode_string().ok()?).ok()?)?,
    };
    Some(Value::number(n))
}

fn unmarshal_dynamic(r: &mut Reader<'_>, path: Path<'_>) -> Result<Value, CodecError> {
    let len = r.decode_array_len().map_err(|e| path.error(e))?;
    if len == -1 {
        return Ok(Value::null(Type::Dynamic));
    }
    if len != 2 {
        return Err(path.error("dynamic value array must have exactly two elements"));
    }
    let type_json = r.decode_bytes().map_err(|e| path.error(e))?;
    let ty = crate::typejson::type_from_json(type_json.unwrap_or_default())
        .map_err(|e| path.error(e.message))?;
    unmarshal(r, &ty, path)
}

/// Go's `%02x` of an int8, sign and all.
fn go_hex_i8(v: i8) -> String {
    if v < 0 {
        format!("-{:x}", -i16::from(v))
    } else {
        format!("{v:02x}")
    }
}

fn unmarshal_unknown(r: &mut Reader<'_>, ty: &Type, path: Path<'_>) -> Result<Value, CodecError> {
    let (ext_type, len) = r
        .decode_ext_header()
        .map_err(|_| path.error("extension code is required for unknown value"))?;
    fn read_body<'a>(
        r: &mut Reader<'a>,
        len: usize,
        path: Path<'_>,
    ) -> Result<&'a [u8], CodecError> {
        r.read_n(len)
            .map_err(|e| path.error(format!("failed to read msgpack extension body: {e}")))
    }
    if len <= 1 {
        read_body(r, len, path)?;
        return Ok(Value::unknown(ty.clone()));
    }
    if ext_type != REFINED_UNKNOWN_EXT {
        return Err(path.error(format!(
            "unsupported extension type 0x{} with len {len}",
            go_hex_i8(ext_type)
        )));
    }
    if len > MAX_REFINEMENT_LENGTH {
        return Err(path.error("oversize unknown value refinement"));
    }
    let body = read_body(r, len, path)?;
    let mut br = Reader::new(body);
    let fail = |what: &str| path.error(format!("failed to decode msgpack extension body: {what}"));
    let entries = br.decode_map_len().map_err(|_| fail("not a map"))?;
    if ty.is_dynamic() {
        // cty ignores refinements on unknowns of unknown type, leaving room
        // to define them later.
        return Ok(Value::unknown(Type::Dynamic));
    }
    let mut builder = Value::unknown(ty.clone()).refine();
    for _ in 0..entries.max(0) {
        let key = br
            .decode_int64()
            .map_err(|_| fail("non-integer key in map"))?;
        match key {
            KEY_NULLNESS => {
                let is_null = br
                    .decode_bool()
                    .map_err(|_| fail("null refinement is not boolean"))?;
                builder = if is_null {
                    builder.null()
                } else {
                    builder.not_null()
                };
            }
            KEY_STRING_PREFIX => {
                if *ty != Type::String {
                    return Err(fail("string prefix refinement for non-string type"));
                }
                let raw = br
                    .decode_string()
                    .map_err(|_| fail("string prefix refinement is not string"))?;
                let prefix = std::str::from_utf8(raw)
                    .map_err(|_| fail("string prefix refinement is not valid UTF-8"))?;
                builder = builder.string_prefix_full(prefix);
            }
            KEY_LENGTH_MIN | KEY_LENGTH_MAX => {
                if !ty.is_collection() {
                    return Err(fail(
                        "length lower bound refinement for non-collection type",
                    ));
                }
                let bound = br.decode_int64().map_err(|_| {
                    fail("length bound refinement must be integer or [integer, bool] array")
                })?;
                // A negative bound is either looser than "0" (lower) or
                // contradictory (upper, where cty panics); both are ignored.
                if let Ok(bound) = u64::try_from(bound) {
                    builder = if key == KEY_LENGTH_MIN {
                        builder.collection_length_lower_bound(bound)
                    } else {
                        builder.collection_length_upper_bound(bound)
                    };
                }
            }
            KEY_NUMBER_MIN | KEY_NUMBER_MAX => {
                if *ty != Type::Number {
                    return Err(fail("numeric bound refinement for non-number type"));
                }
                let bound_ty = Type::tuple(vec![Type::Number, Type::Bool]);
                let bad = || fail("length bound refinement must be [number, bool] array");
                let raw = unmarshal(&mut br, &bound_ty, Path::ROOT).map_err(|_| bad())?;
                let (bound, inclusive) = match raw.as_elements() {
                    Some([b, inc]) if b.ty == Type::Number && b.as_number().is_some() => {
                        (b.clone(), inc.as_bool().ok_or_else(bad)?)
                    }
                    _ => return Err(bad()),
                };
                builder = if key == KEY_NUMBER_MIN {
                    builder.number_range_lower_bound(&bound, inclusive)
                } else {
                    builder.number_range_upper_bound(&bound, inclusive)
                };
            }
            // cty skips keys it does not know for future use, but does not
            // skip their values: the next key is read from where the value
            // starts. We do the same so that both read the same refinements.
            _ => {}
        }
    }
    // Bytes after the map are ignored, leaving room for later additions.
    Ok(builder.new_value())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::testgen::{gen_type, gen_value, Options, Rng};
    use crate::value::Refinement;
    use std::collections::BTreeMap;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn unhex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn obj(pairs: Vec<(&str, Value)>) -> Value {
        Value::object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    fn refined(ty: Type, f: impl FnOnce(&mut Refinement)) -> Value {
        let mut r = Refinement::default();
        f(&mut r);
        Value::unknown_refined(ty, r)
    }

    /// Encodes, compares with the expected bytes, and decodes back.
    fn check_golden(value: &Value, ty: &Type, want: &str) {
        let got = encode(value, ty).unwrap();
        assert_eq!(hex(&got), hex(&unhex(want)), "encoding {value:?} as {ty}");
        let back = decode(&got, ty).unwrap();
        assert!(
            back.raw_equals(value),
            "round trip of {value:?}: got {back:?}"
        );
    }

    #[test]
    fn golden_bytes_without_numbers() {
        let list_s = Type::list(Type::String);
        let cases: Vec<(Value, Type, &str)> = vec![
            (Value::string("hello"), Type::String, "a5 68656c6c6f"),
            (Value::string(""), Type::String, "a0"),
            (Value::null(Type::String), Type::String, "c0"),
            (Value::bool(true), Type::Bool, "c3"),
            (Value::bool(false), Type::Bool, "c2"),
            (
                Value::string("x".repeat(32)),
                Type::String,
                &*format!("d9 20 {}", "78".repeat(32)).leak(),
            ),
            // cty's fixed encoding of a wholly unknown value.
            (Value::unknown(Type::String), Type::String, "d4 00 00"),
            (Value::dynamic(), Type::Dynamic, "d4 00 00"),
            // The object the plugin tests of OpenTofu use.
            (
                obj(vec![("attr", Value::string("bar"))]),
                Type::object([("attr".into(), Type::String)]),
                "81 a4 61747472 a3 626172",
            ),
            (
                obj(vec![
                    ("b", Value::null(Type::Bool)),
                    ("a", Value::bool(true)),
                ]),
                Type::object([("a".into(), Type::Bool), ("b".into(), Type::Bool)]),
                "82 a1 61 c3 a1 62 c0",
            ),
            (
                Value::list(Type::String, vec![Value::string("hello")]),
                list_s.clone(),
                "91 a5 68656c6c6f",
            ),
            (Value::list(Type::String, vec![]), list_s.clone(), "90"),
            (Value::null(list_s.clone()), list_s.clone(), "c0"),
            (
                Value::set(Type::Bool, vec![Value::bool(true)]),
                Type::set(Type::Bool),
                "91 c3",
            ),
            (
                Value::map(
                    Type::Bool,
                    BTreeMap::from([("k".to_string(), Value::bool(false))]),
                ),
                Type::map(Type::Bool),
                "81 a1 6b c2",
            ),
            (
                Value::tuple(vec![Value::string("a"), Value::null(Type::Bool)]),
                Type::tuple(vec![Type::String, Type::Bool]),
                "92 a1 61 c0",
            ),
            (Value::empty_tuple(), Type::empty_tuple(), "90"),
            (Value::empty_object(), Type::empty_object(), "80"),
            // Dynamic slots: [type JSON as bin, value].
            (
                Value::string("hello"),
                Type::Dynamic,
                "92 c4 08 22737472696e6722 a5 68656c6c6f",
            ),
            (
                Value::null(Type::String),
                Type::Dynamic,
                "92 c4 08 22737472696e6722 c0",
            ),
            (Value::null(Type::Dynamic), Type::Dynamic, "c0"),
            (
                Value::unknown(Type::Bool),
                Type::Dynamic,
                "92 c4 06 22626f6f6c22 d4 00 00",
            ),
            (
                Value::list(Type::Bool, vec![Value::bool(true)]),
                Type::list(Type::Dynamic),
                "91 92 c4 06 22626f6f6c22 c3",
            ),
            // Refined unknowns: extension 12 holding a map keyed by small ints.
            (
                refined(Type::String, |r| r.not_null = true),
                Type::String,
                "c7 03 0c 81 01 c2",
            ),
            (
                refined(Type::Bool, |r| r.not_null = true),
                Type::Bool,
                "c7 03 0c 81 01 c2",
            ),
            (
                refined(Type::String, |r| r.string_prefix = Some("foo-".into())),
                Type::String,
                "c7 07 0c 81 02 a4 666f6f2d",
            ),
            (
                refined(Type::String, |r| {
                    r.not_null = true;
                    r.string_prefix = Some("foo-".into())
                }),
                Type::String,
                "c7 09 0c 82 01 c2 02 a4 666f6f2d",
            ),
            (
                refined(list_s.clone(), |r| r.length_lower = Some(1)),
                list_s.clone(),
                "c7 03 0c 81 05 01",
            ),
            (
                refined(list_s.clone(), |r| {
                    r.not_null = true;
                    r.length_upper = Some(1)
                }),
                list_s.clone(),
                "c7 05 0c 82 01 c2 06 01",
            ),
            (
                refined(list_s.clone(), |r| r.length_upper = Some(200)),
                list_s.clone(),
                "d6 0c 81 06 cc c8",
            ),
            (
                refined(list_s.clone(), |r| {
                    r.length_lower = Some(1);
                    r.length_upper = Some(2)
                }),
                list_s.clone(),
                "c7 05 0c 82 05 01 06 02",
            ),
            // An object refinement in a dynamic slot.
            (
                refined(Type::empty_object(), |r| r.not_null = true),
                Type::Dynamic,
                "92 c4 0d 5b226f626a656374222c7b7d5d c7 03 0c 81 01 c2",
            ),
        ];
        for (value, ty, want) in &cases {
            check_golden(value, ty, want);
        }
    }

    #[test]
    fn golden_number_bytes() {
        let n = |s: &str| Value::number(Number::parse(s).unwrap());
        let cases: Vec<(Value, &str)> = vec![
            (Value::int(0), "00"),
            (Value::int(1), "01"),
            (Value::int(127), "7f"),
            (Value::int(128), "cc 80"),
            (Value::int(256), "cd 0100"),
            (Value::int(65536), "ce 00010000"),
            (Value::int(1 << 32), "cf 0000000100000000"),
            (Value::int(-1), "ff"),
            (Value::int(-32), "e0"),
            (Value::int(-33), "d0 df"),
            (Value::int(-129), "d1 ff7f"),
            (Value::int(-32769), "d2 ffff7fff"),
            (Value::int(i64::MIN), "d3 8000000000000000"),
            (n("9223372036854775807"), "cf 7fffffffffffffff"),
            // Beyond int64 integers are written as text even when a float64
            // could hold them.
            (
                n("9223372036854775808"),
                "b3 39323233333732303336383534373735383038",
            ),
            (
                n("18446744073709551616"),
                "b4 3138343436373434303733373039353531363136",
            ),
            (
                Value::number(Number::from_f64(1.5).unwrap()),
                "cb 3ff8000000000000",
            ),
            (n("1.5"), "cb 3ff8000000000000"),
            // 0.8 has no exact binary form, so it travels as text.
            (n("0.8"), "a3 302e38"),
            (
                Value::number(Number::infinity(false)),
                "cb 7ff0000000000000",
            ),
            (Value::number(Number::infinity(true)), "cb fff0000000000000"),
            (
                Value::number(Number::parse(&"9".repeat(100)).unwrap()),
                &*format!("d9 64 {}", "39".repeat(100)).leak(),
            ),
        ];
        for (value, want) in &cases {
            check_golden(value, &Type::Number, want);
        }

        let num = |lower: Option<(i64, bool)>, upper: Option<(i64, bool)>, not_null: bool| {
            refined(Type::Number, |r| {
                r.not_null = not_null;
                r.number_lower = lower.map(|(n, inc)| (Number::from_i64(n), inc));
                r.number_upper = upper.map(|(n, inc)| (Number::from_i64(n), inc));
            })
        };
        let refinements: Vec<(Value, &str)> = vec![
            (num(Some((0, true)), None, false), "c7 05 0c 81 03 92 00 c3"),
            (
                num(Some((0, false)), None, false),
                "c7 05 0c 81 03 92 00 c2",
            ),
            (num(None, Some((0, true)), false), "c7 05 0c 81 04 92 00 c3"),
            (
                num(Some((0, true)), Some((1, true)), false),
                "c7 09 0c 82 03 92 00 c3 04 92 01 c3",
            ),
            (
                num(Some((-200, true)), None, true),
                "c7 09 0c 82 01 c2 03 92 d1 ff38 c3",
            ),
        ];
        for (value, want) in &refinements {
            check_golden(value, &Type::Number, want);
        }
    }

    #[test]
    fn decoding_accepts_what_go_accepts() {
        let list_s = Type::list(Type::String);
        let ot = Type::object([("a".into(), Type::String)]);
        // Any zero- or one-byte extension is a plain unknown.
        for bytes in ["d4 00 00", "d4 05 ff", "c7 00 00", "c7 01 07 00"] {
            let v = decode(&unhex(bytes), &list_s).unwrap();
            assert!(v.raw_equals(&Value::unknown(list_s.clone())), "{bytes}");
        }
        // Strings may come as bin.
        assert_eq!(
            decode(&unhex("c4 02 6869"), &Type::String)
                .unwrap()
                .as_str(),
            Some("hi")
        );
        // Invalid UTF-8 becomes U+FFFD per byte, as Go's string conversion would later.
        assert_eq!(
            decode(&unhex("a3 ff 41 e2"), &Type::String)
                .unwrap()
                .as_str(),
            Some("\u{FFFD}A\u{FFFD}")
        );
        // cty gives the empty object or tuple for an empty map or array.
        assert!(decode(&unhex("80"), &ot)
            .unwrap()
            .raw_equals(&Value::empty_object()));
        assert!(decode(&unhex("90"), &Type::tuple(vec![Type::Bool]))
            .unwrap()
            .raw_equals(&Value::empty_tuple()));
        // A non-string map key is read as "", as cty drops that error.
        let m = decode(&unhex("81 c3 a1 78"), &Type::map(Type::String)).unwrap();
        assert_eq!(
            m.as_attributes().unwrap().get("").unwrap().as_str(),
            Some("x")
        );
        // Trailing bytes are ignored.
        assert_eq!(
            decode(&unhex("c3 c3 c3"), &Type::Bool).unwrap().as_bool(),
            Some(true)
        );
        // Null refinement collapses to null; unknown keys' values are read as keys.
        assert!(decode(&unhex("c7 03 0c 81 01 c3"), &Type::String)
            .unwrap()
            .raw_equals(&Value::null(Type::String)));
        let v = decode(&unhex("d6 0c 82 07 01 c2"), &Type::String).unwrap();
        assert!(
            v.raw_equals(&refined(Type::String, |r| r.not_null = true)),
            "{v:?}"
        );
        // Refinements of a dynamic unknown are ignored.
        assert!(decode(&unhex("c7 03 0c 81 01 c2"), &Type::Dynamic)
            .unwrap()
            .raw_equals(&Value::dynamic()));
        // A not-null collection of fixed length becomes known.
        let v = decode(&unhex("c7 07 0c 83 01 c2 05 02 06 02"), &list_s).unwrap();
        assert!(
            v.raw_equals(&Value::list(
                Type::String,
                vec![Value::unknown(Type::String); 2]
            )),
            "{v:?}"
        );
        let v = decode(
            &unhex("c7 07 0c 83 01 c2 05 00 06 00"),
            &Type::set(Type::Bool),
        )
        .unwrap();
        assert!(v.raw_equals(&Value::set(Type::Bool, vec![])), "{v:?}");
        // An extension header before the refinement map is skipped, as Go's decoder does.
        let v = decode(&unhex("c7 05 0c d4 01 81 01 c2"), &Type::Bool).unwrap();
        assert!(
            v.raw_equals(&refined(Type::Bool, |r| r.not_null = true)),
            "{v:?}"
        );
        // Nil where a dynamic value's pair belongs is a null of unknown type.
        assert!(decode(&unhex("c0"), &Type::Dynamic)
            .unwrap()
            .raw_equals(&Value::null(Type::Dynamic)));
    }

    #[test]
    fn decoding_errors() {
        let ot = Type::object([("a".into(), Type::String), ("b".into(), Type::String)]);
        let cases: Vec<(&str, Type, &str)> = vec![
            ("", Type::String, "EOF"),
            ("c3", Type::String, "string is required"),
            ("a1 61", Type::Bool, "bool is required"),
            ("c3", Type::Number, "number is required"),
            ("a1 78", Type::Number, "number is required"),
            ("cb 7ff8000000000000", Type::Number, "number is required"),
            ("c3", Type::list(Type::Bool), "a list is required"),
            ("80", Type::set(Type::Bool), "a set is required"),
            ("90", Type::map(Type::Bool), "a map is required"),
            ("80", Type::tuple(vec![Type::Bool]), "a tuple is required"),
            ("92 c3 c3", Type::tuple(vec![Type::Bool]), "a tuple of length 1 is required"),
            ("90", ot.clone(), "an object is required"),
            ("81 a1 61 c0", ot.clone(), "an object with 2 attributes is required (1 given)"),
            ("82 c3 c0 a1 62 c0", ot.clone(), "all keys must be strings"),
            ("82 a1 61 c0 a1 63 c0", ot.clone(), "unsupported attribute"),
            ("91", Type::list(Type::Bool), "EOF"),
            ("93 c0 c0 c0", Type::Dynamic, "dynamic value array must have exactly two elements"),
            ("c3", Type::Dynamic, "msgpack: invalid code=c3 decoding array length"),
            ("92 c4 05 2262616422 c0", Type::Dynamic, "invalid primitive type name \"bad\""),
            ("92 c0 c0", Type::Dynamic, "EOF"),
            ("92 c4 06 22626f6f6c22 a1 78", Type::Dynamic, "bool is required"),
            ("d5 05 00 00", Type::Bool, "unsupported extension type 0x05 with len 2"),
            ("d5 ff 00 00", Type::Bool, "unsupported extension type 0x-1 with len 2"),
            ("c8 0401 0c", Type::Bool, "oversize unknown value refinement"),
            ("c7 05 0c 81", Type::Bool, "failed to read msgpack extension body: unexpected EOF"),
            ("c7 02 0c c3 c3", Type::Bool, "failed to decode msgpack extension body: not a map"),
            ("c7 02 0c 81 c3", Type::Bool, "failed to decode msgpack extension body: non-integer key in map"),
            ("c7 03 0c 81 01 a0", Type::Bool, "failed to decode msgpack extension body: null refinement is not boolean"),
            ("c7 04 0c 81 02 a1 61", Type::Bool, "failed to decode msgpack extension body: string prefix refinement for non-string type"),
            ("c7 03 0c 81 02 c3", Type::String, "failed to decode msgpack extension body: string prefix refinement is not string"),
            ("c7 04 0c 81 02 a1 ff", Type::String, "failed to decode msgpack extension body: string prefix refinement is not valid UTF-8"),
            ("c7 03 0c 81 05 01", Type::String, "failed to decode msgpack extension body: length lower bound refinement for non-collection type"),
            ("c7 03 0c 81 05 c3", Type::list(Type::Bool), "failed to decode msgpack extension body: length bound refinement must be integer or [integer, bool] array"),
            ("c7 05 0c 81 03 92 00 c3", Type::String, "failed to decode msgpack extension body: numeric bound refinement for non-number type"),
            ("c7 05 0c 81 03 92 c0 c3", Type::Number, "failed to decode msgpack extension body: length bound refinement must be [number, bool] array"),
            ("c7 03 0c 81 03 90", Type::Number, "failed to decode msgpack extension body: length bound refinement must be [number, bool] array"),
            ("d4", Type::Bool, "extension code is required for unknown value"),
            ("d5 00 00", Type::Bool, "unsupported extension type 0x00 with len 2"),
            ("d5 0c 00", Type::Bool, "failed to read msgpack extension body: unexpected EOF"),
            ("91 93 c0 c0 c0", Type::list(Type::Dynamic), "dynamic value array must have exactly two elements"),
            (
                "92 92 c4 06 22626f6f6c22 c3 92 c4 08 22737472696e6722 a0",
                Type::list(Type::Dynamic),
                "inconsistent list element types (bool then string)",
            ),
        ];
        for (bytes, ty, want) in &cases {
            let err = decode(&unhex(bytes), ty).unwrap_err();
            assert_eq!(&err.message, want, "{bytes} as {ty}");
        }
    }

    #[test]
    fn error_paths() {
        let ty = Type::object([("a".into(), Type::list(Type::Bool))]);
        let err = decode(&unhex("81 a1 61 92 c3 a1 78"), &ty).unwrap_err();
        assert_eq!(err.message, "bool is required");
        assert!(matches!(
            err.path.as_slice(),
            [crate::convert::PathStep::Index(k), crate::convert::PathStep::Index(i)]
                if k.as_str() == Some("a") && i.as_number().and_then(Number::to_i64) == Some(1)
        ));
        let v = obj(vec![(
            "a",
            Value::list(
                Type::Bool,
                vec![Value::bool(true).mark(crate::value::Marks::SENSITIVE)],
            ),
        )]);
        let err = encode(&v, &ty).unwrap_err();
        assert_eq!(err.message, "value has marks, so it cannot be serialized");
        assert_eq!(err.path.len(), 2);
    }

    #[test]
    fn long_string_prefixes_are_truncated_as_cty_does() {
        // From cty's round-trip tests: prefixes over 256 bytes are cut to 255
        // bytes and then to a safe prefix.
        let cases: Vec<(String, String)> = vec![
            ("a".repeat(1023), "a".repeat(254)),
            ("c".repeat(255) + "-", "c".repeat(255) + "-"),
            ("d".repeat(255) + "🤷🤷", "d".repeat(254)),
            // Byte 255 inside a character: Go works on the broken text and
            // stops before the last starter, as we do.
            ("d".repeat(254) + "🤷🤷", "d".repeat(253)),
        ];
        for (prefix, want) in cases {
            let v = refined(Type::String, |r| r.string_prefix = Some(prefix.clone()));
            let back = decode(&encode(&v, &Type::String).unwrap(), &Type::String).unwrap();
            let got = back
                .refinement()
                .and_then(|r| r.string_prefix.clone())
                .unwrap_or_default();
            assert_eq!(got, want, "prefix of {} bytes", prefix.len());
        }
    }

    /// What kinds of values a generated value contains, to check that the
    /// generator covers them.
    fn features(v: &Value, seen: &mut [bool; 6]) {
        seen[0] |= v.refinement().is_some();
        seen[1] |= !v.is_known() && v.refinement().is_none();
        seen[2] |= v.is_null();
        seen[3] |= v.ty.is_set() && v.is_known() && !v.is_null();
        seen[4] |= v.ty.is_dynamic();
        seen[5] |= v.as_number().is_some_and(|n| !n.is_integer());
        for e in v.as_elements().unwrap_or_default() {
            features(e, seen);
        }
        for e in v.as_attributes().into_iter().flat_map(|m| m.values()) {
            features(e, seen);
        }
    }

    fn roundtrips(seed: u64, cases: usize, opts: Options) {
        let mut rng = Rng::new(seed);
        let mut seen = [false; 6];
        for case in 0..cases {
            let ty = gen_type(&mut rng, 3, opts);
            let value = gen_value(&mut rng, &ty, 3, opts);
            features(&value, &mut seen);
            let bytes = encode(&value, &ty)
                .unwrap_or_else(|e| panic!("case {case}: encoding {value:?} as {ty}: {e}"));
            let back = decode(&bytes, &ty)
                .unwrap_or_else(|e| panic!("case {case}: decoding {value:?} as {ty}: {e}"));
            assert!(
                back.raw_equals(&value),
                "case {case}: {ty}\n  sent {value:?}\n  got  {back:?}\n  via  {}",
                hex(&bytes)
            );
            assert_eq!(
                encode(&back, &ty).unwrap(),
                bytes,
                "case {case}: re-encoding"
            );
        }
        let want = [true, true, true, true, true, opts.numbers];
        assert_eq!(seen, want, "refined, unknown, null, set, dynamic, fraction");
    }

    #[test]
    fn roundtrip_generated_values_without_numbers() {
        roundtrips(
            1,
            3000,
            Options {
                unknowns: true,
                infinities: false,
                numbers: false,
            },
        );
    }

    #[test]
    fn roundtrip_generated_values() {
        roundtrips(
            2,
            3000,
            Options {
                unknowns: true,
                infinities: true,
                numbers: true,
            },
        );
    }
}
