//! Conversion by rules: a version to the hub by its steps in order, the hub to a version
//! by that version's steps undone in reverse (preserved fields first kept aside).

use crate::PRESERVED_ANNOTATION;
use crate::path::{FieldPath, Segment, for_each_item, get, set, take};
use crate::rules::{Rule, Rules};
use kapi_cel::{Expression, Variables};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Why an object could not be converted: the version, the step and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{version} step {index} ({rule}): {message}")]
pub struct ConvertError {
    /// The version whose step failed.
    pub version: String,
    /// The step's position in that version's list.
    pub index: usize,
    /// The step, described.
    pub rule: String,
    /// What went wrong.
    pub message: String,
}

/// Moves the value at `from` to `to` (inside each item when both go through a list).
fn rename(v: &mut Value, from: &FieldPath, to: &FieldPath) -> Result<(), String> {
    match (from.split_at_last_list(), to.split_at_last_list()) {
        (Some((prefix, rel_from)), Some((_, rel_to))) => {
            for_each_item(v, prefix, &mut |item| match take(item, rel_from) {
                Some(value) => set(item, rel_to, value),
                None => Ok(()),
            })
        }
        _ => match take(v, from.segments()) {
            Some(value) => set(v, to.segments(), value),
            None => Ok(()),
        },
    }
}

/// Sets `field` (in each item, through lists) to `value` where it is absent.
fn default(v: &mut Value, field: &FieldPath, value: &Value) -> Result<(), String> {
    let (prefix, rel): (&[Segment], &[Segment]) = match field.split_at_last_list() {
        Some((p, r)) => (p, r),
        None => (&[], field.segments()),
    };
    for_each_item(v, prefix, &mut |item| {
        if get(item, rel).is_none_or(Value::is_null) {
            set(item, rel, value.clone())
        } else {
            Ok(())
        }
    })
}

/// Removes `field` (in each item, through lists).
fn remove(v: &mut Value, field: &FieldPath) -> Result<(), String> {
    let (prefix, rel): (&[Segment], &[Segment]) = match field.split_at_last_list() {
        Some((p, r)) => (p, r),
        None => (&[], field.segments()),
    };
    for_each_item(v, prefix, &mut |item| {
        take(item, rel);
        Ok(())
    })
}

/// Sets each field to its expression's value over `v` as it was (a null result sets
/// nothing), then removes `consumed`.
fn compute(
    v: &mut Value,
    produce: &[(FieldPath, Arc<Expression>)],
    consumed: &[(FieldPath, Arc<Expression>)],
) -> Result<(), String> {
    let mut vars = Variables::new();
    vars.set("self", v);
    let mut values = Vec::with_capacity(produce.len());
    for (path, expr) in produce {
        let value = expr.evaluate(&vars).map_err(|e| format!("{path}: {e}"))?;
        values.push((path, value));
    }
    for (path, _) in consumed {
        take(v, path.segments());
    }
    for (path, value) in values {
        if !value.is_null() {
            set(v, path.segments(), value)?;
        }
    }
    Ok(())
}

fn annotations(v: &mut Value) -> Option<&mut Map<String, Value>> {
    v.get_mut("metadata")?
        .get_mut("annotations")?
        .as_object_mut()
}

/// The values kept aside in the object's preserved annotation.
fn preserved(v: &Value) -> Map<String, Value> {
    v["metadata"]["annotations"][PRESERVED_ANNOTATION]
        .as_str()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default()
}

fn write_preserved(v: &mut Value, kept: Map<String, Value>) -> Result<(), String> {
    if kept.is_empty() {
        if let Some(a) = annotations(v) {
            a.remove(PRESERVED_ANNOTATION);
            if a.is_empty()
                && let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut)
            {
                m.remove("annotations");
            }
        }
        return Ok(());
    }
    let text = Value::Object(kept).to_string();
    let meta = v
        .as_object_mut()
        .ok_or("the object is not an object")?
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let a = meta
        .as_object_mut()
        .ok_or("metadata is not an object")?
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    a.as_object_mut()
        .ok_or("metadata.annotations is not an object")?
        .insert(PRESERVED_ANNOTATION.to_owned(), Value::String(text));
    Ok(())
}

