//! Validation of a custom resource against its version's schema, in kube-apiserver's order
//! (R4.10, R6.18, R6.19): OpenAPI schema, scale replicas, embedded resources, list-type
//! uniqueness, then CEL rules unless blocking errors already exist.

mod embedded;
pub mod formats;
mod listtype;
pub mod names;
mod openapi;
mod scale;

pub use embedded::validate_embedded_resources;
pub use listtype::validate_list_sets_and_maps;
pub use scale::validate_replicas_path;

use crate::cel::{CelValidator, blocked_error, has_blocking_error};
use crate::field::{ErrorList, FieldPath};
use crate::structural::Structural;
use serde_json::Value;

/// Validates `obj` against the OpenAPI part of the schema only (kube-openapi's checks).
pub fn validate_openapi(obj: &Value, schema: &Structural) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut name = String::new();
    openapi::validate_node(obj, schema, &mut name, &mut errs);
    errs
}

/// Paths of the scale subresource, when it is enabled.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScalePaths {
    /// `.spec.replicas`.
    pub spec_replicas_path: String,
    /// `.status.replicas`.
    pub status_replicas_path: String,
}

/// Everything that validates one version's custom resources, built once per CRD load.
#[derive(Debug)]
pub struct CustomResourceValidator {
    schema: Structural,
    cel: CelValidator,
    scale: Option<ScalePaths>,
}

impl CustomResourceValidator {
    /// Compiles the validator of a version's structural schema.
    pub fn new(schema: &Structural, scale: Option<ScalePaths>) -> Self {
        Self {
            schema: schema.clone(),
            cel: CelValidator::new(schema),
            scale,
        }
    }

    /// Validates a create (`old` is `None`) or an update; the generic ObjectMeta checks of
    /// the server come on top.
    pub fn validate(&self, obj: &Value, old: Option<&Value>) -> ErrorList {
        let mut errs = validate_openapi(obj, &self.schema);
        if let Some(scale) = &self.scale {
            errs.extend(validate_replicas_path(obj, &scale.spec_replicas_path));
        }
        errs.extend(validate_embedded_resources(
            &FieldPath::root(),
            &self.schema,
            obj,
        ));
        errs.extend(validate_list_sets_and_maps(
            &FieldPath::root(),
            &self.schema,
            obj,
        ));
        if self.cel.has_rules() {
            if has_blocking_error(&errs) {
                errs.push(blocked_error());
            } else {
                errs.extend(self.cel.validate(obj, old));
            }
        }
        errs
    }

    /// Validates a write through `/status`: the status replicas path is checked instead.
    pub fn validate_status(&self, obj: &Value, old: Option<&Value>) -> ErrorList {
        let mut errs = validate_openapi(obj, &self.schema);
        if let Some(scale) = &self.scale {
            errs.extend(validate_replicas_path(obj, &scale.status_replicas_path));
        }
        errs.extend(validate_list_sets_and_maps(
            &FieldPath::root(),
            &self.schema,
            obj,
        ));
        if self.cel.has_rules() {
            if has_blocking_error(&errs) {
                errs.push(blocked_error());
            } else {
                errs.extend(self.cel.validate(obj, old));
            }
        }
        errs
    }
}
