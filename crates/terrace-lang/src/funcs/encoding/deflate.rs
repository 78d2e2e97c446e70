//! gzip as Go's `compress/gzip` writes it at the default level, for
//! `base64gzip`, and a gzip reader for OpenTofu's `base64gunzip`.
//!
//! The compressed bytes end up in configurations and state (user data,
//! archive hashes), so they must match Terraform's exactly. DEFLATE leaves
//! the encoder many choices; this is a port of the choices Go's
//! `compress/flate` makes at level 6: its hash chains and lazy matching,
//! block splitting every 16384 tokens, the stored/fixed/dynamic block
//! decision and its length-limited Huffman code construction. Terraform
//! writes the data, flushes (an empty stored block), then closes (a final
//! empty stored block).

use terrace_value::crc32::checksum_ieee;

// ===== compression =====

const WINDOW_SIZE: usize = 1 << 15;
const WINDOW_MASK: usize = WINDOW_SIZE - 1;
const MIN_MATCH_LENGTH: usize = 4;
const MAX_MATCH_LENGTH: usize = 258;
const BASE_MATCH_LENGTH: usize = 3;
const BASE_MATCH_OFFSET: usize = 1;
const MAX_FLATE_BLOCK_TOKENS: usize = 1 << 14;
const MAX_STORE_BLOCK_SIZE: usize = 65535;
const HASH_BITS: u32 = 17;
const HASH_SIZE: usize = 1 << HASH_BITS;
const HASH_MASK: u32 = (1 << HASH_BITS) - 1;
const MAX_HASH_OFFSET: i64 = 1 << 24;

// Level 6.
const GOOD: usize = 8;
const LAZY: usize = 16;
const NICE: usize = 128;
const CHAIN: usize = 128;

const END_BLOCK_MARKER: usize = 256;
const LENGTH_CODES_START: usize = 257;
const MAX_NUM_LIT: usize = 286;
const OFFSET_CODE_COUNT: usize = 30;
const CODEGEN_CODE_COUNT: usize = 19;
const BAD_CODE: u8 = 255;

const LENGTH_EXTRA_BITS: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const LENGTH_BASE: [u32; 29] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128,
    160, 192, 224, 255,
];
const OFFSET_EXTRA_BITS: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
const OFFSET_BASE: [u32; 30] = [
    0x000000, 0x000001, 0x000002, 0x000003, 0x000004, 0x000006, 0x000008, 0x00000c, 0x000010,
    0x000018, 0x000020, 0x000030, 0x000040, 0x000060, 0x000080, 0x0000c0, 0x000100, 0x000180,
    0x000200, 0x000300, 0x000400, 0x000600, 0x000800, 0x000c00, 0x001000, 0x001800, 0x002000,
    0x003000, 0x004000, 0x006000,
];
const CODEGEN_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// A literal byte, or a match as (length - 3, offset - 1).
#[derive(Clone, Copy)]
enum Token {
    Literal(u8),
    Match { length: u32, offset: u32 },
    EndOfBlock,
}

fn length_code(length: u32) -> usize {
    LENGTH_BASE
        .iter()
        .rposition(|&base| base <= length)
        .unwrap_or(0)
}

fn offset_code(offset: u32) -> usize {
    OFFSET_BASE
        .iter()
        .rposition(|&base| base <= offset)
        .unwrap_or(0)
}

fn reverse_bits(number: u16, bit_length: u16) -> u16 {
    (number << (16 - bit_length)).reverse_bits()
}

#[derive(Clone, Copy, Default)]
struct LiteralNode {
    literal: u16,
    freq: i32,
}

/// Go's `huffmanEncoder`: code lengths limited to `max_bits` with its
/// particular tie-breaking, codes assigned in literal order.
struct HuffmanEncoder {
    code: Vec<u16>,
    len: Vec<u16>,
}

impl HuffmanEncoder {
    fn new(size: usize) -> HuffmanEncoder {
        HuffmanEncoder {
            code: vec![0; size],
            len: vec![0; size],
        }
    }

    fn fixed_literal() -> HuffmanEncoder {
        let mut h = HuffmanEncoder::new(MAX_NUM_LIT);
        for ch in 0..MAX_NUM_LIT as u16 {
            let (bits, size) = match ch {
                0..=143 => (ch + 48, 8),
                144..=255 => (ch + 400 - 144, 9),
                256..=279 => (ch - 256, 7),
                _ => (ch + 192 - 280, 8),
            };
            h.code[ch as usize] = reverse_bits(bits, size);
            h.len[ch as usize] = size;
        }
        h
    }

    fn fixed_offset() -> HuffmanEncoder {
        let mut h = HuffmanEncoder::new(OFFSET_CODE_COUNT);
        for i in 0..OFFSET_CODE_COUNT {
            h.code[i] = reverse_bits(i as u16, 5);
            h.len[i] = 5;
        }
        h
    }

