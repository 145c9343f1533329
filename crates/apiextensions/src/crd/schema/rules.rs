//! `x-kubernetes-list-type: map` item and key rules and `x-kubernetes-validations` entries of
//! a CRD schema node (R5.20, R5.23).

use super::{Ctx, Walker};
use crate::field::{FieldError, FieldPath};
use kube_cel::cel::Program;
use serde_json::{Map, Value};

impl Walker {
    /// List-type map items and keys (R5.20, upstream `validateMapListKeysMapSet` included).
    pub(super) fn list_map(&mut self, o: &Map<String, Value>, path: &FieldPath) {
        let lt = o.get("x-kubernetes-list-type").and_then(Value::as_str);
        let keys: Vec<&str> = o
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let keys_json = Value::from(keys.iter().map(|k| k.to_string()).collect::<Vec<_>>());
        let items = o.get("items").and_then(Value::as_object);
        let e = &mut self.errs;
        if lt == Some("map")
            && let Some(items) = items
        {
            let ity = items.get("type").and_then(Value::as_str).unwrap_or("");
            if ity != "object" {
                e.push(FieldError::invalid(
                    &path.child("items").child("type"),
                    Value::String(ity.into()),
                    "must be object if parent array's x-kubernetes-list-type is map",
                ));
            } else {
                let props = items.get("properties").and_then(Value::as_object);
                for (i, k) in keys.iter().enumerate() {
                    match props.and_then(|p| p.get(*k)) {
                        Some(ks) if matches!(ks.get("type").and_then(Value::as_str), Some("array" | "object")) => e.push(FieldError::invalid(
                            &path.child("items").child("properties").key(k).child("type"),
                            Value::String(ity.into()),
                            "must be a scalar type if parent array's x-kubernetes-list-type is map",
                        )),
                        Some(_) => {}
                        None => e.push(FieldError::invalid(&path.child("x-kubernetes-list-map-keys"), keys_json.clone(), "entries must all be names of item properties")),
                    }
                    if keys[..i].contains(k) {
                        e.push(FieldError::invalid(
                            &path.child("x-kubernetes-list-map-keys"),
                            keys_json.clone(),
                            "must not contain duplicate entries",
                        ));
                    }
                }
            }
        }
        let Some(items) = items else { return };
        let Some(lt @ ("set" | "map")) = lt else {
            return;
        };
        if items.get("nullable") == Some(&Value::Bool(true)) {
            e.push(FieldError::forbidden(
                &path.child("items").child("nullable"),
                format!("cannot be nullable when x-kubernetes-list-type is {lt}"),
            ));
        }
        if lt == "map" {
            let required: Vec<&str> = items
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let props = items.get("properties").and_then(Value::as_object);
            for k in &keys {
                let Some(ks) = props.and_then(|p| p.get(*k)).and_then(Value::as_object) else {
                    continue;
                };
                let at = path.child("items").child("properties").key(k);
                if !required.contains(k) && ks.get("default").is_none_or(Value::is_null) {
                    e.push(FieldError::required(&at.child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"));
                }
                if ks.get("nullable") == Some(&Value::Bool(true)) {
                    e.push(FieldError::forbidden(
                        &at.child("nullable"),
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                    ));
                }
            }
        }
    }

    /// `x-kubernetes-validations` entries (R5.23): required rule, one-line message,
    /// messageExpression, reason, fieldPath; compile errors and `oldSelf` in uncorrelatable
    /// positions are CEL errors.
    pub(super) fn rules(&mut self, o: &Map<String, Value>, path: &FieldPath, ctx: &Ctx) {
        let Some(rules) = o.get("x-kubernetes-validations").and_then(Value::as_array) else {
            return;
        };
        for (i, r) in rules.iter().enumerate() {
            let at = path.child("x-kubernetes-validations").index(i);
            let get = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let (rule, message, msg_expr, field_path) = (
                get("rule"),
                get("message"),
                get("messageExpression"),
                get("fieldPath"),
            );
            let e = &mut self.errs;
            let nl = |s: &str| s.contains(['\n', '\r']);
            if rule.trim().is_empty() {
                e.push(FieldError::required(
                    &at.child("rule"),
                    "rule is not specified",
                ));
            } else if !message.is_empty() && message.trim().is_empty() {
                e.push(FieldError::invalid(
                    &at.child("message"),
                    Value::String(message.clone()),
                    "must be non-empty if specified",
                ));
            } else if nl(message.trim()) {
                e.push(FieldError::invalid(
                    &at.child("message"),
                    Value::String(message.clone()),
                    "must not contain line breaks",
                ));
            } else if nl(rule.trim()) && message.trim().is_empty() {
                e.push(FieldError::required(
                    &at.child("message"),
                    "message must be specified if rule contains line breaks",
                ));
            }
            if !msg_expr.is_empty() && msg_expr.trim().is_empty() {
                e.push(FieldError::required(
                    &at.child("messageExpression"),
                    "messageExpression must be non-empty if specified",
                ));
            }
            if let Some(reason) = r.get("reason").and_then(Value::as_str)
                && ![
                    "FieldValueInvalid",
                    "FieldValueForbidden",
                    "FieldValueRequired",
                    "FieldValueDuplicate",
                ]
                .contains(&reason)
            {
                let supported = [
                    "FieldValueDuplicate",
                    "FieldValueForbidden",
                    "FieldValueInvalid",
                    "FieldValueRequired",
                ]
                .map(String::from);
                e.push(FieldError::not_supported(
                    &at.child("reason"),
                    Value::String(reason.into()),
                    &supported,
                ));
            }
            if !field_path.is_empty() && field_path.trim().is_empty() {
                e.push(FieldError::invalid(
                    &at.child("fieldPath"),
                    Value::String(field_path.clone()),
                    "must be non-empty if specified",
                ));
            }
            if nl(&field_path) {
                e.push(FieldError::invalid(
                    &at.child("fieldPath"),
                    Value::String(field_path.clone()),
                    "must not contain line breaks",
                ));
            }
            if !field_path.is_empty() && !field_path_valid(o, &field_path) {
                e.push(FieldError::invalid(
                    &at.child("fieldPath"),
                    Value::String(field_path.clone()),
                    "must be a valid path",
                ));
            }
            if rule.trim().is_empty() {
                continue;
            }
            match Program::compile(&rule) {
                Err(err) => self.cel_errs.push(FieldError::invalid_rendered(
                    &at.child("rule"),
                    crate::gojson::to_json(r),
                    format!("compilation failed: {err}"),
                )),
                Ok(p) if p.references().has_variable("oldSelf") => {
                    if let Some(u) = &ctx.uncorrelatable {
                        self.cel_errs.push(FieldError::invalid(
                            &at.child("rule"),
                            Value::String(rule.clone()),
                            format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {u}"),
                        ));
                    }
                }
                Ok(_) => {
                    if let Some(v) = r.get("optionalOldSelf").and_then(Value::as_bool) {
                        self.cel_errs.push(FieldError::invalid(
                            &at.child("optionalOldSelf"),
                            Value::Bool(v),
                            "may not be set if oldSelf is not used in rule",
                        ));
                    }
                }
            }
        }
    }
}

/// Whether a rule's `fieldPath` (`.a.b`, `['a.b']`) names a field below the schema node.
fn field_path_valid(node: &Map<String, Value>, field_path: &str) -> bool {
    let normalized = field_path.replace("['", ".").replace("']", "");
    let Some(rest) = normalized.strip_prefix('.') else {
        return false;
    };
    let mut cur = node;
    for seg in rest.split('.') {
        let next = cur
            .get("properties")
            .and_then(|p| p.get(seg))
            .or_else(|| cur.get("additionalProperties").filter(|a| a.is_object()));
        match next.and_then(Value::as_object) {
            Some(n) => cur = n,
            None => return false,
        }
    }
    true
}
