//! State lock metadata (`.terraform.tfstate.lock.info`) and lock errors,
//! in Terraform's formats: the compact JSON it writes next to a locked
//! state, the "Lock Info:" block it prints, and the "Error acquiring the
//! state lock" diagnostic.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use terrace_syntax::Diagnostic;

use crate::model::new_lineage;
use terrace_gocompat::json::{self as gojson, Json};
use terrace_syntax::PRODUCT;

/// Who holds a lock, and why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LockInfo {
    /// A random UUID; the lock holder's proof of ownership.
    pub id: String,
    /// What the holder is doing: `OperationTypeApply`, `OperationTypePlan`…
    pub operation: String,
    /// Free text from the holder.
    pub info: String,
    /// `user@host`.
    pub who: String,
    /// The holder's Terraform version.
    pub version: String,
    /// When the lock was taken, in Go's RFC 3339 form with nanoseconds
    /// (`2024-01-02T03:04:05.123456789Z`).
    pub created: String,
    /// The locked state file, as the holder named it.
    pub path: String,
}

impl LockInfo {
    /// Fresh lock metadata for `operation`: a random ID, this user and
    /// host, the current time.
    pub fn new(operation: impl Into<String>, version: impl Into<String>) -> LockInfo {
        LockInfo {
            id: new_lineage().unwrap_or_else(|_| fallback_id()),
            operation: operation.into(),
            info: String::new(),
            who: format!("{}@{}", user_name(), host_name()),
            version: version.into(),
            created: rfc3339_nano_now(),
            path: String::new(),
        }
    }

    /// The JSON Terraform writes: compact, fields in this order.
    pub fn to_json(&self) -> String {
        let mut o = String::new();
        let fields = [
            ("ID", &self.id),
            ("Operation", &self.operation),
            ("Info", &self.info),
            ("Who", &self.who),
            ("Version", &self.version),
            ("Created", &self.created),
            ("Path", &self.path),
        ];
        o.push('{');
        for (i, (name, value)) in fields.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            gojson::write_string(&mut o, name);
            o.push(':');
            gojson::write_string(&mut o, value);
        }
        o.push('}');
        o
    }

    /// Reads lock metadata; field names match case-insensitively as Go's
    /// decoder matches them. The error is Go's kind of message.
    pub fn from_json(src: &[u8]) -> Result<LockInfo, String> {
        let root = gojson::parse(src).map_err(|e| e.message)?;
        let Json::Object(members) = &root.json else {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type statemgr.LockInfo",
                root.json.kind_name()
            ));
        };
        let mut info = LockInfo::default();
        for (key, value) in members {
            let slot = match key.to_ascii_lowercase().as_str() {
                "id" => &mut info.id,
                "operation" => &mut info.operation,
                "info" => &mut info.info,
                "who" => &mut info.who,
                "version" => &mut info.version,
                "created" => &mut info.created,
                "path" => &mut info.path,
                _ => continue,
            };
            match &value.json {
                Json::String(s) => *slot = s.clone(),
                Json::Null => {}
                other => {
                    return Err(format!(
                    "json: cannot unmarshal {} into Go struct field LockInfo.{key} of type string",
                    other.kind_name()
                ))
                }
            }
        }
        Ok(info)
    }

    /// The "Lock Info:" block Terraform prints, ending in a newline.
    pub fn display_block(&self) -> String {
        format!(
            "Lock Info:\n  ID:        {}\n  Path:      {}\n  Operation: {}\n  Who:       {}\n  Version:   {}\n  Created:   {}\n  Info:      {}\n",
            self.id,
            self.path,
            self.operation,
            self.who,
            self.version,
            go_time_string(&self.created),
            self.info
        )
    }
}

/// A failure to take (or release) a lock: the error text and, when the
/// lock is held by someone else, who holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockError {
    pub message: String,
    pub info: Option<Box<LockInfo>>,
}

impl LockError {
    /// Worth retrying: someone else holds a lock whose holder we know.
    pub fn retriable(&self) -> bool {
        self.info.as_ref().is_some_and(|i| !i.id.is_empty())
    }