    fn bit_length(&self, freq: &[i32]) -> i64 {
        freq.iter()
            .enumerate()
            .filter(|(_, f)| **f != 0)
            .map(|(i, f)| i64::from(*f) * i64::from(self.len[i]))
            .sum()
    }

    /// How many literals get each code length (Go's `bitCounts`, a
    /// package-merge variant). `list` is sorted by frequency.
    fn bit_counts(list: &[LiteralNode], max_bits: i32) -> Vec<i32> {
        #[derive(Clone, Copy, Default)]
        struct Level {
            level: i32,
            last_freq: i32,
            next_char_freq: i32,
            next_pair_freq: i32,
            needed: i32,
        }
        const LIMIT: usize = 16;
        let n = list.len() as i32;
        let mut list = list.to_vec();
        list.push(LiteralNode {
            literal: u16::MAX,
            freq: i32::MAX,
        });
        let max_bits = max_bits.min(n - 1);
        let mut levels = [Level::default(); LIMIT + 1];
        let mut leaf_counts = [[0i32; LIMIT]; LIMIT];
        for level in 1..=max_bits {
            let l = level as usize;
            levels[l] = Level {
                level,
                last_freq: list[1].freq,
                next_char_freq: list[2].freq,
                next_pair_freq: list[0].freq + list[1].freq,
                needed: 0,
            };
            leaf_counts[l][l] = 2;
            if level == 1 {
                levels[l].next_pair_freq = i32::MAX;
            }
        }
        levels[max_bits as usize].needed = 2 * n - 4;
        let mut level = max_bits as usize;
        loop {
            if levels[level].next_pair_freq == i32::MAX && levels[level].next_char_freq == i32::MAX
            {
                levels[level].needed = 0;
                levels[level + 1].next_pair_freq = i32::MAX;
                level += 1;
                continue;
            }
            let prev_freq = levels[level].last_freq;
            if levels[level].next_char_freq < levels[level].next_pair_freq {
                let count = leaf_counts[level][level] + 1;
                levels[level].last_freq = levels[level].next_char_freq;
                leaf_counts[level][level] = count;
                levels[level].next_char_freq = list[count as usize].freq;
            } else {
                levels[level].last_freq = levels[level].next_pair_freq;
                let below = leaf_counts[level - 1];
                leaf_counts[level][..level].copy_from_slice(&below[..level]);
                levels[levels[level].level as usize - 1].needed = 2;
            }
            levels[level].needed -= 1;
            if levels[level].needed == 0 {
                if levels[level].level == max_bits {
                    break;
                }
                let up = levels[level].level as usize + 1;
                levels[up].next_pair_freq = prev_freq + levels[level].last_freq;
                level += 1;
            } else {
                while levels[level - 1].needed > 0 {
                    level -= 1;
                }
            }
        }
        let mut bit_count = vec![0i32; max_bits as usize + 1];
        let counts = leaf_counts[max_bits as usize];
        for (bits, level) in (1..=max_bits as usize).rev().enumerate() {
            bit_count[bits + 1] = counts[level] - counts[level - 1];
        }
        bit_count
    }

    fn generate(&mut self, freq: &[i32], max_bits: i32) {
        let mut list: Vec<LiteralNode> = Vec::with_capacity(freq.len());
        for (i, &f) in freq.iter().enumerate() {
            if f != 0 {
                list.push(LiteralNode {
                    literal: i as u16,
                    freq: f,
                });
            } else {
                self.len[i] = 0;
            }
        }
        if list.len() <= 2 {
            for (i, node) in list.iter().enumerate() {
                self.code[node.literal as usize] = i as u16;
                self.len[node.literal as usize] = 1;
            }
            return;
        }
        list.sort_by(|a, b| a.freq.cmp(&b.freq).then(a.literal.cmp(&b.literal)));
        let bit_count = Self::bit_counts(&list, max_bits);
        // Assign codes: the least frequent literals get the longest codes,
        // codes within one length in literal order.
        let mut code: u16 = 0;
        let mut remaining = list.len();
        for (n, &bits) in bit_count.iter().enumerate() {
            code <<= 1;
            if n == 0 || bits == 0 {
                continue;
            }
            let mut chunk = list[remaining - bits as usize..remaining].to_vec();
            chunk.sort_by_key(|node| node.literal);
            for node in chunk {
                self.code[node.literal as usize] = reverse_bits(code, n as u16);
                self.len[node.literal as usize] = n as u16;
                code = code.wrapping_add(1);
            }
            remaining -= bits as usize;
        }
    }
}

/// Go's `huffmanBitWriter`, writing straight into a byte vector.
struct BitWriter {
    out: Vec<u8>,
    bits: u64,
    nbits: u32,
    literal_freq: Vec<i32>,
    offset_freq: Vec<i32>,
    codegen_freq: [i32; CODEGEN_CODE_COUNT],
    codegen: Vec<u8>,
    literal_encoding: HuffmanEncoder,
    offset_encoding: HuffmanEncoder,
    codegen_encoding: HuffmanEncoder,
    fixed_literal: HuffmanEncoder,
    fixed_offset: HuffmanEncoder,
}

