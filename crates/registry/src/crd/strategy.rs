//! The strategy of a custom resource version: status subresource rules, validation through
//! the CRD's schema and CEL rules (R4.10, old object for transition rules), selectableFields
//! as field labels, the deprecation warning, and no strategic merge patch (415).

use super::codec::validation_causes;
use crate::error::StatusCause;
use crate::meta;
use crate::strategy::{CreateStrategy, DeleteStrategy, Strategy, UpdateStrategy};
use kapi_apiextensions::CustomResourceSchemas;
use serde_json::Value;
use std::sync::Arc;

/// Strategy of one served version of a CRD.
pub struct CrStrategy {
    /// The CRD's compiled schemas.
    pub schemas: Arc<CustomResourceSchemas>,
    /// The version this entry serves.
    pub version: String,
    /// Whether the version has a `status` subresource.
    pub status: bool,
    /// `selectableFields`: the selector key (`spec.color`) and its path.
    pub selectable: Vec<(String, Vec<String>)>,
    /// The version's deprecation warning, when deprecated.
    pub warning: Option<String>,
    /// The `scale` subresource's paths, when it has one.
    pub scale: Option<super::scale::ScaleSpec>,
    /// Whether the CRD is being deleted (its objects are, so no new one is created).
    pub terminating: bool,
}

impl CreateStrategy for CrStrategy {
    fn create_refusal(&self) -> Option<String> {
        self.terminating
            .then(|| "create not allowed while custom resource definition is terminating".into())
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        validation_causes(&self.schemas, obj, None, &self.version, false)
    }
}

impl UpdateStrategy for CrStrategy {
    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn validate_update(
        &self,
        new: &Value,
        old: &Value,
        subresource: Option<&str>,
    ) -> Vec<StatusCause> {
        let status_only = subresource == Some("status");
        validation_causes(&self.schemas, new, Some(old), &self.version, status_only)
    }
}

impl DeleteStrategy for CrStrategy {}

impl Strategy for CrStrategy {
    fn has_status(&self) -> bool {
        self.status
    }

    fn tracks_generation(&self) -> bool {
        true
    }

    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.selectable
            .iter()
            .map(|(label, path)| {
                let path: Vec<&str> = path.iter().map(String::as_str).collect();
                let value = match meta::nested(obj, &path) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(other) => other.to_string(),
                };
                (label.clone(), value)
            })
            .collect()
    }

    fn has_view(&self, subresource: &str) -> bool {
        subresource == "scale" && self.scale.is_some()
    }

    fn view(&self, subresource: &str, obj: &Value) -> Option<Value> {
        let scale = self.scale.as_ref().filter(|_| subresource == "scale")?;
        Some(scale.view(obj))
    }

    fn apply_view(
        &self,
        subresource: &str,
        obj: &mut Value,
        view: &Value,
    ) -> Result<(), Vec<StatusCause>> {
        match self.scale.as_ref().filter(|_| subresource == "scale") {
            Some(scale) => scale.apply(obj, view),
            None => Ok(()),
        }
    }

    fn supports_strategic_merge_patch(&self) -> bool {
        false
    }

    fn warnings(&self) -> Vec<String> {
        self.warning.iter().cloned().collect()
    }
}