impl Rules {
    fn fail(version: &str, index: usize, rule: &Rule, message: String) -> ConvertError {
        ConvertError {
            version: version.to_owned(),
            index,
            rule: rule.describe(),
            message,
        }
    }

    /// `v` (in `version`) to the hub, in place.
    fn version_to_hub(&self, v: &mut Value, version: &str) -> Result<(), ConvertError> {
        let steps = self.steps(version);
        for (i, rule) in steps.iter().enumerate() {
            let done = match rule {
                Rule::Rename { from, to } => rename(v, from, to),
                Rule::Default { field, value } => default(v, field, value),
                Rule::Compute { to_hub, from_hub } => compute(v, to_hub, from_hub),
                Rule::Preserve(_) => Ok(()),
            };
            done.map_err(|m| Self::fail(version, i, rule, m))?;
        }
        // Kept values go back last, over any default.
        let mut kept = preserved(v);
        for (i, rule) in steps.iter().enumerate() {
            if let Rule::Preserve(field) = rule
                && let Some(value) = kept.remove(&field.to_string())
            {
                set(v, field.segments(), value).map_err(|m| Self::fail(version, i, rule, m))?;
            }
        }
        write_preserved(v, kept).map_err(|m| ConvertError {
            version: version.to_owned(),
            index: 0,
            rule: "preserve".into(),
            message: m,
        })
    }

    /// `v` (the hub) to `version`, in place.
    fn hub_to_version(&self, v: &mut Value, version: &str) -> Result<(), ConvertError> {
        let steps = self.steps(version);
        // Fields the version has no room for are kept aside first.
        let mut kept = preserved(v);
        for rule in steps {
            if let Rule::Preserve(field) = rule
                && let Some(value) = take(v, field.segments())
            {
                kept.insert(field.to_string(), value);
            }
        }
        for (i, rule) in steps.iter().enumerate().rev() {
            let done = match rule {
                Rule::Rename { from, to } => rename(v, to, from),
                Rule::Default { field, .. } => remove(v, field),
                Rule::Compute { to_hub, from_hub } => compute(v, from_hub, to_hub),
                Rule::Preserve(_) => Ok(()),
            };
            done.map_err(|m| Self::fail(version, i, rule, m))?;
        }
        write_preserved(v, kept).map_err(|m| ConvertError {
            version: version.to_owned(),
            index: 0,
            rule: "preserve".into(),
            message: m,
        })
    }

    /// Converts `obj` (its `apiVersion` says which version it is in) to `version` of the
    /// same group, through the hub.
    pub fn convert(&self, obj: &Value, version: &str) -> Result<Value, ConvertError> {
        self.convert_owned(obj.clone(), version)
    }