impl BitWriter {
    fn new() -> BitWriter {
        BitWriter {
            out: Vec::new(),
            bits: 0,
            nbits: 0,
            literal_freq: vec![0; MAX_NUM_LIT],
            offset_freq: vec![0; OFFSET_CODE_COUNT],
            codegen_freq: [0; CODEGEN_CODE_COUNT],
            codegen: vec![0; MAX_NUM_LIT + OFFSET_CODE_COUNT + 1],
            literal_encoding: HuffmanEncoder::new(MAX_NUM_LIT),
            offset_encoding: HuffmanEncoder::new(OFFSET_CODE_COUNT),
            codegen_encoding: HuffmanEncoder::new(CODEGEN_CODE_COUNT),
            fixed_literal: HuffmanEncoder::fixed_literal(),
            fixed_offset: HuffmanEncoder::fixed_offset(),
        }
    }

    fn write_bits(&mut self, value: u32, nb: u32) {
        self.bits |= u64::from(value) << self.nbits;
        self.nbits += nb;
        while self.nbits >= 8 {
            self.out.push(self.bits as u8);
            self.bits >>= 8;
            self.nbits -= 8;
        }
    }

    fn write_code(&mut self, code: u16, len: u16) {
        self.write_bits(u32::from(code), u32::from(len));
    }

    /// Pads to a byte boundary.
    fn flush(&mut self) {
        if self.nbits > 0 {
            self.out.push(self.bits as u8);
        }
        self.bits = 0;
        self.nbits = 0;
    }

