//! The built-in function library and the call machinery every function
//! shares, following cty's `function` package: arguments are converted to
//! the parameter types, nulls are refused unless a parameter allows them,
//! unknown arguments make an unknown result of the declared return type,
//! marks are removed before the implementation runs and put back on the
//! result, unless a parameter opts in to seeing them.

pub mod call;
mod collection;
mod conversion;
mod crypto;
mod datetime;
mod descriptions;
mod encoding;
mod filesystem;
mod format;
mod ipnet;
mod numeric;
pub mod special;
mod string;
#[cfg(test)]
pub(crate) mod testing;

pub use descriptions::function_description;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use terrace_value::{gostr, Marks, Type, Value};

/// An error from a function, either about one argument (rendered by the
/// evaluator as "Invalid function argument" / `Invalid value for "<param>"
/// parameter: <message>.`) or about the call as a whole ("Error in function
/// call" / `Call to function "<name>" failed: <message>.`).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionError {
    pub argument: Option<usize>,
    pub message: String,
}

impl FunctionError {
    pub fn call(message: impl Into<String>) -> FunctionError {
        FunctionError {
            argument: None,
            message: message.into(),
        }
    }
    pub fn arg(index: usize, message: impl Into<String>) -> FunctionError {
        FunctionError {
            argument: Some(index),
            message: message.into(),
        }
    }
}

pub type FunctionResult<T> = Result<T, FunctionError>;

#[derive(Clone, Debug)]
pub struct Param {
    pub name: &'static str,
    pub ty: Type,
    pub allow_null: bool,
    pub allow_unknown: bool,
    pub allow_dynamic_type: bool,
    pub allow_marked: bool,
}

impl Param {
    pub fn new(name: &'static str, ty: Type) -> Param {
        Param {
            name,
            ty,
            allow_null: false,
            allow_unknown: false,
            allow_dynamic_type: false,
            allow_marked: false,
        }
    }
    pub fn allow_null(mut self) -> Param {
        self.allow_null = true;
        self
    }
    pub fn allow_unknown(mut self) -> Param {
        self.allow_unknown = true;
        self
    }
    pub fn allow_dynamic_type(mut self) -> Param {
        self.allow_dynamic_type = true;
        self
    }
    pub fn allow_marked(mut self) -> Param {
        self.allow_marked = true;
        self
    }
}

/// What a function may need from its surroundings. File functions are
/// confined to `base_dir` (the module directory); time functions read
/// `now` so a whole plan sees one timestamp. (`templatefile`, `try` and
/// the other functions that evaluate expressions are handled by the
/// evaluator itself, in `funcs::special`.)
pub struct CallContext<'a> {
    pub base_dir: PathBuf,
    /// RFC 3339 time of the run, for `timestamp()` and `plantimestamp()`.
    pub now: Option<&'a str>,
}

impl Default for CallContext<'_> {
    fn default() -> Self {
        CallContext {
            base_dir: PathBuf::from("."),
            now: None,
        }
    }
}

pub type TypeFn = fn(&CallContext<'_>, &[Value]) -> FunctionResult<Type>;
pub type ImplFn = fn(&CallContext<'_>, &[Value], &Type) -> FunctionResult<Value>;

pub enum ReturnType {
    Static(Type),
    /// Computed from the (converted) arguments; may see unknown values.
    Computed(TypeFn),
}

pub struct Function {
    pub name: &'static str,
    pub params: Vec<Param>,
    pub variadic: Option<Param>,
    pub return_type: ReturnType,
    pub implementation: ImplFn,
    /// cty's `RefineResult` with `refineNonNull`, which nearly every stdlib
    /// function declares: an unknown result is known not to be null.
    pub refine_not_null: bool,
}

impl Function {
    pub fn new(
        name: &'static str,
        params: Vec<Param>,
        return_type: ReturnType,
        implementation: ImplFn,
    ) -> Function {
        Function {
            name,
            params,
            variadic: None,
            return_type,
            implementation,
            refine_not_null: true,
        }
    }
    pub fn variadic(mut self, param: Param) -> Function {
        self.variadic = Some(param);
        self
    }
    pub fn nullable_result(mut self) -> Function {
        self.refine_not_null = false;
        self
    }

    /// The return type a signature description shows: the type a call
    /// with one unknown argument of each parameter's type (the variadic
    /// parameter once) would have, as cty answers for a call with exactly
    /// the declared parameter types.
    pub fn signature_return_type(&self) -> FunctionResult<Type> {
        let mut all_params = self.params.iter().chain(self.variadic.as_ref());
        // A call leaves the result type unknown when an argument of unknown
        // type meets a parameter that cannot take one (see `call_function`).
        if all_params.any(|p| p.ty.is_dynamic() && !p.allow_dynamic_type) {
            return Ok(Type::Dynamic);
        }
        match &self.return_type {
            ReturnType::Static(ty) => Ok(ty.clone()),
            ReturnType::Computed(type_fn) => {
                let args: Vec<Value> = self
                    .params
                    .iter()
                    .chain(self.variadic.as_ref())
                    .map(|p| Value::unknown(p.ty.clone()))
                    .collect();
                type_fn(&CallContext::default(), &args)
            }
        }
    }

    /// The parameter an argument at `index` binds to.
    pub fn param_for(&self, index: usize) -> Option<&Param> {
        self.params.get(index).or(self.variadic.as_ref())
    }
}

/// Every built-in function by name (without namespace; `core::` prefixed
/// names are resolved by the evaluator).
pub fn builtins() -> &'static HashMap<&'static str, Function> {
    static BUILTINS: OnceLock<HashMap<&'static str, Function>> = OnceLock::new();
    BUILTINS.get_or_init(|| {
        let mut all = Vec::new();
        register_all(&mut all);
        all.into_iter().map(|f| (f.name, f)).collect()
    })
}

/// Each group module adds its functions here.
fn register_all(out: &mut Vec<Function>) {
    collection::register(out);
    conversion::register(out);
    crypto::register(out);
    datetime::register(out);
    encoding::register(out);
    filesystem::register(out);
    format::register(out);
    ipnet::register(out);
    numeric::register(out);
    special::register(out);
    string::register(out);
}

// ----- helpers the function groups share -----

/// A string argument. The call machinery has converted it to the declared
/// string type already, so anything else is reported, not panicked on.
fn arg_str(args: &[Value], index: usize) -> FunctionResult<&str> {
    args.get(index)
        .and_then(Value::as_str)
        .ok_or_else(|| FunctionError::arg(index, "string required"))
}

/// OpenTofu's `redactIfSensitiveOrEphemeral` for a string in a message:
/// quoted, unless its marks say it must not be shown.
fn redact(text: &str, marks: Marks) -> String {
    match (marks.is_ephemeral(), marks.is_sensitive()) {
        (true, true) => "(ephemeral sensitive value)".to_string(),
        (true, false) => "(ephemeral value)".to_string(),
        (false, true) => "(sensitive value)".to_string(),
        (false, false) => gostr::quote(text),
    }
}
