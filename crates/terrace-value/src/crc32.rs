//! CRC-32 with the IEEE polynomial, as Go's `hash/crc32` computes it: cty
//! orders set elements by the checksum of their hash text, and gzip members
//! (`base64gzip`, `base64gunzip`) carry it in their trailer.

use std::sync::OnceLock;

/// Go's `crc32.ChecksumIEEE`.
pub fn checksum_ieee(data: &[u8]) -> u32 {
    update_ieee(0, data)
}

/// Go's `crc32.Update` with the IEEE table: the checksum of what `crc` is
/// the checksum of, followed by `data`; for streams checked piece by piece.
pub fn update_ieee(crc: u32, data: &[u8]) -> u32 {
    static TABLE: OnceLock<[u32; 256]> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
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
    });
    !data.iter().fold(!crc, |crc, &b| {
        table[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_go() {
        let cases: &[(&[u8], u32)] = &[
            (b"", 0),
            (b"test", 0xd87f_7e0c),
            (b"123456789", 0xcbf4_3926),
            (b"The quick brown fox jumps over the lazy dog", 0x414f_a339),
        ];
        for &(data, want) in cases {
            assert_eq!(
                checksum_ieee(data),
                want,
                "{:?}",
                String::from_utf8_lossy(data)
            );
        }
    }
}