    fn write_bytes(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    fn write_stored_header(&mut self, length: usize, eof: bool) {
        self.write_bits(u32::from(eof), 3);
        self.flush();
        self.write_bits(length as u32, 16);
        self.write_bits(u32::from(!(length as u16)), 16);
    }

    /// RFC 1951's run-length encoding of the code lengths.
    fn generate_codegen(&mut self, num_literals: usize, num_offsets: usize) {
        self.codegen_freq = [0; CODEGEN_CODE_COUNT];
        let codegen = &mut self.codegen;
        for (slot, &len) in codegen
            .iter_mut()
            .zip(&self.literal_encoding.len[..num_literals])
        {
            *slot = len as u8;
        }
        for (slot, &len) in codegen[num_literals..]
            .iter_mut()
            .zip(&self.offset_encoding.len[..num_offsets])
        {
            *slot = len as u8;
        }
        codegen[num_literals + num_offsets] = BAD_CODE;
        let mut size = codegen[0];
        let mut count: i32 = 1;
        let mut out_index = 0;
        let mut in_index = 1;
        while size != BAD_CODE {
            let next_size = codegen[in_index];
            in_index += 1;
            if next_size == size {
                count += 1;
                continue;
            }
            if size != 0 {
                codegen[out_index] = size;
                out_index += 1;
                self.codegen_freq[size as usize] += 1;
                count -= 1;
                while count >= 3 {
                    let n = count.min(6);
                    codegen[out_index] = 16;
                    codegen[out_index + 1] = (n - 3) as u8;
                    out_index += 2;
                    self.codegen_freq[16] += 1;
                    count -= n;
                }
            } else {
                while count >= 11 {
                    let n = count.min(138);
                    codegen[out_index] = 18;
                    codegen[out_index + 1] = (n - 11) as u8;
                    out_index += 2;
                    self.codegen_freq[18] += 1;
                    count -= n;
                }
                if count >= 3 {
                    codegen[out_index] = 17;
                    codegen[out_index + 1] = (count - 3) as u8;
                    out_index += 2;
                    self.codegen_freq[17] += 1;
                    count = 0;
                }
            }
            count -= 1;
            while count >= 0 {
                codegen[out_index] = size;
                out_index += 1;
                self.codegen_freq[size as usize] += 1;
                count -= 1;
            }
            size = next_size;
            count = 1;
        }
        codegen[out_index] = BAD_CODE;
    }

    fn dynamic_size(&self, extra_bits: i64) -> (i64, usize) {
        let mut num_codegens = self.codegen_freq.len();
        while num_codegens > 4 && self.codegen_freq[CODEGEN_ORDER[num_codegens - 1]] == 0 {
            num_codegens -= 1;
        }
        let header = 3
            + 5
            + 5
            + 4
            + 3 * num_codegens as i64
            + self.codegen_encoding.bit_length(&self.codegen_freq)
            + i64::from(self.codegen_freq[16]) * 2
            + i64::from(self.codegen_freq[17]) * 3
            + i64::from(self.codegen_freq[18]) * 7;
        let size = header
            + self.literal_encoding.bit_length(&self.literal_freq)
            + self.offset_encoding.bit_length(&self.offset_freq)
            + extra_bits;
        (size, num_codegens)
    }

    fn fixed_size(&self, extra_bits: i64) -> i64 {
        3 + self.fixed_literal.bit_length(&self.literal_freq)
            + self.fixed_offset.bit_length(&self.offset_freq)
            + extra_bits
    }

    fn write_dynamic_header(
        &mut self,
        num_literals: usize,
        num_offsets: usize,
        num_codegens: usize,
        eof: bool,
    ) {
        self.write_bits(if eof { 5 } else { 4 }, 3);
        self.write_bits((num_literals - 257) as u32, 5);
        self.write_bits((num_offsets - 1) as u32, 5);
        self.write_bits((num_codegens - 4) as u32, 4);
        for &index in CODEGEN_ORDER.iter().take(num_codegens) {
            let value = self.codegen_encoding.len[index];
            self.write_bits(u32::from(value), 3);
        }
        let mut i = 0;
        loop {
            let code_word = self.codegen[i];
            i += 1;
            if code_word == BAD_CODE {
                break;
            }
            let (code, len) = (
                self.codegen_encoding.code[code_word as usize],
                self.codegen_encoding.len[code_word as usize],
            );
            self.write_code(code, len);
            let extra = match code_word {
                16 => 2,
                17 => 3,
                18 => 7,
                _ => 0,
            };
            if extra > 0 {
                let value = self.codegen[i];
                self.write_bits(u32::from(value), extra);
                i += 1;
            }
        }
    }

    fn index_tokens(&mut self, tokens: &[Token]) -> (usize, usize) {
        self.literal_freq.iter_mut().for_each(|f| *f = 0);
        self.offset_freq.iter_mut().for_each(|f| *f = 0);
        for token in tokens {
            match *token {
                Token::Literal(b) => self.literal_freq[b as usize] += 1,
                Token::EndOfBlock => self.literal_freq[END_BLOCK_MARKER] += 1,
                Token::Match { length, offset } => {
                    self.literal_freq[LENGTH_CODES_START + length_code(length)] += 1;
                    self.offset_freq[offset_code(offset)] += 1;
                }
            }
        }
        let mut num_literals = self.literal_freq.len();
        while self.literal_freq[num_literals - 1] == 0 {
            num_literals -= 1;
        }
        let mut num_offsets = self.offset_freq.len();
        while num_offsets > 0 && self.offset_freq[num_offsets - 1] == 0 {
            num_offsets -= 1;
        }
        if num_offsets == 0 {
            // The offset tree needs at least one code to be encodable.
            self.offset_freq[0] = 1;
            num_offsets = 1;
        }
        self.literal_encoding.generate(&self.literal_freq, 15);
        self.offset_encoding.generate(&self.offset_freq, 15);
        (num_literals, num_offsets)
    }

    /// The smallest of a stored, fixed or dynamic block for the tokens.
    fn write_block(&mut self, tokens: &[Token], eof: bool, input: Option<&[u8]>) {
        let mut tokens = tokens.to_vec();
        tokens.push(Token::EndOfBlock);
        let (num_literals, num_offsets) = self.index_tokens(&tokens);

        let stored = input.filter(|i| i.len() <= MAX_STORE_BLOCK_SIZE);
        let mut extra_bits: i64 = 0;
        if stored.is_some() {
            for code in LENGTH_CODES_START + 8..num_literals {
                extra_bits += i64::from(self.literal_freq[code])
                    * i64::from(LENGTH_EXTRA_BITS[code - LENGTH_CODES_START]);
            }
            for (freq, extra) in self.offset_freq[..num_offsets]
                .iter()
                .zip(OFFSET_EXTRA_BITS)
                .skip(4)
            {
                extra_bits += i64::from(*freq) * i64::from(extra);
            }
        }
        let mut size = self.fixed_size(extra_bits);
        let mut use_dynamic = false;
        self.generate_codegen(num_literals, num_offsets);
        let codegen_freq = self.codegen_freq;
        self.codegen_encoding.generate(&codegen_freq, 7);
        let (dynamic_size, num_codegens) = self.dynamic_size(extra_bits);
        if dynamic_size < size {
            size = dynamic_size;
            use_dynamic = true;
        }
        if let Some(input) = stored {
            if (((input.len() + 5) * 8) as i64) < size {
                self.write_stored_header(input.len(), eof);
                self.write_bytes(input);
                return;
            }
        }
        if use_dynamic {
            self.write_dynamic_header(num_literals, num_offsets, num_codegens, eof);
        } else {
            self.write_bits(if eof { 3 } else { 2 }, 3);
        }
        for token in &tokens {
            let (lit, off) = if use_dynamic {
                (&self.literal_encoding, &self.offset_encoding)
            } else {
                (&self.fixed_literal, &self.fixed_offset)
            };
            match *token {
                Token::Literal(b) => {
                    let (code, len) = (lit.code[b as usize], lit.len[b as usize]);
                    self.write_code(code, len);
                }
                Token::EndOfBlock => {
                    let (code, len) = (lit.code[END_BLOCK_MARKER], lit.len[END_BLOCK_MARKER]);
                    self.write_code(code, len);
                }
                Token::Match { length, offset } => {
                    let lc = length_code(length);
                    let (code, len) = (
                        lit.code[lc + LENGTH_CODES_START],
                        lit.len[lc + LENGTH_CODES_START],
                    );
                    let oc = offset_code(offset);
                    let (ocode, olen) = (off.code[oc], off.len[oc]);
                    self.write_code(code, len);
                    if LENGTH_EXTRA_BITS[lc] > 0 {
                        self.write_bits(length - LENGTH_BASE[lc], u32::from(LENGTH_EXTRA_BITS[lc]));
                    }
                    self.write_code(ocode, olen);
                    if OFFSET_EXTRA_BITS[oc] > 0 {
                        self.write_bits(offset - OFFSET_BASE[oc], u32::from(OFFSET_EXTRA_BITS[oc]));
                    }
                }
            }
        }
    }
}

fn hash4(b: &[u8]) -> u32 {
    const HASHMUL: u32 = 0x1e35_a7bd;
    let v = u32::from(b[3]) | u32::from(b[2]) << 8 | u32::from(b[1]) << 16 | u32::from(b[0]) << 24;
    v.wrapping_mul(HASHMUL) >> (32 - HASH_BITS)
}

/// Go's `compressor` at level 6.
struct Compressor {
    w: BitWriter,
    sync: bool,
    chain_head: i64,
    hash_head: Vec<u32>,
    hash_prev: Vec<u32>,
    hash_offset: i64,
    index: usize,
    window: Vec<u8>,
    window_end: usize,
    /// `None` stands for Go's `math.MaxInt32` ("no block start in window").
    block_start: Option<usize>,
    byte_available: bool,
    tokens: Vec<Token>,
    length: usize,
    offset: usize,
    max_insert_index: i64,
}

impl Compressor {
    fn new() -> Compressor {
        Compressor {
            w: BitWriter::new(),
            sync: false,
            chain_head: -1,
            hash_head: vec![0; HASH_SIZE],
            hash_prev: vec![0; WINDOW_SIZE],
            hash_offset: 1,
            index: 0,
            window: vec![0; 2 * WINDOW_SIZE],
            window_end: 0,
            block_start: Some(0),
            byte_available: false,
            tokens: Vec::with_capacity(MAX_FLATE_BLOCK_TOKENS + 1),
            length: MIN_MATCH_LENGTH - 1,
            offset: 0,
            max_insert_index: 0,
        }
    }

