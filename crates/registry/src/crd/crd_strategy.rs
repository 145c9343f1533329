//! The strategy of CustomResourceDefinitions themselves: validation on create, update and
//! `/status` (R5.x, 422 with upstream's causes), `status.storedVersions` maintenance (R5.11,
//! R5.13) and the cleanup finalizer, added when deletion starts (as upstream), that makes
//! the controller remove the objects first.

use super::{CLEANUP_FINALIZER, causes};
use crate::error::StatusCause;
use crate::meta;
use crate::strategy::{CreateStrategy, DeleteStrategy, Strategy, UpdateStrategy};
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_apiextensions::crd::{
    stored_versions_for_create, stored_versions_for_status_update, stored_versions_for_update,
};
use kapi_apiextensions::{validate_crd, validate_crd_status_update, validate_crd_update};
use serde_json::{Value, json};

/// Strategy of `customresourcedefinitions`.
#[derive(Debug, Clone, Default)]
pub struct CrdStrategy;

fn typed(obj: &Value) -> Result<CustomResourceDefinition, StatusCause> {
    serde_json::from_value(obj.clone()).map_err(|e| StatusCause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {e}"),
        field: String::new(),
    })
}

fn stored_versions(obj: &Value) -> Vec<String> {
    meta::nested(obj, &["status", "storedVersions"])
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn set_stored_versions(obj: &mut Value, versions: Vec<String>) {
    let Some(map) = obj.as_object_mut() else {
        return;
    };
    let status = map.entry("status").or_insert_with(|| json!({}));
    if !status.is_object() {
        *status = json!({});
    }
    if let Some(s) = status.as_object_mut() {
        s.insert("storedVersions".into(), json!(versions));
    }
}

impl CreateStrategy for CrdStrategy {
    fn name_rule(&self) -> crate::strategy::NameRule {
        // validate_crd checks the name (plural.group, DNS subdomain) with upstream's words.
        crate::strategy::NameRule::PathSegment
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        if let Ok(crd) = typed(obj) {
            set_stored_versions(obj, stored_versions_for_create(&crd.spec));
        }
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        match typed(obj) {
            Ok(crd) => causes(&validate_crd(&crd)),
            Err(cause) => vec![cause],
        }
    }
}

impl UpdateStrategy for CrdStrategy {
    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, subresource: Option<&str>) {
        let Ok(crd) = typed(new) else {
            return;
        };
        let versions = if subresource == Some("status") {
            let sent = crd.status.stored_versions.as_deref();
            stored_versions_for_status_update(sent, &crd.spec)
        } else {
            stored_versions_for_update(&stored_versions(old), &crd.spec)
        };
        set_stored_versions(new, versions);
    }

    fn validate_update(
        &self,
        new: &Value,
        old: &Value,
        subresource: Option<&str>,
    ) -> Vec<StatusCause> {
        let (new, old) = match (typed(new), typed(old)) {
            (Ok(n), Ok(o)) => (n, o),
            (Err(c), _) | (_, Err(c)) => return vec![c],
        };
        if subresource == Some("status") {
            causes(&validate_crd_status_update(&new))
        } else {
            causes(&validate_crd_update(&new, &old))
        }
    }
}

impl DeleteStrategy for CrdStrategy {
    fn delete_finalizer(&self) -> Option<&'static str> {
        Some(CLEANUP_FINALIZER)
    }
}

impl Strategy for CrdStrategy {
    fn has_status(&self) -> bool {
        true
    }

    fn tracks_generation(&self) -> bool {
        true
    }
}
