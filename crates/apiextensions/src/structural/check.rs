//! The structural-schema rules kube-apiserver enforces on CRD create/update (R5.18,
//! upstream `ValidateStructural`): invariants of the tree, then completeness of the value
//! validations; errors sorted by their text as upstream does.

use super::{
    AdditionalProperties, ForbiddenInNested, NestedValueValidation, Structural, ValueValidation,
};
use crate::field::{ErrorList, FieldError, FieldPath};
use serde_json::Value;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

/// Checks that `s` is a structural schema; `path` is where the schema sits
/// (`spec.versions[0].schema.openAPIV3Schema`).
pub fn validate_structural(path: &FieldPath, s: &Structural) -> ErrorList {
    let mut errs = ErrorList::new();
    invariants(s, Level::Root, path, &mut errs);
    if let Some(vv) = &s.value_validation {
        value_validation_completeness(vv, s, path, path, &mut errs);
    }
    errs.sort_by_key(ToString::to_string);
    errs
}

fn invariants(s: &Structural, lvl: Level, path: &FieldPath, errs: &mut ErrorList) {
    if s.type_name == "array" && s.items.is_none() {
        errs.push(FieldError::required(
            &path.child("items"),
            "must be specified",
        ));
    }
    if let Some(items) = &s.items {
        invariants(items, Level::Item, &path.child("items"), errs);
    }
    for (k, v) in &s.properties {
        invariants(v, Level::Field, &path.child("properties").key(k), errs);
    }
    if let Some(ap) = &s.additional_properties {
        if lvl == Level::Root {
            errs.push(FieldError::forbidden(
                &path.child("additionalProperties"),
                "must not be used at the root",
            ));
        }
        if let AdditionalProperties::Schema(schema) = ap {
            invariants(
                schema,
                Level::Field,
                &path.child("additionalProperties"),
                errs,
            );
        }
    }
    extensions(s, path, errs);
    if let Some(vv) = &s.value_validation {
        value_validation(
            vv,
            is_int_or_string_any_of(&vv.any_of),
            int_or_string_all_of(vv),
            path,
            errs,
        );
    }
    type_rules(s, lvl, path, errs);
    metadata_rules(s, lvl, path, errs);
    if s.embedded_resource && !s.preserve_unknown_fields && s.properties.is_empty() {
        errs.push(FieldError::required(
            &path.child("properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

fn extensions(s: &Structural, path: &FieldPath, errs: &mut ErrorList) {
    if s.int_or_string && s.preserve_unknown_fields {
        errs.push(FieldError::invalid(
            &path.child("x-kubernetes-preserve-unknown-fields"),
            Value::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if s.int_or_string && s.embedded_resource {
        errs.push(FieldError::invalid(
            &path.child("x-kubernetes-embedded-resource"),
            Value::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
}

fn type_rules(s: &Structural, lvl: Level, path: &FieldPath, errs: &mut ErrorList) {
    const EMBEDDED: &str = "must be object if x-kubernetes-embedded-resource is true";
    if s.embedded_resource && s.type_name != "object" {
        if s.type_name.is_empty() {
            errs.push(FieldError::required(&path.child("type"), EMBEDDED));
        } else {
            errs.push(FieldError::invalid(
                &path.child("type"),
                Value::String(s.type_name.clone()),
                EMBEDDED,
            ));
        }
    } else if s.type_name.is_empty() && !s.int_or_string && !s.preserve_unknown_fields {
        let detail = match lvl {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errs.push(FieldError::required(&path.child("type"), detail));
    }
    if s.embedded_resource && s.additional_properties.is_some() {
        errs.push(FieldError::forbidden(
            &path.child("additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if lvl == Level::Root && !s.type_name.is_empty() && s.type_name != "object" {
        errs.push(FieldError::invalid(
            &path.child("type"),
            Value::String(s.type_name.clone()),
            "must be object at the root",
        ));
    }
}

fn metadata_rules(s: &Structural, lvl: Level, path: &FieldPath, errs: &mut ErrorList) {
    let check = lvl == Level::Root || s.embedded_resource;
    for key in ["kind", "apiVersion"] {
        if let Some(p) = s.properties.get(key).filter(|_| check)
            && p.type_name != "string"
        {
            let at = path.child("properties").key(key).child("type");
            errs.push(FieldError::invalid(
                &at,
                Value::String(p.type_name.clone()),
                "must be string",
            ));
        }
    }
    let Some(meta) = s.properties.get("metadata") else {
        return;
    };
    let meta_path = path.child("properties").key("metadata");
    if check && meta.type_name != "object" {
        errs.push(FieldError::invalid(
            &meta_path.child("type"),
            Value::String(meta.type_name.clone()),
            "must be object",
        ));
    }
    if lvl == Level::Root && !root_metadata_is_implicit(meta) {
        errs.push(FieldError::forbidden(
            &meta_path,
            "must not specify anything other than name and generateName, but metadata is implicitly specified",
        ));
    }
}

/// Root `metadata` may only carry `type`, `default` and properties `name`/`generateName`.
fn root_metadata_is_implicit(m: &Structural) -> bool {
    let only_names = m
        .properties
        .keys()
        .all(|k| k == "name" || k == "generateName");
    only_names
        && !m.nullable
        && m.description.is_empty()
        && !m.has_docs
        && m.additional_properties.is_none()
        && m.items.is_none()
        && !m.preserve_unknown_fields
        && !m.embedded_resource
        && !m.int_or_string
        && m.list_type.is_none()
        && m.list_map_keys.is_empty()
        && m.map_type.is_none()
        && m.validations.is_empty()
        && m.value_validation.is_none()
}

fn is_only_type(n: &NestedValueValidation, ty: &str) -> bool {
    n.value_validation.is_empty()
        && n.items.is_none()
        && n.properties.is_empty()
        && n.additional_properties.is_none()
        && n.forbidden
            == ForbiddenInNested {
                type_name: ty.to_string(),
                ..Default::default()
            }
}

/// `anyOf: [{type: integer}, {type: string}]`, the int-or-string exception.
pub(crate) fn is_int_or_string_any_of(any_of: &[NestedValueValidation]) -> bool {
    any_of.len() == 2 && is_only_type(&any_of[0], "integer") && is_only_type(&any_of[1], "string")
}

fn int_or_string_all_of(vv: &ValueValidation) -> bool {
    vv.all_of
        .first()
        .is_some_and(|first| is_int_or_string_any_of(&first.value_validation.any_of))
}

fn value_validation(
    v: &ValueValidation,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    path: &FieldPath,
    errs: &mut ErrorList,
) {
    if !skip_any_of {
        for (i, n) in v.any_of.iter().enumerate() {
            nested(n, false, &path.child("anyOf").index(i), errs);
        }
    }
    for (i, n) in v.all_of.iter().enumerate() {
        nested(
            n,
            skip_first_all_of_any_of && i == 0,
            &path.child("allOf").index(i),
            errs,
        );
    }
    for (i, n) in v.one_of.iter().enumerate() {
        nested(n, false, &path.child("oneOf").index(i), errs);
    }
    if let Some(n) = &v.not {
        nested(n, false, &path.child("not"), errs);
    }
    if let Some(p) = &v.pattern
        && let Err(e) = &p.regex
    {
        errs.push(FieldError::invalid(
            &path.child("pattern"),
            Value::String(p.source.clone()),
            format!("must be a valid regular expression, but isn't: {e}"),
        ));
    }
}

fn nested(n: &NestedValueValidation, skip_any_of: bool, path: &FieldPath, errs: &mut ErrorList) {
    value_validation(&n.value_validation, skip_any_of, false, path, errs);
    if let Some(items) = &n.items {
        nested(items, false, &path.child("items"), errs);
    }
    for (k, p) in &n.properties {
        nested(p, false, &path.child("properties").key(k), errs);
    }
    let f = &n.forbidden;
    let mut forbid = |cond: bool, name: &str, detail: &str| {
        if cond {
            errs.push(FieldError::forbidden(&path.child(name), detail));
        }
    };
    forbid(
        !f.type_name.is_empty(),
        "type",
        "must be empty to be structural",
    );
    forbid(
        n.additional_properties.is_some(),
        "additionalProperties",
        "must be undefined to be structural",
    );
    forbid(f.default, "default", "must be undefined to be structural");
    forbid(f.title, "title", "must be empty to be structural");
    forbid(
        f.description,
        "description",
        "must be empty to be structural",
    );
    forbid(f.nullable, "nullable", "must be false to be structural");
    forbid(
        f.preserve_unknown_fields,
        "x-kubernetes-preserve-unknown-fields",
        "must be false to be structural",
    );
    forbid(
        f.embedded_resource,
        "x-kubernetes-embedded-resource",
        "must be false to be structural",
    );
    forbid(
        f.int_or_string,
        "x-kubernetes-int-or-string",
        "must be false to be structural",
    );
    forbid(
        f.list_map_keys,
        "x-kubernetes-list-map-keys",
        "must be empty to be structural",
    );
    forbid(
        f.list_type,
        "x-kubernetes-list-type",
        "must be undefined to be structural",
    );
    forbid(
        f.map_type,
        "x-kubernetes-map-type",
        "must be undefined to be structural",
    );
    forbid(
        f.validations,
        "x-kubernetes-validations",
        "must be empty to be structural",
    );
    if n.properties.contains_key("metadata") {
        errs.push(FieldError::forbidden(
            &path.child("properties").key("metadata"),
            "must not be specified in a nested context",
        ));
    }
}

fn value_validation_completeness(
    v: &ValueValidation,
    s: &Structural,
    s_path: &FieldPath,
    v_path: &FieldPath,
    errs: &mut ErrorList,
) {
    if let Some(n) = &v.not {
        nested_completeness(n, Some(s), s_path, &v_path.child("not"), errs);
    }
    for (name, list) in [
        ("allOf", &v.all_of),
        ("anyOf", &v.any_of),
        ("oneOf", &v.one_of),
    ] {
        for (i, n) in list.iter().enumerate() {
            nested_completeness(n, Some(s), s_path, &v_path.child(name).index(i), errs);
        }
    }
}

fn nested_completeness(
    v: &NestedValueValidation,
    s: Option<&Structural>,
    s_path: &FieldPath,
    v_path: &FieldPath,
    errs: &mut ErrorList,
) {
    let Some(s) = s else {
        errs.push(FieldError::required(
            s_path,
            format!("because it is defined in {v_path}"),
        ));
        return;
    };
    value_validation_completeness(&v.value_validation, s, s_path, v_path, errs);
    if let Some(items) = &v.items {
        nested_completeness(
            items,
            s.items.as_deref(),
            &s_path.child("items"),
            &v_path.child("items"),
            errs,
        );
    }
    for (k, p) in &v.properties {
        let sp = s_path.child("properties").key(k);
        let vp = v_path.child("properties").key(k);
        match s.properties.get(k) {
            Some(sf) => nested_completeness(p, Some(sf), &sp, &vp, errs),
            None => errs.push(FieldError::required(
                &sp,
                format!("because it is defined in {vp}"),
            )),
        }
    }
}
