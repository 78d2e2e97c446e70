//! Built-in functions: IP network arithmetic (`cidrhost`, `cidrnetmask`,
//! `cidrsubnet`, `cidrsubnets`, and OpenTofu's `cidrcontains`).
//!
//! Terraform computes these with Go's `net` types, a fork of Go 1.16's
//! address parser (octets with leading zeros are accepted as decimal) and
//! the `go-cidr` package. Results are part of people's infrastructure, so
//! this module reproduces that arithmetic exactly, including its odd corners:
//! IPv4-mapped IPv6 prefixes, host numbers wrapped to their low 64 bits, and
//! negative numbers combined in two's complement.

use super::{arg_str, CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use num_bigint::{BigInt, Sign};
use terrace_value::{Type, Value};

pub(crate) fn register(out: &mut Vec<Function>) {
    out.push(Function::new(
        "cidrhost",
        vec![
            Param::new("prefix", Type::String),
            Param::new("hostnum", Type::Number),
        ],
        ReturnType::Static(Type::String),
        cidrhost,
    ));
    out.push(Function::new(
        "cidrnetmask",
        vec![Param::new("prefix", Type::String)],
        ReturnType::Static(Type::String),
        cidrnetmask,
    ));
    out.push(Function::new(
        "cidrsubnet",
        vec![
            Param::new("prefix", Type::String),
            Param::new("newbits", Type::Number),
            Param::new("netnum", Type::Number),
        ],
        ReturnType::Static(Type::String),
        cidrsubnet,
    ));
    out.push(
        Function::new(
            "cidrsubnets",
            vec![Param::new("prefix", Type::String)],
            ReturnType::Static(Type::list(Type::String)),
            cidrsubnets,
        )
        .variadic(Param::new("newbits", Type::Number)),
    );
    // OpenTofu only (1.8+); Terraform 1.11 has no such function.
    out.push(
        Function::new(
            "cidrcontains",
            vec![
                Param::new("containing_prefix", Type::String),
                Param::new("contained_ip_or_prefix", Type::String),
            ],
            ReturnType::Static(Type::Bool),
            cidrcontains,
        )
        .nullable_result(),
    );
}

const INT64_RANGE_MESSAGE: &str =
    "value must be a whole number, between -9223372036854775808 and 9223372036854775807";

/// gocty's conversion of a number to a Go `int`.
pub(super) fn number_to_i64(value: &Value) -> Result<i64, String> {
    value
        .as_number()
        .and_then(|n| n.to_i64())
        .ok_or_else(|| INT64_RANGE_MESSAGE.to_string())
}

/// gocty's conversion of a number to a `*big.Int`.
fn number_to_bigint(value: &Value) -> Result<BigInt, String> {
    let whole = "value must be a whole number".to_string();
    let number = value.as_number().ok_or_else(|| whole.clone())?;
    if number.is_infinite() || !number.is_integer() {
        return Err(whole);
    }
    number.trunc_to_bigint().ok_or(whole)
}

fn cidrhost(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let hostnum = number_to_bigint(&args[1]).map_err(FunctionError::call)?;
    let network = parse_cidr(arg_str(args, 0)?)
        .map_err(|e| FunctionError::call(format!("invalid CIDR expression: {e}")))?;
    let ip = host_big(&network, hostnum).map_err(FunctionError::call)?;
    Ok(Value::string(ip_string(&ip)))
}

fn cidrnetmask(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let prefix = arg_str(args, 0)?;
    let network = parse_cidr(prefix)
        .map_err(|e| FunctionError::call(format!("invalid CIDR expression: {e}")))?;
    if to4(&network.ip).is_none() {
        return Err(FunctionError::call(format!(
            "IPv6 addresses cannot have a netmask: {prefix}"
        )));
    }
    Ok(Value::string(ip_string(&network.mask)))
}

fn cidrsubnet(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let newbits = number_to_i64(&args[1]).map_err(FunctionError::call)?;
    let netnum = number_to_bigint(&args[2]).map_err(FunctionError::call)?;
    let network = parse_cidr(arg_str(args, 0)?)
        .map_err(|e| FunctionError::call(format!("invalid CIDR expression: {e}")))?;
    let subnet = subnet_big(&network, newbits, netnum).map_err(FunctionError::call)?;
    Ok(Value::string(subnet.to_string()))
}

fn cidrsubnets(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let network = parse_cidr(arg_str(args, 0)?)
        .map_err(|e| FunctionError::arg(0, format!("invalid CIDR expression: {e}")))?;
    let (start_prefix_len, _) = mask_size(&network.mask);
    let lengths = &args[1..];
    if lengths.is_empty() {
        return Ok(Value::list(Type::String, Vec::new()));
    }
    let first_length = number_to_i64(&lengths[0]).map_err(|e| FunctionError::arg(1, e))?;
    let address_bits = (network.ip.len() * 8) as i64;

    let mut current = previous_subnet(&network, first_length.wrapping_add(start_prefix_len));
    let mut subnets = Vec::with_capacity(lengths.len());
    for (i, length_arg) in lengths.iter().enumerate() {
        let mut length = number_to_i64(length_arg).map_err(|e| FunctionError::arg(i + 1, e))?;
        if length < 1 {
            return Err(FunctionError::arg(
                i + 1,
                "must extend prefix by at least one bit",
            ));
        }
        if length > 32 {
            return Err(FunctionError::arg(
                i + 1,
                "may not extend prefix by more than 32 bits",
            ));
        }
        length += start_prefix_len;
        if length > address_bits {
            let protocol = match address_bits {
                32 => "IPv4",
                128 => "IPv6",
                _ => "IP",
            };
            return Err(FunctionError::arg(
                i + 1,
                format!("would extend prefix to {length} bits, which is too long for an {protocol} address"),
            ));
        }
        let (next, rollover) = next_subnet(&current, length).map_err(FunctionError::call)?;
        if rollover || !network.contains(&next.ip) {
            return Err(FunctionError::arg(
                i + 1,
                format!(
                    "not enough remaining address space for a subnet with a prefix of {length} bits after {current}"
                ),
            ));
        }
        current = next;
        subnets.push(Value::string(current.to_string()));
    }
    Ok(Value::list(Type::String, subnets))
}

fn cidrcontains(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let prefix = arg_str(args, 0)?;
    let addr = arg_str(args, 1)?;
    let containing = parse_cidr(prefix).map_err(|e| FunctionError::call(e.to_string()))?;
    let (start, end) = match parse_ip(addr) {
        Some(ip) => (ip.to_vec(), None),
        None => {
            let contained = parse_cidr(addr).map_err(|_| {
                FunctionError::call(format!("invalid IP address or prefix: {addr}"))
            })?;
            let (first, last) = address_range(&contained).map_err(FunctionError::call)?;
            (first, Some(last))
        }
    };
    if to4(&start).is_none() != to4(&containing.ip).is_none() {
        return Err(FunctionError::call(format!(
            "address family mismatch: {prefix} vs. {addr}"
        )));
    }
    let mut result = containing.contains(&start);
    if let Some(end) = end {
        result = result && containing.contains(&end);
    }
    Ok(Value::bool(result))
}

// ----- Go's net.IP and net.IPNet -----

/// Go's `*net.ParseError` for a CIDR address.
#[derive(Debug)]
struct CidrParseError(String);

impl std::fmt::Display for CidrParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid CIDR address: {}", self.0)
    }
}

