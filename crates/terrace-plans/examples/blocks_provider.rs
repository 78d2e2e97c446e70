//! A provider whose only resource type, `blocks_thing`, has every shape
//! of schema the plan renderer distinguishes: primitive, list, set, map
//! and object attributes, sensitive and write-only attributes, and nested
//! blocks of each nesting mode. It stores its configuration as its state.
//! Only used to record what Terraform prints for such schemas
//! (`tests/render/record.sh` with it in `dev_overrides` as
//! `terrace/blocks`); build with
//! `cargo build -p terrace-plans --example blocks_provider`.

use terrace_sdk::{Attr, BlockSpec, NestedBlockSpec, ProviderSpec, ResourceSpec, Type};

fn thing() -> ResourceSpec<()> {
    let rule = BlockSpec::new()
        .attr("name", Attr::string().required())
        .attr("port", Attr::number().optional())
        .attr("cidrs", Attr::list(Type::String).optional());
    let ingress = BlockSpec::new()
        .attr("from", Attr::number().required())
        .attr("to", Attr::number().required());
    let setting = BlockSpec::new().attr("value", Attr::string().optional());
    let config = BlockSpec::new()
        .attr("a", Attr::string().optional())
        .attr("b", Attr::number().optional())
        .attr("password", Attr::string().optional().sensitive());
    let schema = BlockSpec::new()
        .attr("id", Attr::string().computed())
        .attr("name", Attr::string().required())
        .attr("tags", Attr::map(Type::String).optional())
        .attr("ports", Attr::set(Type::Number).optional())
        .attr("items", Attr::list(Type::String).optional())
        .attr(
            "obj",
            Attr::typed(Type::object([
                ("x".to_string(), Type::String),
                ("y".to_string(), Type::list(Type::Number)),
            ]))
            .optional(),
        )
        .attr("secret", Attr::string().optional().sensitive())
        .attr("token", Attr::string().optional().write_only())
        .attr("replaced", Attr::string().optional().force_new())
        .block("rule", NestedBlockSpec::list(rule))
        .block("ingress", NestedBlockSpec::set(ingress))
        .block("setting", NestedBlockSpec::map(setting))
        .block("config", NestedBlockSpec::single(config));
    ResourceSpec::new(schema)
        .create(|_, _, d| {
            let name = d.get_string("name").unwrap_or_default();
            d.set_id(format!("thing-{name}"))
        })
        .read(|_, _, _| Ok(()))
        .update(|_, _, _| Ok(()))
        .delete(|_, _, _| Ok(()))
}

fn main() -> std::process::ExitCode {
    terrace_sdk::serve(
        ProviderSpec::new(BlockSpec::new(), |_, _| Ok(())).resource("blocks_thing", thing()),
    )
}
