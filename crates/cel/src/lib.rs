//! CEL expressions compiled once and evaluated over named JSON values, with every
//! Kubernetes CEL library function (kube-cel): what admission's match conditions and
//! policies and declarative conversion rules evaluate. Schema-typed validation of custom
//! resources (`x-kubernetes-validations`) is kapi-apiextensions' own.

mod expression;
mod json;

pub use expression::{EvalError, Expression, Variables};
pub use json::{from_json, to_json};