/// A Go `net.IPNet`. Both fields use Go's convention that an empty slice is
/// the nil address or mask; lengths other than 4 and 16 are possible after
/// some of go-cidr's operations and are rendered as Go renders them.
#[derive(Clone, Debug)]
struct IpNet {
    ip: Vec<u8>,
    mask: Vec<u8>,
}

const V4_IN_V6_PREFIX: [u8; 12] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

fn ipv4_mapped(a: u8, b: u8, c: u8, d: u8) -> Vec<u8> {
    let mut ip = V4_IN_V6_PREFIX.to_vec();
    ip.extend_from_slice(&[a, b, c, d]);
    ip
}

/// Go 1.16's `dtoi`: decimal digits up to a big sentinel.
fn dtoi(s: &[u8]) -> Option<(u32, usize)> {
    const BIG: u32 = 0xFF_FFFF;
    let mut n: u32 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        n = n * 10 + u32::from(s[i] - b'0');
        if n >= BIG {
            return None;
        }
        i += 1;
    }
    if i == 0 {
        return None;
    }
    Some((n, i))
}

fn xtoi(s: &[u8]) -> Option<(u32, usize)> {
    const BIG: u32 = 0xFF_FFFF;
    let mut n: u32 = 0;
    let mut i = 0;
    while i < s.len() {
        let digit = match s[i] {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            c @ b'A'..=b'F' => c - b'A' + 10,
            _ => break,
        };
        n = n * 16 + u32::from(digit);
        if n >= BIG {
            return None;
        }
        i += 1;
    }
    if i == 0 {
        return None;
    }
    Some((n, i))
}

/// Dotted-quad IPv4, as a 16-byte IPv4-mapped address. Octets with leading
/// zeros are decimal, as before Go 1.17.
fn parse_ipv4(s: &[u8]) -> Option<Vec<u8>> {
    let mut octets = [0u8; 4];
    let mut rest = s;
    for (i, octet) in octets.iter_mut().enumerate() {
        if rest.is_empty() {
            return None;
        }
        if i > 0 {
            if rest[0] != b'.' {
                return None;
            }
            rest = &rest[1..];
        }
        let (n, consumed) = dtoi(rest)?;
        if n > 0xFF {
            return None;
        }
        rest = &rest[consumed..];
        *octet = n as u8;
    }
    if !rest.is_empty() {
        return None;
    }
    Some(ipv4_mapped(octets[0], octets[1], octets[2], octets[3]))
}

