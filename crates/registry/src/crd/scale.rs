//! The `scale` subresource of a custom resource: an autoscaling/v1 Scale view of the object
//! through the CRD's `specReplicasPath`, `statusReplicasPath` and `labelSelectorPath`
//! (golden `cr-scale.json`), and the write-back of `spec.replicas`.

use crate::error::StatusCause;
use crate::meta;
use serde_json::{Map, Value, json};

/// The JSON paths of a CRD version's scale subresource (`.spec.replicas`).
#[derive(Debug, Clone, Default)]
pub struct ScaleSpec {
    /// Path of the desired replicas.
    pub spec_replicas: String,
    /// Path of the observed replicas.
    pub status_replicas: String,
    /// Path of the label selector (string form), if any.
    pub label_selector: Option<String>,
}

fn segments(path: &str) -> Vec<&str> {
    path.trim_start_matches('.')
        .split('.')
        .filter(|s| !s.is_empty())
        .collect()
}

fn at<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    meta::nested(obj, &segments(path))
}

impl ScaleSpec {
    /// The Scale of `obj`.
    pub fn view(&self, obj: &Value) -> Value {
        let mut metadata = Map::new();
        for k in [
            "name",
            "namespace",
            "uid",
            "resourceVersion",
            "creationTimestamp",
        ] {
            if let Some(v) = meta::meta(obj).and_then(|m| m.get(k)) {
                metadata.insert(k.into(), v.clone());
            }
        }
        let replicas = |p: &str| at(obj, p).and_then(Value::as_i64).unwrap_or(0);
        let mut status = json!({"replicas": replicas(&self.status_replicas)});
        if let Some(sel) = self.label_selector.as_deref().and_then(|p| at(obj, p))
            && let Some(s) = status.as_object_mut()
        {
            s.insert("selector".into(), sel.clone());
        }
        let mut spec = json!({});
        if let Some(r) = at(obj, &self.spec_replicas).and_then(Value::as_i64) {
            spec = json!({"replicas": r});
        }
        json!({
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": metadata,
            "spec": spec,
            "status": status,
        })
    }

    /// Writes the Scale's `spec.replicas` into `obj`; causes when it is not a non-negative
    /// integer.
    pub fn apply(&self, obj: &mut Value, scale: &Value) -> Result<(), Vec<StatusCause>> {
        let replicas = meta::nested(scale, &["spec", "replicas"])
            .cloned()
            .unwrap_or(json!(0));
        match replicas.as_i64() {
            Some(r) if r >= 0 => {}
            _ => {
                return Err(vec![StatusCause {
                    reason: "FieldValueInvalid".into(),
                    message: format!(
                        "Invalid value: {replicas}: must be greater than or equal to 0"
                    ),
                    field: "spec.replicas".into(),
                }]);
            }
        }
        let segs = segments(&self.spec_replicas);
        let Some((last, parents)) = segs.split_last() else {
            return Ok(());
        };
        let mut node = obj;
        for seg in parents {
            let Some(map) = node.as_object_mut() else {
                return Ok(());
            };
            node = map.entry(seg.to_string()).or_insert_with(|| json!({}));
        }
        if let Some(map) = node.as_object_mut() {
            map.insert(last.to_string(), replicas);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ScaleSpec {
        ScaleSpec {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: None,
        }
    }

    #[test]
    fn scale_view_reads_the_replica_paths_and_defaults_status_to_zero() {
        let obj =
            json!({"metadata": {"name": "w1", "labels": {"a": "b"}}, "spec": {"replicas": 3}});
        let v = spec().view(&obj);
        assert_eq!(v["spec"]["replicas"], 3);
        assert_eq!(v["status"]["replicas"], 0);
        assert!(v["metadata"].get("labels").is_none());
    }

    #[test]
    fn negative_replicas_are_refused() {
        let mut obj = json!({"spec": {}});
        let err = spec()
            .apply(&mut obj, &json!({"spec": {"replicas": -1}}))
            .unwrap_err();
        assert_eq!(err[0].field, "spec.replicas");
    }
}
