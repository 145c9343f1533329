//! The Pod subresources that write part of a Pod, as upstream's strategies do:
//! `ephemeralcontainers` (only `spec.ephemeralContainers` is taken; existing ones may not
//! change or go), `resize` (only the containers' `resources` and `resizePolicy`; the QoS
//! class may not change) and `binding` (the handler builds the bound Pod).

use super::workload::qos_class;
use crate::error::StatusCause;
use crate::field;
use crate::meta;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// The subresources a Pod writes through its strategy.
pub const POD_SUBRESOURCES: [&str; 3] = ["ephemeralcontainers", "resize", "binding"];

fn spec_mut(obj: &mut Value) -> Option<&mut Map<String, Value>> {
    obj.as_object_mut()?
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
}

fn containers(obj: &Value, list: &str) -> Vec<Value> {
    meta::nested(obj, &["spec", list])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn name_of(c: &Value) -> &str {
    c.get("name").and_then(Value::as_str).unwrap_or("")
}

/// `ephemeralcontainers`: the old Pod with the new `spec.ephemeralContainers`.
pub fn prepare_ephemeral_containers(new: &mut Value, old: &Value) {
    let ephemeral = meta::nested(new, &["spec", "ephemeralContainers"]).cloned();
    let mut merged = old.clone();
    if let Some(spec) = spec_mut(&mut merged) {
        match ephemeral {
            Some(e) => spec.insert("ephemeralContainers".into(), e),
            None => spec.remove("ephemeralContainers"),
        };
    }
    *new = merged;
}

/// Fields an ephemeral container may set (upstream's allow-list); anything else is
/// `cannot be set for an Ephemeral Container`.
const EPHEMERAL_FIELDS: [&str; 17] = [
    "name",
    "image",
    "command",
    "args",
    "workingDir",
    "env",
    "envFrom",
    "volumeMounts",
    "volumeDevices",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
    "targetContainerName",
];

/// Whether a value is Go's zero value (what "not set" means for a defaulted field such as
/// `resources: {}`).
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.values().all(is_zero),
    }
}

/// `ValidatePodEphemeralContainersUpdate`: existing ephemeral containers are neither
/// removed nor changed; new ones are named uniquely, have an image, target a container of
/// the Pod and set only what an ephemeral container may.
pub fn validate_ephemeral_containers(new: &Value, old: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let now = containers(new, "ephemeralContainers");
    let before = containers(old, "ephemeralContainers");
    for b in &before {
        match now.iter().find(|c| name_of(c) == name_of(b)) {
            None => causes.push(field::forbidden(
                "spec.ephemeralContainers",
                &format!(
                    "existing ephemeral containers {} may not be removed\n",
                    Value::from(name_of(b))
                ),
            )),
            Some(c) if c != b => causes.push(field::forbidden(
                "spec.ephemeralContainers",
                &format!(
                    "existing ephemeral containers {} may not be changed\n",
                    Value::from(name_of(b))
                ),
            )),
            Some(_) => {}
        }
    }
    let regular: Vec<Value> = containers(new, "containers")
        .into_iter()
        .chain(containers(new, "initContainers"))
        .collect();
    let mut names: HashSet<String> = regular.iter().map(|c| name_of(c).to_owned()).collect();
    for (i, c) in now.iter().enumerate() {
        let path = format!("spec.ephemeralContainers[{i}]");
        let name = name_of(c);
        if name.is_empty() {
            causes.push(field::required(&format!("{path}.name"), ""));
        } else if !names.insert(name.to_owned()) {
            causes.push(field::duplicate(
                &format!("{path}.name"),
                &Value::from(name),
            ));
        }
        if c.get("image")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            causes.push(field::required(&format!("{path}.image"), ""));
        }
        if let Some(target) = c.get("targetContainerName").and_then(Value::as_str)
            && !target.is_empty()
            && !regular.iter().any(|r| name_of(r) == target)
        {
            causes.push(StatusCause {
                reason: "FieldValueNotFound".into(),
                message: format!("Not found: {}", Value::from(target)),
                field: format!("{path}.targetContainerName"),
            });
        }
        for (k, v) in c.as_object().into_iter().flatten() {
            if !EPHEMERAL_FIELDS.contains(&k.as_str()) && !is_zero(v) {
                causes.push(field::forbidden(
                    &format!("{path}.{k}"),
                    "cannot be set for an Ephemeral Container",
                ));
            }
        }
    }
    causes
}

/// `resize`: the old Pod with each container's new `resources` and `resizePolicy`; when
/// the containers are not the same ones (count or names), the new Pod as given, which
/// validation refuses.
pub fn prepare_resize(new: &mut Value, old: &Value) {
    let now = containers(new, "containers");
    let before = containers(old, "containers");
    let same = now.len() == before.len()
        && now
            .iter()
            .zip(&before)
            .all(|(a, b)| name_of(a) == name_of(b));
    if !same {
        return;
    }
    let resized: Vec<Value> = before
        .iter()
        .zip(&now)
        .map(|(b, n)| {
            let mut c = b.clone();
            if let Some(map) = c.as_object_mut() {
                for key in ["resources", "resizePolicy"] {
                    match n.get(key) {
                        Some(v) => map.insert(key.into(), v.clone()),
                        None => map.remove(key),
                    };
                }
            }
            c
        })
        .collect();
    let mut merged = old.clone();
    if let Some(spec) = spec_mut(&mut merged) {
        spec.insert("containers".into(), Value::Array(resized));
    }
    *new = merged;
}

/// Resource names a resize may change.
fn resizable(name: &str) -> bool {
    matches!(name, "cpu" | "memory")
}

