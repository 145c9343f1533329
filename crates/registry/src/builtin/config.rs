//! ConfigMaps and Secrets: their keys, their size, `immutable`, a Secret's `type` and the
//! keys each type requires (kube's `ValidateConfigMap`, `ValidateSecret` and their update
//! rules), and a Secret's `stringData`, merged into `data` on every write and never stored
//! (the v1 → internal conversion upstream).

use crate::error::StatusCause;
use crate::field;
use crate::meta;
use crate::strategy::{
    CreateStrategy, DeleteStrategy, GenericStrategy, NameRule, Strategy, UpdateStrategy,
};
use base64::Engine;
use serde_json::{Map, Value, json};

/// The most bytes a ConfigMap's or Secret's data may hold (`core.MaxSecretSize`, 1 MiB).
pub const MAX_DATA_SIZE: usize = 1024 * 1024;

const KEY_MSG: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const IMMUTABLE: &str = "field is immutable when `immutable` is set";

/// Problems of a data key (`validation.IsConfigMapKey`).
pub fn key_problems(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    if key.len() > 253 {
        out.push("must be no more than 253 characters".to_owned());
    }
    let valid = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !valid {
        out.push(KEY_MSG.to_owned());
    }
    match key {
        "." => out.push("must not be '.'".to_owned()),
        ".." => out.push("must not be '..'".to_owned()),
        k if k.starts_with("..") => out.push("must not start with '..'".to_owned()),
        _ => {}
    }
    out
}

fn map<'a>(obj: &'a Value, key: &str) -> impl Iterator<Item = (&'a String, &'a Value)> {
    obj.get(key)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

/// The keys of `bag` checked, their sizes added to `total` (`decoded` for base64 values).
fn check_keys(
    obj: &Value,
    bag: &str,
    decoded: bool,
    total: &mut usize,
    causes: &mut Vec<StatusCause>,
) {
    for (key, value) in map(obj, bag) {
        let path = format!("{bag}[{key}]");
        for problem in key_problems(key) {
            causes.push(field::invalid(&path, &json!(key), &problem));
        }
        let text = value.as_str().unwrap_or_default();
        *total += if decoded {
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .map(|b| b.len())
                .unwrap_or(text.len())
        } else {
            text.len()
        };
    }
}

/// Whether the stored object is immutable, and what an update of it may not change.
fn immutable_update(new: &Value, old: &Value, bags: &[&str], causes: &mut Vec<StatusCause>) {
    if old.get("immutable").and_then(Value::as_bool) != Some(true) {
        return;
    }
    if new.get("immutable").and_then(Value::as_bool) != Some(true) {
        causes.push(field::forbidden("immutable", IMMUTABLE));
    }
    for bag in bags {
        let empty = |v: Option<&Value>| {
            v.is_none_or(|v| v.is_null() || v.as_object().is_some_and(Map::is_empty))
        };
        let (a, b) = (new.get(*bag), old.get(*bag));
        if a != b && !(empty(a) && empty(b)) {
            causes.push(field::forbidden(bag, IMMUTABLE));
        }
    }
}

/// The strategy of ConfigMaps.
#[derive(Debug, Clone)]
pub struct ConfigMapStrategy(pub GenericStrategy);

impl CreateStrategy for ConfigMapStrategy {
    fn name_rule(&self) -> NameRule {
        self.0.name_rule()
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        let mut causes = Vec::new();
        let mut total = 0;
        check_keys(obj, "data", false, &mut total, &mut causes);
        for (key, _) in map(obj, "data") {
            if obj.get("binaryData").and_then(|b| b.get(key)).is_some() {
                causes.push(field::invalid(
                    &format!("data[{key}]"),
                    &json!(key),
                    "duplicate of key present in binaryData",
                ));
            }
        }
        check_keys(obj, "binaryData", true, &mut total, &mut causes);
        if total > MAX_DATA_SIZE {
            causes.push(field::too_long_bytes("", MAX_DATA_SIZE));
        }
        causes
    }
}

impl UpdateStrategy for ConfigMapStrategy {
    fn validate_update(&self, new: &Value, old: &Value, _sub: Option<&str>) -> Vec<StatusCause> {
        let mut causes = Vec::new();
        immutable_update(new, old, &["data", "binaryData"], &mut causes);
        causes.extend(self.validate(new));
        causes
    }
}

impl DeleteStrategy for ConfigMapStrategy {}

impl Strategy for ConfigMapStrategy {
    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.0.field_labels(obj)
    }
}

/// The Secret types and the data keys each requires (`ValidateSecret`).
const REQUIRED_KEYS: &[(&str, &[&str])] = &[
    ("kubernetes.io/dockercfg", &[".dockercfg"]),
    ("kubernetes.io/dockerconfigjson", &[".dockerconfigjson"]),
    ("kubernetes.io/ssh-auth", &["ssh-privatekey"]),
    ("kubernetes.io/tls", &["tls.crt", "tls.key"]),
];

/// The strategy of Secrets.
#[derive(Debug, Clone)]
pub struct SecretStrategy(pub GenericStrategy);

/// `stringData` merged into `data` (base64), then dropped.
fn merge_string_data(obj: &mut Value) {
    let Some(map) = obj.as_object_mut() else {
        return;
    };
    let Some(Value::Object(strings)) = map.remove("stringData") else {
        return;
    };
    let data = map.entry("data").or_insert_with(|| json!({}));
    if data.is_null() {
        *data = json!({});
    }
    if let Some(data) = data.as_object_mut() {
        for (k, v) in strings {
            let text = v.as_str().unwrap_or_default();
            let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
            data.insert(k, Value::String(encoded));
        }
    }
}