fn parse_ipv6(s: &[u8]) -> Option<Vec<u8>> {
    let mut ip = vec![0u8; 16];
    let mut ellipsis: Option<usize> = None;
    let mut s = s;
    if s.len() >= 2 && s[0] == b':' && s[1] == b':' {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0;
    while i < 16 {
        let (n, c) = xtoi(s)?;
        if n > 0xFFFF {
            return None;
        }
        if c < s.len() && s[c] == b'.' {
            if ellipsis.is_none() && i != 12 {
                return None;
            }
            if i + 4 > 16 {
                return None;
            }
            let ip4 = parse_ipv4(s)?;
            ip[i..i + 4].copy_from_slice(&ip4[12..16]);
            s = &[];
            i += 4;
            break;
        }
        ip[i] = (n >> 8) as u8;
        ip[i + 1] = n as u8;
        i += 2;
        s = &s[c..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' || s.len() == 1 {
            return None;
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    if i < 16 {
        let ellipsis = ellipsis?;
        let n = 16 - i;
        for j in (ellipsis..i).rev() {
            ip[j + n] = ip[j];
        }
        for b in ip.iter_mut().skip(ellipsis).take(n) {
            *b = 0;
        }
    } else if ellipsis.is_some() {
        return None;
    }
    Some(ip)
}

/// Go's `net.ParseIP` (the pre-1.17 fork).
fn parse_ip(s: &str) -> Option<Vec<u8>> {
    for &b in s.as_bytes() {
        match b {
            b'.' => return parse_ipv4(s.as_bytes()),
            b':' => return parse_ipv6(s.as_bytes()),
            _ => {}
        }
    }
    None
}

/// Go's `net.ParseCIDR`, returning only the network.
fn parse_cidr(s: &str) -> Result<IpNet, CidrParseError> {
    let err = || CidrParseError(s.to_string());
    let slash = s.find('/').ok_or_else(err)?;
    let (addr, mask_text) = (&s[..slash], &s.as_bytes()[slash + 1..]);
    let (ip, ip_len) = match parse_ipv4(addr.as_bytes()) {
        Some(ip) => (ip, 4),
        None => (parse_ipv6(addr.as_bytes()).ok_or_else(err)?, 16),
    };
    let (ones, consumed) = dtoi(mask_text).ok_or_else(err)?;
    if consumed != mask_text.len() || ones as usize > 8 * ip_len {
        return Err(err());
    }
    let mask = cidr_mask(i64::from(ones), (8 * ip_len) as i64);
    Ok(IpNet {
        ip: mask_ip(&ip, &mask),
        mask,
    })
}

/// Go's `net.CIDRMask`; empty (nil) when out of range.
fn cidr_mask(ones: i64, bits: i64) -> Vec<u8> {
    if (bits != 32 && bits != 128) || ones < 0 || ones > bits {
        return Vec::new();
    }
    let mut mask = vec![0u8; (bits / 8) as usize];
    let mut remaining = ones;
    for byte in mask.iter_mut() {
        if remaining >= 8 {
            *byte = 0xff;
            remaining -= 8;
        } else {
            *byte = !(0xffu8 >> remaining);
            remaining = 0;
        }
    }
    mask
}

/// Go's `IP.Mask`.
fn mask_ip(ip: &[u8], mask: &[u8]) -> Vec<u8> {
    let mut mask = mask;
    let mut ip = ip;
    if mask.len() == 16 && ip.len() == 4 && mask[..12].iter().all(|&b| b == 0xff) {
        mask = &mask[12..];
    }
    if mask.len() == 4 && ip.len() == 16 && ip[..12] == V4_IN_V6_PREFIX {
        ip = &ip[12..];
    }
    if ip.len() != mask.len() {
        return Vec::new();
    }
    ip.iter().zip(mask).map(|(a, b)| a & b).collect()
}

/// Go's `IP.To4`.
fn to4(ip: &[u8]) -> Option<&[u8]> {
    match ip.len() {
        4 => Some(ip),
        16 if ip[..12] == V4_IN_V6_PREFIX => Some(&ip[12..]),
        _ => None,
    }
}

/// Go's `simpleMaskLength`: the prefix length of a canonical mask.
fn simple_mask_length(mask: &[u8]) -> Option<i64> {
    let mut n = 0i64;
    let mut iter = mask.iter();
    for &b in iter.by_ref() {
        if b == 0xff {
            n += 8;
            continue;
        }
        let mut v = b;
        while v & 0x80 != 0 {
            n += 1;
            v <<= 1;
        }
        if v != 0 {
            return None;
        }
        break;
    }
    if iter.any(|&b| b != 0) {
        return None;
    }
    Some(n)
}

/// Go's `IPMask.Size`: `(0, 0)` for a non-canonical mask.
fn mask_size(mask: &[u8]) -> (i64, i64) {
    match simple_mask_length(mask) {
        Some(ones) => (ones, (mask.len() * 8) as i64),
        None => (0, 0),
    }
}

/// Go's `IP.String`.
fn ip_string(ip: &[u8]) -> String {
    if ip.is_empty() {
        return "<nil>".to_string();
    }
    if ip.len() != 4 && ip.len() != 16 {
        return format!("?{}", hex(ip));
    }
    if let Some(v4) = to4(ip) {
        return format!("{}.{}.{}.{}", v4[0], v4[1], v4[2], v4[3]);
    }
    let groups: Vec<u16> = ip
        .chunks(2)
        .map(|c| u16::from(c[0]) << 8 | u16::from(c[1]))
        .collect();
    // The longest run of at least two zero groups (the first of equals) is
    // written as "::".
    let (mut zero_start, mut zero_end) = (usize::MAX, usize::MAX);
    let mut i = 0;
    while i < 8 {
        let mut j = i;
        while j < 8 && groups[j] == 0 {
            j += 1;
        }
        let run = j - i;
        let best = if zero_start == usize::MAX {
            0
        } else {
            zero_end - zero_start
        };
        if run >= 2 && run > best {
            zero_start = i;
            zero_end = j;
        }
        i = j.max(i + 1);
    }
    let mut out = String::new();
    let mut i = 0;
    while i < 8 {
        if i == zero_start {
            out.push_str("::");
            i = zero_end;
            continue;
        }
        if i > 0 && i != zero_end {
            out.push(':');
        }
        out.push_str(&format!("{:x}", groups[i]));
        i += 1;
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Go's `IP.Equal`.
fn ip_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() == b.len() {
        return a == b;
    }
    if a.len() == 4 && b.len() == 16 {
        return b[..12] == V4_IN_V6_PREFIX && a == &b[12..];
    }
    if a.len() == 16 && b.len() == 4 {
        return a[..12] == V4_IN_V6_PREFIX && &a[12..] == b;
    }
    false
}

fn is_zero_address(ip: &[u8]) -> bool {
    ip_equal(ip, &ipv4_mapped(0, 0, 0, 0)) || ip_equal(ip, &[0u8; 16])
}

impl IpNet {
    /// Go's `networkNumberAndMask`.
    fn network_number_and_mask(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        let ip = match to4(&self.ip) {
            Some(v4) => v4.to_vec(),
            None if self.ip.len() == 16 => self.ip.clone(),
            None => return None,
        };
        let mask = match self.mask.len() {
            4 if ip.len() == 4 => self.mask.clone(),
            4 => return None,
            16 if ip.len() == 4 => self.mask[12..].to_vec(),
            16 => self.mask.clone(),
            _ => return None,
        };
        Some((ip, mask))
    }

    /// Go's `IPNet.Contains`.
    fn contains(&self, ip: &[u8]) -> bool {
        let Some((network, mask)) = self.network_number_and_mask() else {
            return false;
        };
        let ip = to4(ip).unwrap_or(ip);
        if ip.len() != network.len() {
            return false;
        }
        (0..ip.len()).all(|i| network[i] & mask[i] == ip[i] & mask[i])
    }
}

impl std::fmt::Display for IpNet {
    /// Go's `IPNet.String`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some((ip, mask)) = self.network_number_and_mask() else {
            return f.write_str("<nil>");
        };
        match simple_mask_length(&mask) {
            Some(len) => write!(f, "{}/{}", ip_string(&ip), len),
            None => write!(f, "{}/{}", ip_string(&ip), hex(&mask)),
        }
    }
}

// ----- go-cidr -----

fn ip_to_int(ip: &[u8]) -> Result<(BigInt, i64), String> {
    match ip.len() {
        4 => Ok((BigInt::from_bytes_be(Sign::Plus, ip), 32)),
        16 => Ok((BigInt::from_bytes_be(Sign::Plus, ip), 128)),
        n => Err(format!("unsupported address length {n}")),
    }
}

/// go-cidr's `intToIP`: the magnitude's bytes packed at the end. Go indexes
/// out of range (and panics) when the number does not fit; that is an error
/// here.
fn int_to_ip(value: &BigInt, bits: i64) -> Option<Vec<u8>> {
    let (_, bytes) = value.to_bytes_be();
    let size = (bits / 8) as usize;
    let bytes: &[u8] = if value.sign() == Sign::NoSign {
        &[]
    } else {
        &bytes
    };
    if bytes.len() > size {
        return None;
    }
    let mut out = vec![0u8; size];
    out[size - bytes.len()..].copy_from_slice(bytes);
    Some(out)
}

/// go-cidr's `insertNumIntoIP`: the number shifted into place and OR'ed
/// (in two's complement, as `big.Int.Or` does) into the address.
fn insert_num_into_ip(ip: &[u8], num: &BigInt, prefix_len: i64) -> Option<Vec<u8>> {
    let (ip_int, total_bits) = ip_to_int(ip).ok()?;
    let shift = total_bits - prefix_len;
    if num.sign() == Sign::NoSign {
        return int_to_ip(&ip_int, total_bits);
    }
    // Any non-zero number shifted this far can no longer fit in an address
    // (Go would panic), and the shift itself could be unbounded.
    if !(0..total_bits).contains(&shift) {
        return None;
    }
    let combined = ip_int | (num << shift as usize);
    int_to_ip(&combined, total_bits)
}

/// `big.Int.Uint64`: the low 64 bits of the magnitude.
fn low_u64(value: &BigInt) -> u64 {
    value.magnitude().iter_u64_digits().next().unwrap_or(0)
}

fn subnet_big(base: &IpNet, new_bits: i64, num: BigInt) -> Result<IpNet, String> {
    let (parent_len, addr_len) = mask_size(&base.mask);
    let new_prefix_len = parent_len.wrapping_add(new_bits);
    if new_prefix_len > addr_len {
        return Err(format!(
            "insufficient address space to extend prefix of {parent_len} by {new_bits}"
        ));
    }
    // Go computes `uint64(1<<uint64(newBits)) - 1`, which wraps to the
    // largest uint64 for negative or too-large shifts.
    let max_net_num = if (0..64).contains(&new_bits) {
        (1u64 << new_bits).wrapping_sub(1)
    } else {
        u64::MAX
    };
    if low_u64(&num) > max_net_num {
        return Err(format!(
            "prefix extension of {new_bits} does not accommodate a subnet numbered {num}"
        ));
    }
    let ip = insert_num_into_ip(&base.ip, &num, new_prefix_len).ok_or_else(|| {
        format!("prefix extension of {new_bits} does not accommodate a subnet numbered {num}")
    })?;
    Ok(IpNet {
        ip,
        mask: cidr_mask(new_prefix_len, addr_len),
    })
}

fn host_big(base: &IpNet, mut num: BigInt) -> Result<Vec<u8>, String> {
    let (parent_len, addr_len) = mask_size(&base.mask);
    let host_len = (addr_len - parent_len).max(0) as usize;
    let max_host_num: BigInt = (BigInt::from(1) << host_len) - 1;
    // go-cidr compares the low 64 bits of the number, reinterpreted as a
    // signed integer, and counts negative numbers back from the end.
    let mut checked = BigInt::from(low_u64(&num) as i64);
    if num.sign() == Sign::Minus {
        checked = -&num - 1;
        num = &max_host_num - &checked;
    }
    if checked > max_host_num {
        return Err(format!(
            "prefix of {parent_len} does not accommodate a host numbered {num}"
        ));
    }
    let bit_length = if to4(&base.ip).is_some() { 32 } else { 128 };
    insert_num_into_ip(&base.ip, &num, bit_length)
        .ok_or_else(|| format!("prefix of {parent_len} does not accommodate a host numbered {num}"))
}

fn address_range(network: &IpNet) -> Result<(Vec<u8>, Vec<u8>), String> {
    let first = network.ip.clone();
    let (prefix_len, bits) = mask_size(&network.mask);
    if prefix_len == bits {
        return Ok((first.clone(), first));
    }
    let (first_int, bits) = ip_to_int(&first)?;
    let host_len = (bits - prefix_len).max(0) as usize;
    let last_int = ((BigInt::from(1) << host_len) - 1) | first_int;
    let last = int_to_ip(&last_int, bits).ok_or_else(|| "address out of range".to_string())?;
    Ok((first, last))
}

fn check_ipv4(ip: &[u8]) -> Vec<u8> {
    to4(ip).unwrap_or(ip).to_vec()
}

fn increment(ip: &[u8]) -> Vec<u8> {
    let mut out = check_ipv4(ip);
    for byte in out.iter_mut().rev() {
        *byte = byte.wrapping_add(1);
        if *byte > 0 {
            break;
        }
    }
    out
}

fn decrement(ip: &[u8]) -> Vec<u8> {
    let mut out = check_ipv4(ip);
    for byte in out.iter_mut().rev() {
        *byte = byte.wrapping_sub(1);
        if *byte < 255 {
            break;
        }
    }
    out
}

fn previous_subnet(network: &IpNet, prefix_len: i64) -> IpNet {
    let start = check_ipv4(&network.ip);
    let mask = cidr_mask(prefix_len, (8 * start.len()) as i64);
    let previous = decrement(&start);
    IpNet {
        ip: mask_ip(&previous, &mask),
        mask,
    }
}

fn next_subnet(network: &IpNet, prefix_len: i64) -> Result<(IpNet, bool), String> {
    let (_, current_last) = address_range(network)?;
    let mask = cidr_mask(prefix_len, (8 * current_last.len()) as i64);
    let current = IpNet {
        ip: mask_ip(&current_last, &mask),
        mask: mask.clone(),
    };
    let (_, last) = address_range(&current)?;
    let last = increment(&last);
    let rollover = is_zero_address(&last);
    Ok((
        IpNet {
            ip: mask_ip(&last, &mask),
            mask,
        },
        rollover,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::call::CallError;
    use super::super::testing::{self, num, s, try_call};
    use terrace_value::{Type, Value};

    fn expect_string(name: &str, args: Vec<Value>, want: &str) {
        let got = try_call(name, args.clone())
            .unwrap_or_else(|e| panic!("{name}({args:?}) failed: {e:?}"));
        assert_eq!(got.as_str(), Some(want), "{name}({args:?})");
    }

    #[track_caller]
    fn expect_error(name: &str, args: Vec<Value>, argument: Option<usize>, message: &str) {
        testing::call(name, args, testing::err_at(argument, message))
    }

    #[test]
    fn cidrhost_matches_terraform() {
        let cases: &[(&str, &str, &str)] = &[
            ("10.12.112.0/20", "16", "10.12.112.16"),
            ("10.12.112.0/20", "268", "10.12.113.12"),
            ("10.12.112.0/20", "-1", "10.12.127.255"),
            ("10.12.112.0/20", "-4096", "10.12.112.0"),
            ("10.12.112.0/20", "4095", "10.12.127.255"),
            (
                "fd00:fd12:3456:7890:00a2::/72",
                "34",
                "fd00:fd12:3456:7890::22",
            ),
            (
                "fd00::/64",
                "18446744073709551615",
                "fd00::ffff:ffff:ffff:ffff",
            ),
            ("fd00::/64", "18446744073709551616", "fd00:0:0:1::"),
            (
                "fd00::/8",
                "1208925819614629174706175",
                "fd00::ffff:ffff:ffff:ffff:ffff",
            ),
            ("fd00::/8", "-1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
            ("0.0.0.0/0", "-1", "255.255.255.255"),
            ("010.001.0.0/16", "5", "10.1.0.5"),
            ("1.2.3.4/32", "0", "1.2.3.4"),
            ("::ffff:10.0.0.0/120", "5", "0:5::ffff:a00:0"),
            ("10.1.2.3/8", "0", "10.0.0.0"),
            ("1.2.3.4/01", "0", "0.0.0.0"),
            ("FD00::/64", "10", "fd00::a"),
            ("::1.2.3.4/96", "10", "::a"),
            ("::/0", "255", "::ff"),
            ("2001:db8::/32", "65536", "2001:db8::1:0"),
        ];
        for (prefix, host, want) in cases {
            expect_string("cidrhost", vec![s(prefix), num(host)], want);
        }
    }

    #[test]
    fn cidrhost_errors_match_terraform() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "10.12.112.0/20",
                "-4097",
                "prefix of 20 does not accommodate a host numbered -1",
            ),
            (
                "10.12.112.0/20",
                "4096",
                "prefix of 20 does not accommodate a host numbered 4096",
            ),
            (
                "10.0.0.0/8",
                "1e30",
                "prefix of 8 does not accommodate a host numbered 1000000000000000000000000000000",
            ),
            (
                "10.0.0.0/8",
                "-16777217",
                "prefix of 8 does not accommodate a host numbered -1",
            ),
            (
                "10.0.0.0/8",
                "-36893488147419103232",
                "prefix of 8 does not accommodate a host numbered -36893488147402326016",
            ),
            ("10.0.0.0/8", "1.5", "value must be a whole number"),
            (
                "10.0.0.0",
                "1",
                "invalid CIDR expression: invalid CIDR address: 10.0.0.0",
            ),
            (
                "10.0.0.0/33",
                "1",
                "invalid CIDR expression: invalid CIDR address: 10.0.0.0/33",
            ),
            (
                "1.2.3.4/-1",
                "0",
                "invalid CIDR expression: invalid CIDR address: 1.2.3.4/-1",
            ),
            (
                "1.2.3.4/+1",
                "0",
                "invalid CIDR expression: invalid CIDR address: 1.2.3.4/+1",
            ),
            (
                "1.2.3/8",
                "0",
                "invalid CIDR expression: invalid CIDR address: 1.2.3/8",
            ),
            (
                "::/129",
                "0",
                "invalid CIDR expression: invalid CIDR address: ::/129",
            ),
            (
                "1::2::3/64",
                "0",
                "invalid CIDR expression: invalid CIDR address: 1::2::3/64",
            ),
        ];
        for (prefix, host, message) in cases {
            expect_error("cidrhost", vec![s(prefix), num(host)], None, message);
        }
        expect_error(
            "cidrhost",
            vec![s("10.0.0.0/8"), Value::null(Type::Number)],
            Some(1),
            "argument must not be null",
        );
    }

    #[test]
    fn cidrnetmask_matches_terraform() {
        expect_string("cidrnetmask", vec![s("172.16.0.0/12")], "255.240.0.0");
        expect_string("cidrnetmask", vec![s("10.0.0.0/0")], "0.0.0.0");
        expect_string("cidrnetmask", vec![s("10.0.0.0/32")], "255.255.255.255");
        expect_string(
            "cidrnetmask",
            vec![s("::ffff:10.0.0.0/120")],
            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00",
        );
        expect_error(
            "cidrnetmask",
            vec![s("fd00::/64")],
            None,
            "IPv6 addresses cannot have a netmask: fd00::/64",
        );
        expect_error(
            "cidrnetmask",
            vec![s("foo")],
            None,
            "invalid CIDR expression: invalid CIDR address: foo",
        );
    }

    #[test]
    fn cidrsubnet_matches_terraform() {
        let cases: &[(&str, &str, &str, &str)] = &[
            ("172.16.0.0/12", "4", "2", "172.18.0.0/16"),
            ("10.1.2.0/24", "4", "15", "10.1.2.240/28"),
            (
                "fd00:fd12:3456:7890::/56",
                "16",
                "162",
                "fd00:fd12:3456:7800:a200::/72",
            ),
            ("10.1.2.0/24", "4", "-1", "0.0.0.16/28"),
            ("10.1.2.0/24", "-1", "0", "10.1.2.0/23"),
            ("10.1.2.0/24", "0", "0", "10.1.2.0/24"),
            ("10.1.2.0/24", "-24", "0", "10.1.2.0/0"),
            ("10.1.2.0/24", "-25", "0", "<nil>"),
            ("10.1.2.0/24", "-30", "0", "<nil>"),
            (
                "fd00::/8",
                "64",
                "18446744073709551615",
                "fdff:ffff:ffff:ffff:ff00::/72",
            ),
            ("fd00::/8", "70", "18446744073709551616", "fd04::/78"),
            ("fd00::/8", "65", "1", "fd00::80:0:0:0/73"),
            ("fd00::/8", "64", "18446744073709551616", "fd00::/72"),
            ("::ffff:10.0.0.0/104", "8", "1", "10.1.0.0/16"),
            ("10.1.2.3/8", "8", "1", "10.1.0.0/16"),
            ("10.0.0.0/8", "24", "16777215", "10.255.255.255/32"),
        ];
        for (prefix, newbits, netnum, want) in cases {
            expect_string(
                "cidrsubnet",
                vec![s(prefix), num(newbits), num(netnum)],
                want,
            );
        }
    }

    #[test]
    fn cidrsubnet_errors_match_terraform() {
        let cases: &[(&str, &str, &str, &str)] = &[
            ("10.1.2.0/24", "4", "16", "prefix extension of 4 does not accommodate a subnet numbered 16"),
            ("10.1.2.0/24", "9", "1", "insufficient address space to extend prefix of 24 by 9"),
            ("10.1.2.0/24", "8", "-256", "prefix extension of 8 does not accommodate a subnet numbered -256"),
            ("10.1.2.0/24", "64", "0", "insufficient address space to extend prefix of 24 by 64"),
            ("fd00::/8", "121", "0", "insufficient address space to extend prefix of 8 by 121"),
            (
                "10.0.0.0/8",
                "4",
                "9223372036854775808",
                "prefix extension of 4 does not accommodate a subnet numbered 9223372036854775808",
            ),
            (
                "10.0.0.0/8",
                "4",
                "-9223372036854775808",
                "prefix extension of 4 does not accommodate a subnet numbered -9223372036854775808",
            ),
            (
                "10.0.0.0/8",
                "1.5",
                "1",
                "value must be a whole number, between -9223372036854775808 and 9223372036854775807",
            ),
            ("10.0.0.0/8", "8", "0.5", "value must be a whole number"),
            // Terraform panics here (index out of range in go-cidr).
            (
                "10.0.0.0/8",
                "4",
                "18446744073709551616",
                "prefix extension of 4 does not accommodate a subnet numbered 18446744073709551616",
            ),
        ];
        for (prefix, newbits, netnum, message) in cases {
            expect_error(
                "cidrsubnet",
                vec![s(prefix), num(newbits), num(netnum)],
                None,
                message,
            );
        }
    }

    fn subnets(prefix: &str, newbits: &[&str]) -> Result<Value, CallError> {
        let mut args = vec![s(prefix)];
        args.extend(newbits.iter().map(|n| num(n)));
        try_call("cidrsubnets", args)
    }

    #[test]
    fn cidrsubnets_matches_terraform() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "10.1.0.0/16",
                &["4", "4", "8", "4"],
                &[
                    "10.1.0.0/20",
                    "10.1.16.0/20",
                    "10.1.32.0/24",
                    "10.1.48.0/20",
                ],
            ),
            (
                "fd00:fd12:3456:7890::/56",
                &["16", "16", "16", "32"],
                &[
                    "fd00:fd12:3456:7800::/72",
                    "fd00:fd12:3456:7800:100::/72",
                    "fd00:fd12:3456:7800:200::/72",
                    "fd00:fd12:3456:7800:300::/88",
                ],
            ),
            ("10.1.0.0/16", &[], &[]),
            ("10.1.0.0/16", &["8", "4"], &["10.1.0.0/24", "10.1.16.0/20"]),
            (
                "255.255.255.0/24",
                &["1", "1"],
                &["255.255.255.0/25", "255.255.255.128/25"],
            ),
            ("fd00::/8", &["32"], &["fd00::/40"]),
            ("fd00::/120", &["8"], &["fd00::/128"]),
            ("10.1.2.3/8", &["8", "8"], &["10.0.0.0/16", "10.1.0.0/16"]),
            (
                "10.1.0.0/16",
                &["16", "16"],
                &["10.1.0.0/32", "10.1.0.1/32"],
            ),
            (
                "10.1.0.0/16",
                &["2", "1"],
                &["10.1.0.0/18", "10.1.128.0/17"],
            ),
        ];
        for (prefix, newbits, want) in cases {
            let got = subnets(prefix, newbits)
                .unwrap_or_else(|e| panic!("cidrsubnets({prefix}, {newbits:?}): {e:?}"));
            assert_eq!(got.ty(), &Type::list(Type::String));
            let got: Vec<&str> = got
                .as_elements()
                .unwrap_or(&[])
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert_eq!(&got, want, "cidrsubnets({prefix}, {newbits:?})");
        }
    }

    #[test]
    fn cidrsubnets_errors_match_terraform() {
        let cases: &[(&str, &[&str], usize, &str)] = &[
            ("10.1.0.0/16", &["0"], 1, "must extend prefix by at least one bit"),
            ("10.1.0.0/16", &["17"], 1, "would extend prefix to 33 bits, which is too long for an IPv4 address"),
            (
                "10.1.0.0/16",
                &["1", "1", "1"],
                3,
                "not enough remaining address space for a subnet with a prefix of 17 bits after 10.1.128.0/17",
            ),
            (
                "10.1.0.0/16",
                &["1.5"],
                1,
                "value must be a whole number, between -9223372036854775808 and 9223372036854775807",
            ),
            (
                "0.0.0.0/0",
                &["1", "1"],
                1,
                "not enough remaining address space for a subnet with a prefix of 1 bits after 128.0.0.0/1",
            ),
            ("foo", &["1"], 0, "invalid CIDR expression: invalid CIDR address: foo"),
            (
                "::/0",
                &["1", "1"],
                1,
                "not enough remaining address space for a subnet with a prefix of 1 bits after 8000::/1",
            ),
            ("fd00::/8", &["33"], 1, "may not extend prefix by more than 32 bits"),
            (
                "0.0.0.0/1",
                &["1"],
                1,
                "not enough remaining address space for a subnet with a prefix of 2 bits after 192.0.0.0/2",
            ),
            ("10.0.0.0/8", &["1", "0"], 2, "must extend prefix by at least one bit"),
            ("10.0.0.0/8", &["1", "1", "25"], 3, "would extend prefix to 33 bits, which is too long for an IPv4 address"),
            (
                "::ffff:10.0.0.0/104",
                &["8", "8"],
                1,
                "not enough remaining address space for a subnet with a prefix of 112 bits after <nil>",
            ),
        ];
        for (prefix, newbits, argument, message) in cases {
            let mut args = vec![s(prefix)];
            args.extend(newbits.iter().map(|n| num(n)));
            expect_error("cidrsubnets", args, Some(*argument), message);
        }
    }

    #[test]
    fn cidrcontains_matches_opentofu() {
        let cases: &[(&str, &str, bool)] = &[
            ("10.0.0.0/8", "10.1.0.0", true),
            ("10.0.0.0/8", "11.1.0.0", false),
            ("10.0.0.0/8", "10.1.0.0/16", true),
            ("10.0.0.0/16", "10.0.0.0/8", false),
            ("fd00::/8", "fd00::1", true),
        ];
        for (prefix, addr, want) in cases {
            let got = try_call("cidrcontains", vec![s(prefix), s(addr)]).expect("cidrcontains");
            assert_eq!(got.as_bool(), Some(*want), "cidrcontains({prefix}, {addr})");
        }
        expect_error(
            "cidrcontains",
            vec![s("10.0.0.0/8"), s("fd00::1")],
            None,
            "address family mismatch: 10.0.0.0/8 vs. fd00::1",
        );
        expect_error(
            "cidrcontains",
            vec![s("10.0.0.0/8"), s("nope")],
            None,
            "invalid IP address or prefix: nope",
        );
    }
}
