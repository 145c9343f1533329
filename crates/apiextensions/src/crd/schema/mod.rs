//! A CRD version's `schema.openAPIV3Schema` at CRD create/update (R5.8, R5.18–R5.23;
//! upstream `validateCustomResourceDefinitionValidation`): the OpenAPI subset, list and map
//! extensions, structural rules, defaults, CEL rules that do not compile.

use crate::field::{ErrorList, FieldError, FieldPath};
use crate::prune::prune;
use crate::structural::{Structural, validate_structural};
use crate::validation::validate_openapi;
use kapi_api::apiextensions::v1::{
    CustomResourceDefinitionVersion, CustomResourceValidation, JsonSchemaProps,
};
use serde_json::{Map, Value};

mod root_fields;
mod rules;

use root_fields::root_fields_with_status;

const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
const META_FIELDS: [&str; 3] = ["metadata", "kind", "apiVersion"];

fn schema_has_defaults(s: &JsonSchemaProps) -> bool {
    s.default.is_some() || serde_json::to_string(s).is_ok_and(|j| j.contains("\"default\":"))
}

/// Whether a version's schema uses `default` anywhere.
pub(crate) fn version_has_defaults(v: &CustomResourceDefinitionVersion) -> bool {
    v.schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.as_deref())
        .is_some_and(schema_has_defaults)
}

/// The CRD-level checks of one schema (`validateCustomResourceDefinitionValidation`).
pub(crate) fn validate_validation(
    v: Option<&CustomResourceValidation>,
    status_enabled: bool,
    path: &FieldPath,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let Some(props) = v.and_then(|v| v.open_api_v3_schema.as_deref()) else {
        return errs;
    };
    let json = serde_json::to_value(props).unwrap_or(Value::Null);
    let root = path.child("openAPIV3Schema");
    if status_enabled {
        errs.extend(root_fields_with_status(props, path));
    }
    if props.nullable {
        errs.push(FieldError::forbidden(
            &path.child("openAPIV3Schema.nullable"),
            "nullable cannot be true at the root",
        ));
    }
    let mut init_errs = ErrorList::new();
    let mut cel_ok = false;
    match Structural::from_json(&json) {
        Err(e) => init_errs.push(FieldError::invalid(
            &root,
            Value::String(String::new()),
            e.to_string(),
        )),
        Ok(s) => {
            let structural = validate_structural(&root, &s);
            if structural.is_empty() {
                let defaults = validate_defaults(&s, &root);
                cel_ok = defaults.is_empty();
                errs.extend(defaults);
            } else {
                errs.extend(structural);
            }
        }
    }
    let mut walker = Walker {
        errs: ErrorList::new(),
        cel_errs: ErrorList::new(),
    };
    walker.walk(
        &json,
        &root,
        Ctx {
            allow_defaults: true,
            defaults_reason: String::new(),
            inside_meta: false,
            uncorrelatable: None,
        },
        true,
    );
    errs.extend(walker.errs);
    // CEL is only compiled when the schema is structural and its defaults are valid.
    if cel_ok {
        errs.extend(walker.cel_errs);
    }
    if errs.is_empty() {
        errs.extend(init_errs);
    }
    errs
}

#[derive(Clone)]
struct Ctx {
    allow_defaults: bool,
    defaults_reason: String,
    inside_meta: bool,
    /// The highest list or map whose elements cannot be correlated with their old selves.
    uncorrelatable: Option<FieldPath>,
}

struct Walker {
    errs: ErrorList,
    cel_errs: ErrorList,
}