    fn fill(&mut self, b: &[u8]) -> usize {
        if self.index >= 2 * WINDOW_SIZE - (MIN_MATCH_LENGTH + MAX_MATCH_LENGTH) {
            self.window.copy_within(WINDOW_SIZE..2 * WINDOW_SIZE, 0);
            self.index -= WINDOW_SIZE;
            self.window_end -= WINDOW_SIZE;
            self.block_start = self
                .block_start
                .filter(|&s| s >= WINDOW_SIZE)
                .map(|s| s - WINDOW_SIZE);
            self.hash_offset += WINDOW_SIZE as i64;
            if self.hash_offset > MAX_HASH_OFFSET {
                let delta = self.hash_offset - 1;
                self.hash_offset -= delta;
                self.chain_head -= delta;
                for v in self.hash_prev.iter_mut().chain(self.hash_head.iter_mut()) {
                    *v = if i64::from(*v) > delta {
                        (i64::from(*v) - delta) as u32
                    } else {
                        0
                    };
                }
            }
        }
        let n = b.len().min(self.window.len() - self.window_end);
        self.window[self.window_end..self.window_end + n].copy_from_slice(&b[..n]);
        self.window_end += n;
        n
    }

    fn write_block(&mut self, index: usize) {
        if index > 0 {
            let window = match self.block_start {
                Some(start) if start <= index => Some(start..index),
                _ => None,
            };
            self.block_start = Some(index);
            let tokens = std::mem::take(&mut self.tokens);
            self.w
                .write_block(&tokens, false, window.map(|r| &self.window[r]));
            self.tokens = tokens;
        }
        self.tokens.clear();
    }