    /// Terraform's "Error acquiring the state lock" diagnostic.
    pub fn acquire_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(
            "Error acquiring the state lock",
            format!(
                "Error message: {self}\n\n{PRODUCT} acquires a state lock to protect the state from being written\nby multiple users at the same time. Please resolve the issue above and try\nagain. For most commands, you can disable locking with the \"-lock=false\"\nflag, but this is not recommended."
            ),
        )
    }

    /// Terraform's "Error releasing the state lock" diagnostic.
    pub fn release_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(
            "Error releasing the state lock",
            format!(
                "Error message: {self}\n\n{PRODUCT} acquires a lock when accessing your state to prevent others\nrunning {PRODUCT} to potentially modify the state at the same time. An\nerror occurred while releasing this lock. This could mean that the lock\ndid or did not release properly. If the lock didn't release properly,\n{PRODUCT} may not be able to run future commands since it'll appear as if\nthe lock is held.\n\nIn this scenario, please call the \"force-unlock\" command to unlock the\nstate manually. This is a very dangerous operation since if it is done\nerroneously it could result in two people modifying state at the same time.\nOnly call this command if you're certain that the unlock above failed and\nthat no one else is holding a lock."
            ),
        )
    }
}

/// The error, then the lock information block, one per line.
impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(info) = &self.info {
            write!(f, "\n{}", info.display_block())?;
        }
        Ok(())
    }
}

impl std::error::Error for LockError {}

/// hashicorp/go-multierror's rendering of several errors.
pub(crate) fn multierror(errors: &[String]) -> String {
    if errors.len() == 1 {
        return format!("1 error occurred:\n\t* {}\n\n", errors[0]);
    }
    let mut s = format!("{} errors occurred:\n", errors.len());
    for e in errors {
        s.push_str(&format!("\t* {e}\n"));
    }
    s.push('\n');
    s
}

fn fallback_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:032x}", nanos ^ (u128::from(std::process::id()) << 96))
}

fn user_name() -> String {
    // SAFETY: getpwuid_r writes only into the buffers given, whose sizes
    // are passed; the result pointer is checked before use.
    unsafe {
        let uid = libc::getuid();
        let mut pwd: libc::passwd = std::mem::zeroed();
        let mut buf = vec![0 as libc::c_char; 16384];
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let rc = libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result);
        if rc != 0 || result.is_null() || pwd.pw_name.is_null() {
            return String::new();
        }
        std::ffi::CStr::from_ptr(pwd.pw_name)
            .to_string_lossy()
            .into_owned()
    }
}

fn host_name() -> String {
    let mut buf = [0 as libc::c_char; 256];
    // SAFETY: the buffer and its length are passed together; the last byte
    // is forced to NUL in case the name was truncated.
    unsafe {
        if libc::gethostname(buf.as_mut_ptr(), buf.len()) != 0 {
            return String::new();
        }
        buf[buf.len() - 1] = 0;
        std::ffi::CStr::from_ptr(buf.as_ptr())
            .to_string_lossy()
            .into_owned()
    }
}

