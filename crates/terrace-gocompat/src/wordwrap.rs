//! go-wordwrap (github.com/mitchellh/go-wordwrap), which terraform wraps
//! diagnostics and plan paragraphs with.

/// go-wordwrap's `WrapString`, which terraform wraps its messages with:
/// breaks only at white space (not at a no-break space), never splits a
/// word longer than the limit, keeps the newlines already there.
pub fn wrap_string(s: &str, limit: usize) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut current = 0usize;
    let mut word = String::new();
    let mut word_len = 0usize;
    let mut space = String::new();
    let mut space_len = 0usize;
    for c in s.chars() {
        if c == '\n' {
            if word_len == 0 {
                if current + space_len <= limit {
                    out.push_str(&space);
                }
            } else {
                out.push_str(&space);
                out.push_str(&word);
                word.clear();
                word_len = 0;
            }
            space.clear();
            space_len = 0;
            out.push('\n');
            current = 0;
        } else if c.is_whitespace() && c != '\u{a0}' {
            if space_len == 0 || word_len > 0 {
                current += space_len + word_len;
                out.push_str(&space);
                out.push_str(&word);
                space.clear();
                space_len = 0;
                word.clear();
                word_len = 0;
            }
            space.push(c);
            space_len += 1;
        } else {
            word.push(c);
            word_len += 1;
            if current + space_len + word_len > limit && word_len < limit {
                out.push('\n');
                current = 0;
                space.clear();
                space_len = 0;
            }
        }
    }
    if word_len == 0 {
        if current + space_len <= limit {
            out.push_str(&space);
        }
    } else {
        out.push_str(&space);
        out.push_str(&word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrap_string;

    #[test]
    fn wraps_as_go_wordwrap() {
        assert_eq!(wrap_string("foo bar baz", 7), "foo bar\nbaz");
        assert_eq!(wrap_string("foo bar baz", 3), "foo\nbar\nbaz");
        // A word longer than the limit stays whole on its own line.
        assert_eq!(wrap_string("a verylongword b", 4), "a\nverylongword\nb");
        // Existing newlines are kept; no-break spaces do not break.
        assert_eq!(wrap_string("one two\nthree", 20), "one two\nthree");
        assert_eq!(wrap_string("a\u{a0}b c", 3), "a\u{a0}b\nc");
    }
}