    fn find_match(
        &self,
        pos: usize,
        prev_head: i64,
        prev_length: usize,
        lookahead: usize,
    ) -> Option<(usize, usize)> {
        let min_match_look = MAX_MATCH_LENGTH.min(lookahead);
        let win = &self.window[..pos + min_match_look];
        let nice = (win.len() - pos).min(NICE);
        let mut tries = CHAIN;
        let mut length = prev_length;
        if length >= GOOD {
            tries >>= 2;
        }
        let mut w_end = win[pos + length];
        let w_pos = &win[pos..];
        let min_index = pos as i64 - WINDOW_SIZE as i64;
        let mut found = None;
        let mut i = prev_head;
        while tries > 0 {
            let iu = i as usize;
            if w_end == win[iu + length] {
                let n = win[iu..iu + min_match_look]
                    .iter()
                    .zip(&w_pos[..min_match_look])
                    .take_while(|(a, b)| a == b)
                    .count();
                if n > length && (n > MIN_MATCH_LENGTH || pos - iu <= 4096) {
                    length = n;
                    found = Some((n, pos - iu));
                    if n >= nice {
                        break;
                    }
                    w_end = win[pos + n];
                }
            }
            if i == min_index {
                break;
            }
            i = i64::from(self.hash_prev[iu & WINDOW_MASK]) - self.hash_offset;
            if i < min_index || i < 0 {
                break;
            }
            tries -= 1;
        }
        found
    }

    fn insert_hash(&mut self, index: usize) {
        let hash = hash4(&self.window[index..index + MIN_MATCH_LENGTH]);
        let head = &mut self.hash_head[(hash & HASH_MASK) as usize];
        self.hash_prev[index & WINDOW_MASK] = *head;
        *head = (index as i64 + self.hash_offset) as u32;
    }

    fn deflate(&mut self) {
        if self.window_end - self.index < MIN_MATCH_LENGTH + MAX_MATCH_LENGTH && !self.sync {
            return;
        }
        self.max_insert_index = self.window_end as i64 - (MIN_MATCH_LENGTH as i64 - 1);
        loop {
            let lookahead = self.window_end - self.index;
            if lookahead < MIN_MATCH_LENGTH + MAX_MATCH_LENGTH {
                if !self.sync {
                    break;
                }
                if lookahead == 0 {
                    if self.byte_available {
                        self.tokens
                            .push(Token::Literal(self.window[self.index - 1]));
                        self.byte_available = false;
                    }
                    if !self.tokens.is_empty() {
                        self.write_block(self.index);
                    }
                    break;
                }
            }
            if (self.index as i64) < self.max_insert_index {
                let hash = hash4(&self.window[self.index..self.index + MIN_MATCH_LENGTH]);
                let head = &mut self.hash_head[(hash & HASH_MASK) as usize];
                self.chain_head = i64::from(*head);
                self.hash_prev[self.index & WINDOW_MASK] = self.chain_head as u32;
                *head = (self.index as i64 + self.hash_offset) as u32;
            }
            let prev_length = self.length;
            let prev_offset = self.offset;
            self.length = MIN_MATCH_LENGTH - 1;
            self.offset = 0;
            let min_index = (self.index as i64 - WINDOW_SIZE as i64).max(0);

            if self.chain_head - self.hash_offset >= min_index
                && lookahead > prev_length
                && prev_length < LAZY
            {
                if let Some((length, offset)) = self.find_match(
                    self.index,
                    self.chain_head - self.hash_offset,
                    MIN_MATCH_LENGTH - 1,
                    lookahead,
                ) {
                    self.length = length;
                    self.offset = offset;
                }
            }
            if prev_length >= MIN_MATCH_LENGTH && self.length <= prev_length {
                // The previous match is at least as good: emit it.
                self.tokens.push(Token::Match {
                    length: (prev_length - BASE_MATCH_LENGTH) as u32,
                    offset: (prev_offset - BASE_MATCH_OFFSET) as u32,
                });
                let new_index = self.index + prev_length - 1;
                self.index += 1;
                while self.index < new_index {
                    if (self.index as i64) < self.max_insert_index {
                        self.insert_hash(self.index);
                    }
                    self.index += 1;
                }
                self.byte_available = false;
                self.length = MIN_MATCH_LENGTH - 1;
                if self.tokens.len() == MAX_FLATE_BLOCK_TOKENS {
                    self.write_block(self.index);
                }
            } else {
                if self.byte_available {
                    let i = self.index - 1;
                    self.tokens.push(Token::Literal(self.window[i]));
                    if self.tokens.len() == MAX_FLATE_BLOCK_TOKENS {
                        self.write_block(i + 1);
                    }
                }
                self.index += 1;
                self.byte_available = true;
            }
        }
    }

    fn write(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            self.deflate();
            let n = self.fill(data);
            data = &data[n..];
        }
    }

    fn sync_flush(&mut self) {
        self.sync = true;
        self.deflate();
        self.w.write_stored_header(0, false);
        self.w.flush();
        self.sync = false;
    }

    fn close(mut self) -> Vec<u8> {
        self.sync = true;
        self.deflate();
        self.w.write_stored_header(0, true);
        self.w.flush();
        self.w.out
    }
}