/// The civil date of a day count since 1970-01-01 (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Go's `time.Time` JSON form of a moment: RFC 3339 with nanoseconds,
/// trailing zeros (and a bare dot) dropped, in UTC.
pub fn rfc3339_nano(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (y, mo, da) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    let mut s = format!(
        "{y:04}-{mo:02}-{da:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    let nanos = d.subsec_nanos();
    if nanos != 0 {
        let frac = format!("{nanos:09}");
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    s.push('Z');
    s
}

fn rfc3339_nano_now() -> String {
    rfc3339_nano(SystemTime::now())
}

/// Go's `time.Time.String()` of an RFC 3339 time read from a lock file:
/// `2006-01-02 15:04:05.999999999 -0700 MST`, UTC shown as `+0000 UTC`
/// and other offsets as Go names them (`+0200 +0200`). Text that is not
/// such a time is shown as it is.
pub fn go_time_string(rfc3339: &str) -> String {
    let b = rfc3339.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
        || !(b[10] == b'T' || b[10] == b't')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return rfc3339.to_string();
    }
    let mut i = 19;
    let mut frac = "";
    if b[i] == b'.' {
        let from = i + 1;
        i = from;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac = &rfc3339[from..i];
    }
    let zone = &rfc3339[i..];
    let (offset, name) = match zone {
        "Z" | "z" => ("+0000".to_string(), "UTC".to_string()),
        z if z.len() == 6
            && (z.starts_with('+') || z.starts_with('-'))
            && z.as_bytes()[3] == b':' =>
        {
            let off = format!("{}{}", &z[..3], &z[4..]);
            if off == "+0000" || off == "-0000" {
                ("+0000".to_string(), "UTC".to_string())
            } else {
                (off.clone(), off)
            }
        }
        _ => return rfc3339.to_string(),
    };
    let frac = frac.trim_end_matches('0');
    let frac = if frac.is_empty() {
        String::new()
    } else {
        format!(".{}", &frac[..frac.len().min(9)])
    };
    format!(
        "{} {}{frac} {offset} {name}",
        &rfc3339[..10],
        &rfc3339[11..19]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn times_format_as_go() {
        let t = UNIX_EPOCH + Duration::new(1_795_283_664, 841_232_582);
        assert_eq!(rfc3339_nano(t), "2026-11-21T17:54:24.841232582Z");
        let t = UNIX_EPOCH + Duration::new(951_782_400, 500_000_000);
        assert_eq!(rfc3339_nano(t), "2000-02-29T00:00:00.5Z");
        assert_eq!(rfc3339_nano(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        for (input, want) in [
            (
                "2026-11-21T17:54:24.841232582Z",
                "2026-11-21 17:54:24.841232582 +0000 UTC",
            ),
            ("2026-11-21T17:54:24Z", "2026-11-21 17:54:24 +0000 UTC"),
            (
                "2026-11-21T17:54:24.5+02:00",
                "2026-11-21 17:54:24.5 +0200 +0200",
            ),
            ("yesterday", "yesterday"),
        ] {
            assert_eq!(go_time_string(input), want);
        }
    }

    #[test]
    fn lock_info_json_and_block() {
        let info = LockInfo {
            id: "ac160f73-e4d9-579a-7d51-032d2c3a83bb".into(),
            operation: "OperationTypeApply".into(),
            info: String::new(),
            who: "root@vm".into(),
            version: "1.11.4".into(),
            created: "2026-11-21T17:54:24.841232582Z".into(),
            path: "terraform.tfstate".into(),
        };
        // As Terraform 1.11.4 wrote it.
        let json = r#"{"ID":"ac160f73-e4d9-579a-7d51-032d2c3a83bb","Operation":"OperationTypeApply","Info":"","Who":"root@vm","Version":"1.11.4","Created":"2026-11-21T17:54:24.841232582Z","Path":"terraform.tfstate"}"#;
        assert_eq!(info.to_json(), json);
        assert_eq!(LockInfo::from_json(json.as_bytes()).unwrap(), info);
        let err = LockError {
            message: "resource temporarily unavailable".into(),
            info: Some(Box::new(info)),
        };
        let d = err.acquire_diagnostic();
        assert_eq!(d.summary, "Error acquiring the state lock");
        assert_eq!(
            d.detail,
            "Error message: resource temporarily unavailable\nLock Info:\n  ID:        ac160f73-e4d9-579a-7d51-032d2c3a83bb\n  Path:      terraform.tfstate\n  Operation: OperationTypeApply\n  Who:       root@vm\n  Version:   1.11.4\n  Created:   2026-11-21 17:54:24.841232582 +0000 UTC\n  Info:      \n\n\nterrace acquires a state lock to protect the state from being written\nby multiple users at the same time. Please resolve the issue above and try\nagain. For most commands, you can disable locking with the \"-lock=false\"\nflag, but this is not recommended."
        );
        assert!(err.retriable());
        assert!(LockInfo::from_json(b"[1]").is_err());
        assert!(LockInfo::from_json(br#"{"ID":1}"#).is_err());
    }

    #[test]
    fn fresh_lock_info_is_filled_in() {
        let info = LockInfo::new("OperationTypePlan", "1.11.4");
        assert_eq!(info.id.len(), 36);
        assert!(info.who.contains('@'));
        assert!(info.created.ends_with('Z'));
        assert_eq!(
            multierror(&["a".into(), "b".into()]),
            "2 errors occurred:\n\t* a\n\t* b\n\n"
        );
    }
}
