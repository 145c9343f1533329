//! Bad values as kube's field errors show its internal types: `json.Marshal` of a struct
//! without json tags writes Go field names and every field (`null` for nil slices and
//! pointers). Done for the small types whose errors quote them whole (a RoleRef, node
//! selector terms, a volume's node affinity); larger values are shown in their versioned
//! JSON.

use serde_json::{Value, json};

fn text(v: &Value, key: &str) -> Value {
    json!(v.get(key).and_then(Value::as_str).unwrap_or_default())
}

/// A list of strings, `null` when absent or empty (a nil Go slice).
fn strings(v: Option<&Value>) -> Value {
    match v.and_then(Value::as_array) {
        Some(a) if !a.is_empty() => Value::Array(a.clone()),
        _ => Value::Null,
    }
}

/// A list of `f`'s renderings, `null` when absent or empty.
fn list(v: Option<&Value>, f: fn(&Value) -> Value) -> Value {
    match v.and_then(Value::as_array) {
        Some(a) if !a.is_empty() => Value::Array(a.iter().map(f).collect()),
        _ => Value::Null,
    }
}

/// `rbac.RoleRef`: `{"APIGroup":…,"Kind":…,"Name":…}`.
pub fn role_ref(v: &Value) -> Value {
    json!({"APIGroup": text(v, "apiGroup"), "Kind": text(v, "kind"), "Name": text(v, "name")})
}

/// `core.NodeSelectorRequirement`: `{"Key":…,"Operator":…,"Values":…}`.
fn requirement(v: &Value) -> Value {
    json!({"Key": text(v, "key"), "Operator": text(v, "operator"), "Values": strings(v.get("values"))})
}

/// `core.NodeSelectorTerm`: `{"MatchExpressions":…,"MatchFields":…}`.
pub fn node_selector_term(v: &Value) -> Value {
    json!({
        "MatchExpressions": list(v.get("matchExpressions"), requirement),
        "MatchFields": list(v.get("matchFields"), requirement),
    })
}

/// A `[]core.NodeSelectorTerm` (`null` when nil or empty).
pub fn node_selector_terms(v: Option<&Value>) -> Value {
    list(v, node_selector_term)
}

/// A `*core.VolumeNodeAffinity`: `{"Required":{"NodeSelectorTerms":[…]}}` or `null`.
pub fn volume_node_affinity(v: Option<&Value>) -> Value {
    let Some(affinity) = v.filter(|v| !v.is_null()) else {
        return Value::Null;
    };
    let required = match affinity.get("required").filter(|r| !r.is_null()) {
        Some(r) => json!({"NodeSelectorTerms": node_selector_terms(r.get("nodeSelectorTerms"))}),
        None => Value::Null,
    };
    json!({"Required": required})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_ref_shows_go_field_names() {
        let r =
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"});
        assert_eq!(
            role_ref(&r).to_string(),
            r#"{"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"view"}"#
        );
    }

    #[test]
    fn nil_lists_of_node_selector_terms_are_null() {
        let term = json!({"matchExpressions": [{"key": "k", "operator": "Exists"}]});
        assert_eq!(
            node_selector_term(&term).to_string(),
            r#"{"MatchExpressions":[{"Key":"k","Operator":"Exists","Values":null}],"MatchFields":null}"#
        );
        assert_eq!(volume_node_affinity(None), Value::Null);
        assert_eq!(
            volume_node_affinity(Some(&json!({}))).to_string(),
            r#"{"Required":null}"#
        );
    }
}