/// What `base64gzip` compresses: a gzip member written, flushed and closed
/// by Go's `gzip.Writer` at the default level.
pub(super) fn gzip(data: &[u8]) -> Vec<u8> {
    // No name, no modification time, "unknown" operating system.
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let mut compressor = Compressor::new();
    compressor.write(data);
    compressor.sync_flush();
    out.extend_from_slice(&compressor.close());
    out.extend_from_slice(&checksum_ieee(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

// ===== decompression =====

struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    bit: u32,
}

const CORRUPT: &str = "corrupt";

impl BitReader<'_> {
    fn bits(&mut self, n: u32) -> Result<u32, &'static str> {
        let mut value = 0u32;
        for i in 0..n {
            let byte = *self.data.get(self.pos).ok_or("unexpected EOF")?;
            value |= u32::from((byte >> self.bit) & 1) << i;
            self.bit += 1;
            if self.bit == 8 {
                self.bit = 0;
                self.pos += 1;
            }
        }
        Ok(value)
    }

    fn align(&mut self) {
        if self.bit != 0 {
            self.bit = 0;
            self.pos += 1;
        }
    }
}

/// A canonical Huffman decoding table: (code length, code) to symbol.
struct Decoder {
    counts: [u16; 16],
    symbols: Vec<u16>,
}

