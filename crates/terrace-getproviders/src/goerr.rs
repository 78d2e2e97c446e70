//! Go's texts for OS errors, as the installers print them (one
//! implementation, in terrace-gocompat).

pub use terrace_gocompat::oserror::{errno_text, path_error};
