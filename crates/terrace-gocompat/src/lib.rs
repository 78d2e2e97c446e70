//! The behaviour of Go's standard library and of the small Go libraries
//! terraform prints through, where users see it in bytes: a cleaned path
//! in a module manifest, a wrapped paragraph of a plan, the text of an OS
//! error inside a diagnostic. One implementation of each, at the bottom
//! of the crate graph, for every crate that must print as terraform does.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod base64;
pub mod exec;
pub mod json;
pub mod oserror;
pub mod path;
pub mod strconv;
pub mod url;
pub mod wordwrap;