impl Decoder {
    fn new(lengths: &[u8]) -> Result<Decoder, &'static str> {
        let mut counts = [0u16; 16];
        for &l in lengths {
            counts[l as usize] += 1;
        }
        counts[0] = 0;
        let mut left: i32 = 1;
        for &count in &counts[1..] {
            left = left * 2 - i32::from(count);
            if left < 0 {
                return Err(CORRUPT);
            }
        }
        let mut offsets = [0u16; 16];
        for i in 1..15 {
            offsets[i + 1] = offsets[i] + counts[i];
        }
        let mut symbols = vec![0u16; lengths.len()];
        for (symbol, &l) in lengths.iter().enumerate() {
            if l != 0 {
                symbols[offsets[l as usize] as usize] = symbol as u16;
                offsets[l as usize] += 1;
            }
        }
        Ok(Decoder { counts, symbols })
    }

    fn decode(&self, r: &mut BitReader<'_>) -> Result<u16, &'static str> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..16 {
            code |= r.bits(1)? as i32;
            let count = i32::from(self.counts[len]);
            if code - count < first {
                return self
                    .symbols
                    .get((index + code - first) as usize)
                    .copied()
                    .ok_or(CORRUPT);
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err(CORRUPT)
    }
}

fn inflate(r: &mut BitReader<'_>, out: &mut Vec<u8>) -> Result<(), &'static str> {
    loop {
        let last = r.bits(1)?;
        match r.bits(2)? {
            0 => {
                r.align();
                let header = r.data.get(r.pos..r.pos + 4).ok_or("unexpected EOF")?;
                let len = u16::from_le_bytes([header[0], header[1]]);
                let nlen = u16::from_le_bytes([header[2], header[3]]);
                if len != !nlen {
                    return Err(CORRUPT);
                }
                r.pos += 4;
                let block = r
                    .data
                    .get(r.pos..r.pos + len as usize)
                    .ok_or("unexpected EOF")?;
                out.extend_from_slice(block);
                r.pos += len as usize;
            }
            kind @ (1 | 2) => {
                let (lit, dist) = if kind == 1 {
                    let mut lengths = [0u8; 288];
                    for (i, l) in lengths.iter_mut().enumerate() {
                        *l = match i {
                            0..=143 => 8,
                            144..=255 => 9,
                            256..=279 => 7,
                            _ => 8,
                        };
                    }
                    (Decoder::new(&lengths)?, Decoder::new(&[5u8; 30])?)
                } else {
                    let hlit = r.bits(5)? as usize + 257;
                    let hdist = r.bits(5)? as usize + 1;
                    let hclen = r.bits(4)? as usize + 4;
                    let mut code_lengths = [0u8; 19];
                    for &index in CODEGEN_ORDER.iter().take(hclen) {
                        code_lengths[index] = r.bits(3)? as u8;
                    }
                    let codegen = Decoder::new(&code_lengths)?;
                    let mut lengths = Vec::with_capacity(hlit + hdist);
                    while lengths.len() < hlit + hdist {
                        let symbol = codegen.decode(r)?;
                        match symbol {
                            0..=15 => lengths.push(symbol as u8),
                            16 => {
                                let previous = *lengths.last().ok_or(CORRUPT)?;
                                let n = 3 + r.bits(2)?;
                                lengths.extend(std::iter::repeat_n(previous, n as usize));
                            }
                            17 => {
                                let n = 3 + r.bits(3)?;
                                lengths.extend(std::iter::repeat_n(0, n as usize));
                            }
                            _ => {
                                let n = 11 + r.bits(7)?;
                                lengths.extend(std::iter::repeat_n(0, n as usize));
                            }
                        }
                    }
                    if lengths.len() != hlit + hdist {
                        return Err(CORRUPT);
                    }
                    (
                        Decoder::new(&lengths[..hlit])?,
                        Decoder::new(&lengths[hlit..])?,
                    )
                };
                loop {
                    let symbol = lit.decode(r)? as usize;
                    if symbol < 256 {
                        out.push(symbol as u8);
                    } else if symbol == 256 {
                        break;
                    } else {
                        let code = symbol - LENGTH_CODES_START;
                        if code >= 29 {
                            return Err(CORRUPT);
                        }
                        let length = LENGTH_BASE[code] as usize
                            + BASE_MATCH_LENGTH
                            + r.bits(u32::from(LENGTH_EXTRA_BITS[code]))? as usize;
                        let dcode = dist.decode(r)? as usize;
                        if dcode >= 30 {
                            return Err(CORRUPT);
                        }
                        let distance = OFFSET_BASE[dcode] as usize
                            + BASE_MATCH_OFFSET
                            + r.bits(u32::from(OFFSET_EXTRA_BITS[dcode]))? as usize;
                        if distance > out.len() {
                            return Err(CORRUPT);
                        }
                        for _ in 0..length {
                            out.push(out[out.len() - distance]);
                        }
                    }
                }
            }
            _ => return Err(CORRUPT),
        }
        if last == 1 {
            r.align();
            return Ok(());
        }
    }
}

/// Decompresses every gzip member in `data`, as Go's `gzip.Reader` does.
/// The error text is what OpenTofu's `base64gunzip` reports after its
/// "failed to ..." prefix.
pub(super) fn gunzip(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut first = true;
    loop {
        if !first && pos == data.len() {
            return Ok(out);
        }
        let header_error = |message: &str| {
            if first {
                format!("failed to gunzip bytestream: {message}")
            } else {
                format!("failed to read gunzip raw data: {message}")
            }
        };
        let rest = &data[pos..];
        if rest.is_empty() {
            return Err(header_error("EOF"));
        }
        if rest.len() < 10 {
            return Err(header_error("unexpected EOF"));
        }
        if rest[0] != 0x1f || rest[1] != 0x8b || rest[2] != 8 {
            return Err(header_error("gzip: invalid header"));
        }
        let flags = rest[3];
        let mut p = 10;
        if flags & 0x04 != 0 {
            let xlen = rest
                .get(p..p + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize);
            p += 2 + xlen.ok_or_else(|| header_error("unexpected EOF"))?;
        }
        for flag in [0x08, 0x10] {
            if flags & flag != 0 {
                let end = rest.get(p..).and_then(|r| r.iter().position(|&b| b == 0));
                p += end.ok_or_else(|| header_error("unexpected EOF"))? + 1;
            }
        }
        if flags & 0x02 != 0 {
            p += 2;
        }
        if p > rest.len() {
            return Err(header_error("unexpected EOF"));
        }
        let start = out.len();
        let mut reader = BitReader {
            data: rest,
            pos: p,
            bit: 0,
        };
        inflate(&mut reader, &mut out).map_err(|e| {
            let message = if e == CORRUPT {
                format!("flate: corrupt input before offset {}", pos + reader.pos)
            } else {
                e.to_string()
            };
            format!("failed to read gunzip raw data: {message}")
        })?;
        let trailer = rest
            .get(reader.pos..reader.pos + 8)
            .ok_or_else(|| "failed to read gunzip raw data: unexpected EOF".to_string())?;
        let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        let member = &out[start..];
        if crc != checksum_ieee(member) || size != member.len() as u32 {
            return Err("failed to read gunzip raw data: gzip: invalid checksum".to_string());
        }
        pos += reader.pos + 8;
        first = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_round_trips() {
        let mut inputs: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"test".to_vec(),
            b"hello hello hello hello hello hello hello hello hello hello".to_vec(),
        ];
        // Large and repetitive enough to need several blocks, window
        // shifts and long matches.
        let mut big = Vec::new();
        let mut state = 12345u32;
        for i in 0..300_000u32 {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            big.push(if i % 7 == 0 {
                (state >> 16) as u8
            } else {
                b"abcdefgh"[(i % 8) as usize]
            });
        }
        inputs.push(big);
        for input in inputs {
            let compressed = gzip(&input);
            assert_eq!(gunzip(&compressed).as_deref(), Ok(&input[..]));
        }
    }

    #[test]
    fn gunzip_errors() {
        assert_eq!(
            gunzip(b"nope nope nope"),
            Err("failed to gunzip bytestream: gzip: invalid header".to_string())
        );
        assert_eq!(
            gunzip(b""),
            Err("failed to gunzip bytestream: EOF".to_string())
        );
        let mut corrupt = gzip(b"some text");
        let n = corrupt.len();
        corrupt[n - 8] ^= 0xff;
        assert_eq!(
            gunzip(&corrupt),
            Err("failed to read gunzip raw data: gzip: invalid checksum".to_string())
        );
    }
}