fn secret_type(obj: &Value) -> &str {
    obj.get("type").and_then(Value::as_str).unwrap_or_default()
}

impl CreateStrategy for SecretStrategy {
    fn name_rule(&self) -> NameRule {
        self.0.name_rule()
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        merge_string_data(obj);
        self.0.prepare_for_create(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        let mut causes = Vec::new();
        let mut total = 0;
        check_keys(obj, "data", true, &mut total, &mut causes);
        if total > MAX_DATA_SIZE {
            causes.push(field::too_long_bytes("data", MAX_DATA_SIZE));
        }
        let has = |k: &str| obj.get("data").and_then(|d| d.get(k)).is_some();
        let ty = secret_type(obj);
        match ty {
            "kubernetes.io/service-account-token" => {
                let annotation = meta::nested(
                    obj,
                    &[
                        "metadata",
                        "annotations",
                        "kubernetes.io/service-account.name",
                    ],
                );
                if annotation.and_then(Value::as_str).is_none_or(str::is_empty) {
                    causes.push(field::required(
                        "metadata.annotations[kubernetes.io/service-account.name]",
                        "",
                    ));
                }
            }
            "kubernetes.io/basic-auth" if !has("username") && !has("password") => {
                causes.push(field::required("data[username]", ""));
                causes.push(field::required("data[password]", ""));
            }
            _ => {}
        }
        for (_, keys) in REQUIRED_KEYS.iter().filter(|(t, _)| *t == ty) {
            for key in *keys {
                if !has(key) {
                    causes.push(field::required(&format!("data[{key}]"), ""));
                }
            }
        }
        causes
    }
}

impl UpdateStrategy for SecretStrategy {
    fn prepare_for_update(&self, new: &mut Value, _old: &Value, _sub: Option<&str>) {
        merge_string_data(new);
        self.0.prepare_for_create(new);
    }

    fn validate_update(&self, new: &Value, old: &Value, _sub: Option<&str>) -> Vec<StatusCause> {
        let mut causes = Vec::new();
        if secret_type(new) != secret_type(old) {
            causes.push(field::invalid(
                "type",
                &json!(secret_type(new)),
                "field is immutable",
            ));
        }
        immutable_update(new, old, &["data"], &mut causes);
        causes.extend(self.validate(new));
        causes
    }
}

impl DeleteStrategy for SecretStrategy {}

impl Strategy for SecretStrategy {
    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.0.field_labels(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> SecretStrategy {
        SecretStrategy(GenericStrategy::default())
    }

    fn configmaps() -> ConfigMapStrategy {
        ConfigMapStrategy(GenericStrategy::default())
    }

    #[test]
    fn a_config_key_with_a_space_is_invalid() {
        let causes = configmaps().validate(&json!({"data": {"bad key": "v", "good.key": "v"}}));
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "data[bad key]");
        assert_eq!(
            causes[0].message,
            format!("Invalid value: \"bad key\": {KEY_MSG}")
        );
    }

    #[test]
    fn a_key_in_data_and_binary_data_is_a_duplicate() {
        let causes =
            configmaps().validate(&json!({"data": {"k": "v"}, "binaryData": {"k": "dg=="}}));
        assert_eq!(
            causes[0].message,
            "Invalid value: \"k\": duplicate of key present in binaryData"
        );
    }

    #[test]
    fn more_than_a_mebibyte_of_data_is_too_long() {
        let big = "x".repeat(MAX_DATA_SIZE + 1);
        let causes = configmaps().validate(&json!({"data": {"k": big}}));
        assert_eq!(causes[0].reason, "FieldValueTooLong");
    }

    #[test]
    fn an_immutable_config_map_keeps_its_data_and_stays_immutable() {
        let old = json!({"immutable": true, "data": {"k": "v"}});
        let new = json!({"immutable": false, "data": {"k": "w"}});
        let causes = configmaps().validate_update(&new, &old, None);
        let fields: Vec<&str> = causes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["immutable", "data"]);
        assert_eq!(
            causes[1].message,
            "Forbidden: field is immutable when `immutable` is set"
        );
        let same =
            json!({"immutable": true, "data": {"k": "v"}, "metadata": {"labels": {"a": "b"}}});
        assert!(configmaps().validate_update(&same, &old, None).is_empty());
    }

    #[test]
    fn string_data_is_merged_into_data_as_base64() {
        let mut s = json!({"data": {"a": "YQ=="}, "stringData": {"b": "hello"}});
        secrets().prepare_for_create(&mut s);
        assert_eq!(s, json!({"data": {"a": "YQ==", "b": "aGVsbG8="}}));
    }

    #[test]
    fn a_tls_secret_needs_its_certificate_and_key() {
        let causes =
            secrets().validate(&json!({"type": "kubernetes.io/tls", "data": {"tls.crt": "eA=="}}));
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "data[tls.key]");
        assert_eq!(causes[0].message, "Required value");
    }

    #[test]
    fn a_secrets_type_is_immutable() {
        let old = json!({"type": "Opaque"});
        let new = json!({"type": "kubernetes.io/basic-auth", "data": {"username": "dQ=="}});
        let causes = secrets().validate_update(&new, &old, None);
        assert_eq!(causes[0].field, "type");
        assert_eq!(
            causes[0].message,
            "Invalid value: \"kubernetes.io/basic-auth\": field is immutable"
        );
    }
}
