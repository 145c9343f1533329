//! A CRD's declarative conversion rules (kapi-conversion, in the annotation
//! `conversion.kapi.dev/rules`) checked when the CRD is written: rules that do not parse or
//! compile, a hub or version the CRD lacks, a path a version's schema lacks, two steps
//! writing one field — each a 422 cause on the annotation, before any object meets them.

use crate::field::{ErrorList, FieldError, FieldPath};
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_conversion::{RULES_ANNOTATION, Rules};
use serde_json::Value;
use std::collections::BTreeMap;

/// The rules of `crd`, when it has the annotation.
pub fn rules_of(crd: &CustomResourceDefinition) -> Option<Result<Rules, String>> {
    let text = crd.metadata.annotations.get(RULES_ANNOTATION)?;
    Some(Rules::parse(text).map_err(|e| e.to_string()))
}

/// The causes against the rules annotation.
pub fn validate_conversion_rules(crd: &CustomResourceDefinition) -> ErrorList {
    let path = FieldPath::new("metadata")
        .child("annotations")
        .key(RULES_ANNOTATION);
    let rules = match rules_of(crd) {
        None => return ErrorList::new(),
        Some(Err(e)) => return vec![FieldError::invalid_omitted(&path, e)],
        Some(Ok(r)) => r,
    };
    let schemas: BTreeMap<String, Option<Value>> = crd
        .spec
        .versions
        .iter()
        .map(|v| {
            let schema = v
                .schema
                .as_ref()
                .and_then(|s| s.open_api_v3_schema.as_ref())
                .and_then(|s| serde_json::to_value(s).ok());
            (v.name.clone(), schema)
        })
        .collect();
    rules
        .check(&schemas)
        .into_iter()
        .map(|p| FieldError::invalid_omitted(&path, p.to_string()))
        .collect()
}
