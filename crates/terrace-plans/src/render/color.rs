//! Terraform's colour markup (mitchellh/colorstring as Terraform vendors
//! it): `[green]`, `[bold]`, `[reset]`... become ANSI escapes, or vanish
//! with colour off; an unknown `[word]` stays as written; and a string in
//! which any known tag appeared gets a reset appended when colour is on.
//! Terraform runs whole lines, including addresses, through this, so the
//! renderer does too.

/// Whether to emit escapes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Colorize {
    pub(crate) enabled: bool,
}

fn code(name: &str) -> Option<&'static str> {
    Some(match name {
        "default" => "39",
        "_default_" => "49",
        "black" => "30",
        "red" => "31",
        "green" => "32",
        "yellow" => "33",
        "blue" => "34",
        "magenta" => "35",
        "cyan" => "36",
        "light_gray" => "37",
        "dark_gray" => "90",
        "light_red" => "91",
        "light_green" => "92",
        "light_yellow" => "93",
        "light_blue" => "94",
        "light_magenta" => "95",
        "light_cyan" => "96",
        "white" => "97",
        "_black_" => "40",
        "_red_" => "41",
        "_green_" => "42",
        "_yellow_" => "43",
        "_blue_" => "44",
        "_magenta_" => "45",
        "_cyan_" => "46",
        "_light_gray_" => "47",
        "_dark_gray_" => "100",
        "_light_red_" => "101",
        "_light_green_" => "102",
        "_light_yellow_" => "103",
        "_light_blue_" => "104",
        "_light_magenta_" => "105",
        "_light_cyan_" => "106",
        "_white_" => "107",
        "bold" => "1",
        "dim" => "2",
        "underline" => "4",
        "blink_slow" => "5",
        "blink_fast" => "6",
        "invert" => "7",
        "hidden" => "8",
        "reset" => "0",
        "reset_bold" => "21",
        _ => return None,
    })
}

impl Colorize {
    pub(crate) fn color(&self, s: &str) -> String {
        let bytes = s.as_bytes();
        let mut out = String::with_capacity(s.len() + 16);
        let mut colored = false;
        let mut last = 0;
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] != b'[' {
                i += 1;
                continue;
            }
            // The pattern is `(?i)\[[a-z0-9_-]+\]`.
            let mut j = i + 1;
            while j < bytes.len()
                && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_' || bytes[j] == b'-')
            {
                j += 1;
            }
            if j == i + 1 || j >= bytes.len() || bytes[j] != b']' {
                i += 1;
                continue;
            }
            let name = &s[i + 1..j];
            if let Some(c) = code(name) {
                out.push_str(&s[last..i]);
                colored = true;
                if self.enabled {
                    out.push_str("\x1b[");
                    out.push_str(c);
                    out.push('m');
                }
                last = j + 1;
            }
            i = j + 1;
        }
        out.push_str(&s[last..]);
        if colored && self.enabled {
            out.push_str("\x1b[0m");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup() {
        let on = Colorize { enabled: true };
        let off = Colorize { enabled: false };
        let cases = [
            ("plain", "plain", "plain"),
            ("  [green]+[reset]", "  \x1b[32m+\x1b[0m\x1b[0m", "  +"),
            ("a[\"k\"] [bold]x", "a[\"k\"] \x1b[1mx\x1b[0m", "a[\"k\"] x"),
            ("[nope] [0]", "[nope] [0]", "[nope] [0]"),
            ("[[red]]", "[\x1b[31m]\x1b[0m", "[]"),
        ];
        for (input, colored, plain) in cases {
            assert_eq!(on.color(input), colored, "{input}");
            assert_eq!(off.color(input), plain, "{input}");
        }
    }
}
