//! The root outputs of a state file, which is all `terraform_remote_state`
//! takes from it. The file is read whole by terrace-states' reader, so a
//! state that terrace could not use itself is refused here with the same
//! messages.

use std::collections::BTreeMap;
use terrace_providers::{Diagnostic, Diagnostics};
use terrace_value::Value;

/// What a state file holds for the data source.
#[derive(Debug)]
pub enum ReadOutputs {
    /// The file is empty: there is no state yet.
    NoState,
    Outputs(BTreeMap<String, Value>),
}

pub fn read_outputs(bytes: &[u8]) -> Result<ReadOutputs, Diagnostics> {
    // Terraform checks for an empty file before it parses anything.
    if bytes.is_empty() {
        return Ok(ReadOutputs::NoState);
    }
    match terrace_states::statefile::read(bytes) {
        // Warnings about a readable state are not the data source's
        // concern; Terraform drops them here too.
        Ok((state, _warnings)) => Ok(ReadOutputs::Outputs(
            state
                .outputs
                .into_iter()
                .map(|(name, output)| (name, output.value))
                .collect(),
        )),
        Err(diagnostics) => Err(diagnostics
            .into_iter()
            .map(|d| {
                if d.is_error() {
                    Diagnostic::error(d.summary, d.detail)
                } else {
                    Diagnostic::warning(d.summary, d.detail)
                }
            })
            .collect::<Vec<_>>()
            .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_value::Type;

    fn errors(result: Result<ReadOutputs, Diagnostics>) -> Vec<(String, String)> {
        match result {
            Ok(outputs) => panic!("expected errors, got {outputs:?}"),
            Err(diagnostics) => diagnostics
                .iter()
                .map(|d| (d.summary.clone(), d.detail.clone()))
                .collect(),
        }
    }

    #[test]
    fn reads_typed_outputs() {
        let text = r#"{"version":4,"terraform_version":"1.11.4","serial":3,"lineage":"x","outputs":{
            "n":{"value":1e400,"type":"number"},
            "s":{"value":1.5,"type":"string","sensitive":true},
            "l":{"value":["a"],"type":["list","string"]},
            "z":{"value":null,"type":["map","bool"]}},"resources":[]}"#;
        let outputs = match read_outputs(text.as_bytes()) {
            Ok(ReadOutputs::Outputs(outputs)) => outputs,
            other => panic!("not read: {other:?}"),
        };
        let names: Vec<&str> = outputs.keys().map(String::as_str).collect();
        assert_eq!(names, ["l", "n", "s", "z"]);
        // Numbers keep their precision beyond what a float holds.
        assert_eq!(outputs["n"].ty(), &Type::Number);
        assert!(outputs["n"]
            .as_number()
            .is_some_and(|n| n.text('g', -1) == "1e+400"));
        assert!(outputs["s"].raw_equals(&Value::string("1.5")));
        assert!(outputs["l"].raw_equals(&Value::list(Type::String, vec![Value::string("a")])));
        assert!(outputs["z"].raw_equals(&Value::null(Type::map(Type::Bool))));
        // Sensitive outputs are not marked: Terraform does not mark them.
        assert!(!outputs["s"].is_marked());
    }

    #[test]
    fn empty_file_is_no_state() {
        assert!(matches!(read_outputs(b""), Ok(ReadOutputs::NoState)));
    }

    #[test]
    fn errors_are_terraforms() {
        let unsupported = "Unsupported state file format".to_string();
        assert_eq!(
            errors(read_outputs(br#"{"version": 9}"#)),
            [(unsupported.clone(), "The state file uses format version 9, which is not supported by Terraform 1.11.4. This state file may have been created by a newer version of Terraform.".to_string())]
        );
        assert_eq!(
            errors(read_outputs(b"garbage")),
            [
                (
                    unsupported.clone(),
                    "The state file could not be parsed as JSON: syntax error at byte offset 1."
                        .to_string()
                ),
                (
                    unsupported,
                    "The state file does not have a \"version\" attribute, which is required to identify the format version.".to_string()
                )
            ]
        );
        assert_eq!(
            errors(read_outputs(
                br#"{"version":4,"serial":1,"lineage":"x","outputs":{"a":{"value":"x","type":"strin"}}}"#
            )),
            [(
                "Invalid output value type in state".to_string(),
                r#"The state file has an invalid type specification for output "a": invalid primitive type name "strin"."#.to_string()
            )]
        );
        assert_eq!(
            errors(read_outputs(
                br#"{"version":4,"serial":1,"lineage":"x","outputs":{"a":{"value":"x","type":"number"}}}"#
            )),
            [(
                "Invalid output value saved in state".to_string(),
                r#"The state file has an invalid value for output "a": a number is required."#.to_string()
            )]
        );
    }
}
