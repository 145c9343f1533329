//! `selectableFields` (R5.26, upstream `ValidateCustomResourceSelectableFields`): at most 8,
//! simple dot paths to string, boolean or integer fields outside metadata, no duplicates.

use crate::field::{ErrorList, FieldError, FieldPath};
use crate::structural::{AdditionalProperties, Structural};
use kapi_api::apiextensions::v1::SelectableField;
use serde_json::Value;

/// Upper bound on selectable fields per version.
pub const MAX_SELECTABLE_FIELDS: i64 = 8;

/// Resolves `.a.b` in `schema`: the normalized path and the field's schema.
fn resolve<'a>(
    json_path: &str,
    schema: &'a Structural,
) -> Result<(String, &'a Structural), String> {
    let Some(rest) = json_path.strip_prefix('.') else {
        return Err(format!(
            "expected [ or . but got: {}",
            json_path.chars().next().unwrap_or(' ')
        ));
    };
    let mut node = schema;
    let mut parts = Vec::new();
    for seg in rest.split('.') {
        if seg.is_empty() || seg.contains(['[', ']']) {
            return Err("does not refer to a valid field".into());
        }
        node = match node.properties.get(seg) {
            Some(p) => p,
            None => match &node.additional_properties {
                Some(AdditionalProperties::Schema(ap)) if node.properties.is_empty() => ap,
                _ => return Err("does not refer to a valid field".into()),
            },
        };
        parts.push(seg);
    }
    Ok((parts.join("."), node))
}

/// Validates a version's (or the hoisted) selectable fields against its schema.
pub(crate) fn validate_selectable_fields(
    fields: &[SelectableField],
    schema: Option<&Structural>,
    path: &FieldPath,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if fields.is_empty() {
        return errs;
    }
    let Some(schema) = schema else {
        return vec![FieldError::invalid(
            path,
            Value::String(String::new()),
            "may only be set when validations.schema is included",
        )];
    };
    let mut unique: Vec<String> = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let at = path.index(i).child("jsonPath");
        let jp = Value::String(f.json_path.clone());
        if f.json_path.is_empty() {
            errs.push(FieldError::required(&at, ""));
            continue;
        }
        let (normalized, found) = match resolve(&f.json_path, schema) {
            Ok(r) => r,
            Err(e) => {
                errs.push(FieldError::invalid(
                    &at,
                    jp,
                    format!("is an invalid path: {e}"),
                ));
                continue;
            }
        };
        if normalized == "metadata" || normalized.starts_with("metadata.") {
            errs.push(FieldError::invalid(
                &at,
                jp.clone(),
                "must not point to fields in metadata",
            ));
        }
        if !matches!(found.type_name.as_str(), "string" | "boolean" | "integer") {
            errs.push(FieldError::invalid(
                &at,
                jp.clone(),
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            ));
        }
        if unique.contains(&normalized) {
            errs.push(FieldError::duplicate(&at, jp));
        } else {
            unique.push(normalized);
        }
    }
    if unique.len() as i64 > MAX_SELECTABLE_FIELDS {
        errs.push(FieldError::too_many(
            path,
            unique.len() as i64,
            MAX_SELECTABLE_FIELDS,
        ));
    }
    errs
}
