//! Test helpers: the shared scratch directory.

pub(crate) use terrace_testsupport::TempDir;