    /// [`Rules::convert`] of an object the caller gives up (no copy is made).
    pub fn convert_owned(&self, mut v: Value, version: &str) -> Result<Value, ConvertError> {
        let api_version = v["apiVersion"].as_str().unwrap_or("").to_owned();
        let (group, from) = api_version
            .rsplit_once('/')
            .unwrap_or(("", api_version.as_str()));
        if from != version {
            if from != self.hub {
                self.version_to_hub(&mut v, from)?;
            }
            if version != self.hub {
                self.hub_to_version(&mut v, version)?;
            }
        }
        if let Some(m) = v.as_object_mut() {
            let target = if group.is_empty() {
                version.to_owned()
            } else {
                format!("{group}/{version}")
            };
            m.insert("apiVersion".to_owned(), Value::String(target));
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(steps: &str) -> Rules {
        Rules::parse(&format!("hub: v2\nversions:\n  v1:\n{steps}")).unwrap()
    }

    fn v1(spec: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
    }

    #[test]
    fn a_rename_moves_the_field_both_ways() {
        let r = rules("    - rename: {from: spec.label, to: spec.displayName}\n");
        let hub = r
            .convert(&v1(json!({"label": "x", "replicas": 2})), "v2")
            .unwrap();
        assert_eq!(hub["apiVersion"], "example.com/v2");
        assert_eq!(hub["spec"], json!({"displayName": "x", "replicas": 2}));
        assert_eq!(
            r.convert(&hub, "v1").unwrap(),
            v1(json!({"label": "x", "replicas": 2}))
        );
    }

    #[test]
    fn a_move_into_a_nested_object_and_out_again() {
        let r = rules("    - rename: {from: spec.image, to: spec.container.image}\n");
        let hub = r.convert(&v1(json!({"image": "nginx"})), "v2").unwrap();
        assert_eq!(hub["spec"], json!({"container": {"image": "nginx"}}));
        let back = r.convert(&hub, "v1").unwrap();
        assert_eq!(back["spec"]["image"], "nginx");
    }

    #[test]
    fn a_rename_inside_a_list_renames_in_every_item() {
        let r = rules("    - rename: {from: 'spec.ports[].portName', to: 'spec.ports[].name'}\n");
        let obj = v1(json!({"ports": [{"portName": "http", "port": 80}, {"port": 443}]}));
        let hub = r.convert(&obj, "v2").unwrap();
        assert_eq!(
            hub["spec"]["ports"],
            json!([{"name": "http", "port": 80}, {"port": 443}])
        );
        assert_eq!(r.convert(&hub, "v1").unwrap(), obj);
    }

    #[test]
    fn a_default_fills_the_hub_and_goes_on_the_way_back() {
        let r = rules("    - default: {field: spec.priority, value: 5}\n");
        let hub = r.convert(&v1(json!({})), "v2").unwrap();
        assert_eq!(hub["spec"]["priority"], 5);
        assert_eq!(r.convert(&hub, "v1").unwrap()["spec"], json!({}));
    }

    #[test]
    fn a_preserved_field_survives_a_round_trip_through_the_version_without_it() {
        let r = rules(
            "    - preserve: spec.priority\n    - default: {field: spec.priority, value: 5}\n",
        );
        let hub = json!({"apiVersion": "example.com/v2", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"priority": 9}});
        let old = r.convert(&hub, "v1").unwrap();
        assert_eq!(old["spec"], json!({}));
        assert_eq!(
            old["metadata"]["annotations"][PRESERVED_ANNOTATION],
            "{\"spec.priority\":9}"
        );
        let again = r.convert(&old, "v2").unwrap();
        assert_eq!(again, hub);
    }

    #[test]
    fn a_computation_splits_and_joins() {
        let r = rules(concat!(
            "    - compute:\n",
            "        toHub: {spec.repository: \"self.spec.image.split(':')[0]\", spec.tag: \"self.spec.image.split(':')[1]\"}\n",
            "        fromHub: {spec.image: \"self.spec.repository + ':' + self.spec.tag\"}\n",
        ));
        let obj = v1(json!({"image": "nginx:1.27"}));
        let hub = r.convert(&obj, "v2").unwrap();
        assert_eq!(hub["spec"], json!({"repository": "nginx", "tag": "1.27"}));
        assert_eq!(r.convert(&hub, "v1").unwrap(), obj);
    }

    #[test]
    fn a_failing_expression_names_the_version_and_step() {
        let r = rules(
            "    - compute: {toHub: {spec.tag: \"self.spec.image.split(':')[1]\"}, fromHub: {}}\n",
        );
        let e = r.convert(&v1(json!({})), "v2").unwrap_err();
        assert_eq!((e.version.as_str(), e.index), ("v1", 0));
        assert!(
            e.to_string()
                .starts_with("v1 step 0 (compute spec.tag): spec.tag: "),
            "{e}"
        );
    }

    #[test]
    fn versions_without_steps_only_change_the_api_version() {
        let r = rules("    - rename: {from: spec.a, to: spec.b}\n");
        let obj = json!({"apiVersion": "example.com/v3", "kind": "Widget", "spec": {"a": 1}});
        assert_eq!(r.convert(&obj, "v2").unwrap()["spec"], json!({"a": 1}));
    }
}
