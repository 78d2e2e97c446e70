//! One module per command (`state` and `init` with their parts beside
//! them); what several commands share lives beside `commands/`.

pub(crate) mod console;
pub(crate) mod fmt;
pub(crate) mod force_unlock;
pub(crate) mod graph;
pub(crate) mod init;
pub(crate) mod login;
pub(crate) mod metadata;
pub(crate) mod modules;
pub(crate) mod operation;
pub(crate) mod output;
pub(crate) mod providers;
pub(crate) mod providers_lock;
pub(crate) mod providers_mirror;
pub(crate) mod providers_schema;
pub(crate) mod show;
pub(crate) mod state;
pub(crate) mod taint;
pub(crate) mod test;
pub(crate) mod validate;
pub(crate) mod workspace;