/// A Pod spec with the resizable parts of its containers taken out.
fn without_resizable(obj: &Value) -> Value {
    let mut spec = obj.get("spec").cloned().unwrap_or(Value::Null);
    if let Some(list) = spec.get_mut("containers").and_then(Value::as_array_mut) {
        for c in list {
            let Some(map) = c.as_object_mut() else {
                continue;
            };
            map.remove("resizePolicy");
            if let Some(resources) = map.get_mut("resources").and_then(Value::as_object_mut) {
                for part in ["requests", "limits"] {
                    if let Some(r) = resources.get_mut(part).and_then(Value::as_object_mut) {
                        r.retain(|k, _| !resizable(k));
                    }
                }
                resources.retain(|_, v| !v.as_object().is_some_and(Map::is_empty));
            }
            if map
                .get("resources")
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
            {
                map.remove("resources");
            }
        }
    }
    spec
}

/// `ValidatePodResize`: the QoS class stays, and nothing but cpu and memory resources (and
/// the resize policy) changes.
pub fn validate_resize(new: &Value, old: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let before = qos_class(old);
    if qos_class(new) != before {
        causes.push(field::invalid(
            "spec",
            &Value::from(before),
            "Pod QOS Class may not change as a result of resizing",
        ));
    }
    if without_resizable(new) != without_resizable(old) {
        causes.push(field::forbidden(
            "spec",
            "only cpu and memory resources are mutable",
        ));
    }
    causes
}

/// Bumps `metadata.generation` when a subresource write changed the spec (upstream's
/// `updatePodGeneration`).
pub fn bump_generation_on_spec_change(new: &mut Value, old: &Value) {
    if new.get("spec") == old.get("spec") {
        return;
    }
    let g = meta::nested(old, &["metadata", "generation"])
        .and_then(Value::as_i64)
        .unwrap_or(0);
    meta::set_meta(new, "generation", Some(Value::from(g + 1)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod() -> Value {
        json!({"metadata": {"name": "p", "labels": {"a": "b"}},
            "spec": {"containers": [{"name": "app", "image": "nginx",
                "resources": {"requests": {"cpu": "100m"}}}]},
            "status": {"phase": "Running"}})
    }

    #[test]
    fn ephemeral_containers_take_only_the_new_list() {
        let old = pod();
        let mut new = pod();
        new["metadata"]["labels"] = json!({"x": "y"});
        new["spec"]["ephemeralContainers"] = json!([{"name": "debug", "image": "busybox"}]);
        new["spec"]["containers"][0]["image"] = json!("other");
        prepare_ephemeral_containers(&mut new, &old);
        assert_eq!(new["metadata"]["labels"], json!({"a": "b"}));
        assert_eq!(new["spec"]["containers"][0]["image"], "nginx");
        assert_eq!(new["spec"]["ephemeralContainers"][0]["name"], "debug");
        assert!(validate_ephemeral_containers(&new, &old).is_empty());
    }

    #[test]
    fn an_existing_ephemeral_container_may_not_be_removed() {
        let mut old = pod();
        old["spec"]["ephemeralContainers"] = json!([{"name": "debug", "image": "busybox"}]);
        let causes = validate_ephemeral_containers(&pod(), &old);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.ephemeralContainers");
        assert_eq!(
            causes[0].message,
            "Forbidden: existing ephemeral containers \"debug\" may not be removed\n"
        );
    }

    #[test]
    fn an_ephemeral_container_may_not_have_ports_or_a_duplicate_name() {
        let mut new = pod();
        new["spec"]["ephemeralContainers"] =
            json!([{"name": "app", "image": "busybox", "ports": [{"containerPort": 80}]}]);
        let causes = validate_ephemeral_containers(&new, &pod());
        let fields: Vec<(&str, &str)> = causes
            .iter()
            .map(|c| (c.field.as_str(), c.message.as_str()))
            .collect();
        assert_eq!(
            fields,
            vec![
                (
                    "spec.ephemeralContainers[0].name",
                    "Duplicate value: \"app\""
                ),
                (
                    "spec.ephemeralContainers[0].ports",
                    "Forbidden: cannot be set for an Ephemeral Container"
                ),
            ]
        );
    }

    #[test]
    fn resize_takes_only_resources_and_keeps_the_rest() {
        let old = pod();
        let mut new = pod();
        new["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "200m"}});
        new["spec"]["containers"][0]["image"] = json!("changed");
        prepare_resize(&mut new, &old);
        assert_eq!(new["spec"]["containers"][0]["image"], "nginx");
        assert_eq!(
            new["spec"]["containers"][0]["resources"]["requests"]["cpu"],
            "200m"
        );
        assert!(validate_resize(&new, &old).is_empty());
    }

    #[test]
    fn a_resize_that_changes_the_qos_class_is_invalid() {
        let old = pod();
        let mut new = pod();
        new["spec"]["containers"][0]["resources"] = json!({});
        prepare_resize(&mut new, &old);
        let causes = validate_resize(&new, &old);
        assert_eq!(causes.len(), 1);
        assert_eq!(
            causes[0].message,
            "Invalid value: \"Burstable\": Pod QOS Class may not change as a result of resizing"
        );
    }

    #[test]
    fn a_resize_that_adds_a_container_is_forbidden() {
        let old = pod();
        let mut new = pod();
        new["spec"]["containers"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "two", "image": "x"}));
        prepare_resize(&mut new, &old);
        let causes = validate_resize(&new, &old);
        assert_eq!(
            causes.last().unwrap().message,
            "Forbidden: only cpu and memory resources are mutable"
        );
    }
}