fn nonempty(o: &Map<String, Value>, k: &str) -> bool {
    match o.get(k) {
        None | Some(Value::Null) => false,
        Some(Value::Object(m)) => !m.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

impl Walker {
    fn standard(&mut self, o: &Map<String, Value>, path: &FieldPath, ctx: &Ctx) {
        let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
        let e = &mut self.errs;
        if !ty.is_empty() && !TYPES.contains(&ty) {
            e.push(FieldError::not_supported(
                &path.child("type"),
                Value::String(ty.into()),
                &TYPES.map(String::from),
            ));
        }
        if o.get("default").is_some_and(|d| !d.is_null()) && !ctx.allow_defaults {
            let detail = if ctx.defaults_reason.is_empty() {
                "must not be set".to_string()
            } else {
                format!("must not be set {}", ctx.defaults_reason)
            };
            e.push(FieldError::forbidden(&path.child("default"), detail));
        }
        for (k, msg) in [
            ("id", "id is not supported"),
            ("additionalItems", "additionalItems is not supported"),
            ("patternProperties", "patternProperties is not supported"),
            ("definitions", "definitions is not supported"),
            ("dependencies", "dependencies is not supported"),
            ("$ref", "$ref is not supported"),
        ] {
            if nonempty(o, k) {
                e.push(FieldError::forbidden(&path.child(k), msg));
            }
        }
        if ty == "null" {
            e.push(FieldError::forbidden(
                &path.child("type"),
                "type cannot be set to null, use nullable as an alternative",
            ));
        }
        if o.get("items").is_some_and(Value::is_array) {
            e.push(FieldError::forbidden(
                &path.child("items"),
                "items must be a schema object and not an array",
            ));
        }
        if ctx.inside_meta && o.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true)) {
            e.push(FieldError::forbidden(
                &path.child("x-kubernetes-embedded-resource"),
                "must not be used inside of resource meta",
            ));
        }
    }

    fn walk(&mut self, v: &Value, path: &FieldPath, ctx: Ctx, is_root: bool) {
        let Some(o) = v.as_object() else { return };
        self.standard(o, path, &ctx);
        if o.get("uniqueItems") == Some(&Value::Bool(true)) {
            self.errs.push(FieldError::forbidden(
                &path.child("uniqueItems"),
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            ));
        }
        let props = o.get("properties").and_then(Value::as_object);
        if let Some(ap) = o.get("additionalProperties").filter(|a| !a.is_null()) {
            if props.is_some_and(|p| !p.is_empty()) && *ap != Value::Bool(true) {
                self.errs.push(FieldError::forbidden(
                    &path.child("additionalProperties"),
                    "additionalProperties and properties are mutual exclusive",
                ));
            }
            let mut sub = ctx.clone();
            if ctx.inside_meta {
                sub.allow_defaults = false;
                sub.defaults_reason =
                    "inside additionalProperties applying to object metadata".into();
            }
            self.walk(ap, &path.child("additionalProperties"), sub, false);
        }
        let embedded = o.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
        let map_type = o.get("x-kubernetes-map-type").and_then(Value::as_str);
        let map_correlatable = matches!(map_type, None | Some("granular") | Some("atomic"));
        for (k, p) in props.into_iter().flatten() {
            let mut sub = ctx.clone();
            if !map_correlatable && sub.uncorrelatable.is_none() {
                sub.uncorrelatable = Some(path.clone());
            }
            if (is_root || embedded) && META_FIELDS.contains(&k.as_str()) {
                sub.inside_meta = true;
                if is_root {
                    sub.allow_defaults = false;
                    sub.defaults_reason = format!("in top-level {k}");
                }
            }
            self.walk(p, &path.child("properties").key(k), sub, false);
        }
        if let Some(n) = o.get("not") {
            self.walk(n, &path.child("not"), ctx.clone(), false);
        }
        for j in ["allOf", "oneOf", "anyOf"] {
            for (i, s) in o
                .get(j)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                self.walk(s, &path.child(j).index(i), ctx.clone(), false);
            }
        }
        if let Some(items) = o.get("items").filter(|i| i.is_object()) {
            let mut sub = ctx.clone();
            let is_map_list =
                o.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
            if !is_map_list && sub.uncorrelatable.is_none() {
                sub.uncorrelatable = Some(path.clone());
            }
            self.walk(items, &path.child("items"), sub, false);
        }
        self.extensions(o, path);
        self.list_map(o, path);
        self.rules(o, path, &ctx);
    }

    fn extensions(&mut self, o: &Map<String, Value>, path: &FieldPath) {
        let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
        let e = &mut self.errs;
        if o.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
            e.push(FieldError::invalid(
                &path.child("x-kubernetes-preserve-unknown-fields"),
                Value::Bool(false),
                "must be true or undefined",
            ));
        }
        if let Some(mt) = o.get("x-kubernetes-map-type").and_then(Value::as_str) {
            if ty.is_empty() {
                e.push(FieldError::required(
                    &path.child("type"),
                    "must be object if x-kubernetes-map-type is specified",
                ));
            } else if ty != "object" {
                e.push(FieldError::invalid(
                    &path.child("type"),
                    Value::String(ty.into()),
                    "must be object if x-kubernetes-map-type is specified",
                ));
            }
            if mt != "atomic" && mt != "granular" {
                e.push(FieldError::not_supported(
                    &path.child("x-kubernetes-map-type"),
                    Value::String(mt.into()),
                    &["atomic".into(), "granular".into()],
                ));
            }
        }
        let lt = o.get("x-kubernetes-list-type").and_then(Value::as_str);
        if let Some(lt) = lt {
            if ty.is_empty() {
                e.push(FieldError::required(
                    &path.child("type"),
                    "must be array if x-kubernetes-list-type is specified",
                ));
            } else if ty != "array" {
                e.push(FieldError::invalid(
                    &path.child("type"),
                    Value::String(ty.into()),
                    "must be array if x-kubernetes-list-type is specified",
                ));
            }
            if !["atomic", "set", "map"].contains(&lt) {
                e.push(FieldError::not_supported(
                    &path.child("x-kubernetes-list-type"),
                    Value::String(lt.into()),
                    &["atomic".into(), "set".into(), "map".into()],
                ));
            }
        }
        let has_keys = nonempty(o, "x-kubernetes-list-map-keys");
        match lt {
            None if has_keys => e.push(FieldError::required(
                &path.child("x-kubernetes-list-type"),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            )),
            Some(l) if has_keys && l != "map" => e.push(FieldError::invalid(
                &path.child("x-kubernetes-list-type"),
                Value::String(l.into()),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            )),
            Some("map") if !has_keys => e.push(FieldError::required(
                &path.child("x-kubernetes-list-map-keys"),
                "must not be empty if x-kubernetes-list-type is map",
            )),
            _ => {}
        }
        if lt == Some("map") && o.get("items").is_none_or(Value::is_null) {
            e.push(FieldError::required(
                &path.child("items"),
                "must have a schema if x-kubernetes-list-type is map",
            ));
        }
    }
}

/// Defaults must validate and already be pruned (R5.22, upstream `ValidateDefaults`).
fn validate_defaults(s: &Structural, path: &FieldPath) -> ErrorList {
    let mut errs = ErrorList::new();
    check_defaults(s, path, &mut errs);
    errs
}

fn check_defaults(s: &Structural, path: &FieldPath, errs: &mut ErrorList) {
    if let Some(d) = &s.default {
        let at = path.child("default");
        let mut pruned = d.clone();
        if !prune(&mut pruned, s, false, true).is_empty() {
            errs.push(FieldError::invalid(
                &at,
                d.clone(),
                "must not have unknown fields",
            ));
        } else {
            for mut e in validate_openapi(d, s) {
                e.field = if e.field.is_root() {
                    at.clone()
                } else {
                    at.child(e.field.as_str())
                };
                errs.push(e);
            }
        }
    }
    for (k, p) in &s.properties {
        check_defaults(p, &path.child("properties").key(k), errs);
    }
    if let Some(items) = &s.items {
        check_defaults(items, &path.child("items"), errs);
    }
    if let Some(crate::structural::AdditionalProperties::Schema(ap)) = &s.additional_properties {
        check_defaults(ap, &path.child("additionalProperties"), errs);
    }
}
