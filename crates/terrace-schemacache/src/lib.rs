//! terrace-schemacache: getting from "this configuration needs provider X"
//! to X's schema without paying for `GetProviderSchema` every time.
//!
//! - `locate`: finding an installed provider's executable, in
//!   `.terraform/providers` and in filesystem mirrors, at the version the
//!   lock file selected (a stopgap until terrace-getproviders' installer
//!   owns provider lookup; it can absorb this module);
//! - `digest`: the SHA-256 of an executable, remembered per file so an
//!   unchanged 700 MB provider is not read again on every run;
//! - `store`: the schema cache on disk, one JSON entry per executable
//!   digest;
//! - `load`: the two ways in: a schema without running anything when an
//!   entry allows it ([`load_schema`]), and a running provider that is
//!   handed its cached schema instead of being asked ([`launch`]).
//!
//! A provider's schema is used from the cache only when the provider says
//! so: the `get_provider_schema_optional` server capability, recorded in
//! the entry itself (the entry is for that exact executable; see `load`
//! for why `GetMetadata` is not asked).

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod digest;
pub mod load;
pub mod locate;
pub mod store;

pub use digest::Digest;
pub use load::{launch, load_schema, LoadedSchema, SchemaSource};
pub use locate::{
    current_platform, locate, LocateError, LocatedProvider, PackageOrigin, SearchDirs,
    VersionWanted,
};
pub use store::{SchemaCache, CACHE_DIR_ENV, CACHE_FORMAT};
