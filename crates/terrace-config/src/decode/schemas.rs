//! The block schemas: which arguments and nested blocks each kind of
//! block takes, as OpenTofu's `configs` package declares them.

use super::*;

pub(super) static CONFIG_FILE_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .block("language")
        .block("required_providers")
        .labeled_block("provider", &["name"])
        .labeled_block("variable", &["name"])
        .block("locals")
        .labeled_block("output", &["name"])
        .labeled_block("module", &["name"])
        .labeled_block("resource", &["type", "name"])
        .labeled_block("data", &["type", "name"])
        .labeled_block("ephemeral", &["type", "name"])
        .block("moved")
        .block("import")
        .labeled_block("check", &["name"])
        .block("removed")
        .block("terraform")
});

pub(super) static TERRAFORM_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("required_version")
        .attr("experiments")
        .attr("language")
        .labeled_block("backend", &["type"])
        .block("cloud")
        .block("required_providers")
        .labeled_block("provider_meta", &["provider"])
        .block("encryption")
});

pub(super) static VARIABLE_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("description")
        .attr("default")
        .attr("type")
        .attr("sensitive")
        .attr("ephemeral")
        .attr("const")
        .attr("deprecated")
        .attr("nullable")
        .block("validation")
});

pub(super) static OUTPUT_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("description")
        .required_attr("value")
        .attr("depends_on")
        .attr("sensitive")
        .attr("ephemeral")
        .attr("deprecated")
        .block("precondition")
        .block("postcondition")
});

pub(super) static PROVIDER_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("alias")
        .attr("version")
        .attr("for_each")
        .attr("count")
        .attr("depends_on")
        .attr("source")
        .block("_")
        .block("lifecycle")
        .block("locals")
});

pub(crate) static MODULE_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .required_attr("source")
        .attr("version")
        .attr("count")
        .attr("for_each")
        .attr("depends_on")
        .attr("providers")
        .block("_")
        .block("lifecycle")
        .block("locals")
        .labeled_block("provider", &["type"])
});

pub(super) static MODULE_LIFECYCLE_SCHEMA: LazyLock<BodySchema> =
    LazyLock::new(|| BodySchema::new().attr("enabled"));

pub(super) static RESOURCE_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("count")
        .attr("for_each")
        .attr("provider")
        .attr("depends_on")
        .block("locals")
        .block("lifecycle")
        .block("connection")
        .labeled_block("provisioner", &["type"])
        .block("_")
});

pub(super) static DATA_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("count")
        .attr("for_each")
        .attr("provider")
        .attr("depends_on")
        .block("lifecycle")
        .block("locals")
        .block("_")
});

pub(super) static RESOURCE_LIFECYCLE_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("create_before_destroy")
        .attr("prevent_destroy")
        .attr("destroy")
        .attr("ignore_changes")
        .attr("replace_triggered_by")
        .attr("enabled")
        .block("precondition")
        .block("postcondition")
});

pub(super) static CHECK_RULE_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .required_attr("condition")
        .required_attr("error_message")
});

pub(super) static CHECK_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .labeled_block("data", &["type", "name"])
        .block("assert")
});

pub(super) static PROVISIONER_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("when")
        .attr("on_failure")
        .block("_")
        .block("connection")
        .block("lifecycle")
});

pub(super) static MOVED_BLOCK_SCHEMA: LazyLock<BodySchema> =
    LazyLock::new(|| BodySchema::new().required_attr("from").required_attr("to"));

pub(super) static REMOVED_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .required_attr("from")
        .block("lifecycle")
        .labeled_block("provisioner", &["type"])
});

pub(super) static REMOVED_LIFECYCLE_SCHEMA: LazyLock<BodySchema> =
    LazyLock::new(|| BodySchema::new().attr("destroy"));

pub(super) static IMPORT_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("provider")
        .attr("id")
        .attr("identity")
        .required_attr("to")
        .attr("for_each")
});

pub(super) static LANGUAGE_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("edition")
        .attr("experiments")
        .block("compatible_with")
});
