//! What an update of the storage kinds may change: a PersistentVolumeClaim's spec only in
//! its volume name (once), a storage class given late, and a bound claim's storage request
//! and attributes class (`ValidatePersistentVolumeClaimUpdate`); a PersistentVolume's
//! source, volume mode and node affinity never (`ValidatePersistentVolumeUpdate`); and the
//! immutable fields of StorageClass, CSIDriver, VolumeAttributesClass, CSIStorageCapacity
//! and VolumeAttachment.

use super::internal_json;
use super::semantic::{get, immutable_field, semantic_eq, set, text};
use super::spec_diff::json_diff;
use crate::error::StatusCause;
use crate::field;
use crate::meta;
use kapi_api::resource::Quantity;
use serde_json::Value;
use std::cmp::Ordering;

const BETA_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// `ValidatePersistentVolumeClaimUpdate` (1.36), after the new claim's own validation.
pub fn validate_pvc_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let (mut new_c, mut old_c) = (spec_of(new), spec_of(old));
    if text(&old_c, "volumeName").is_empty() {
        set(&mut old_c, "volumeName", get(&new_c, "volumeName"));
    }
    storage_class_update(new, old, &mut new_c, &old_c, &mut causes);
    let bound = meta::nested(old, &["status", "phase"]).and_then(Value::as_str) == Some("Bound");
    if bound {
        if let Some(requests) = new_c
            .get_mut("resources")
            .and_then(|r| r.get_mut("requests"))
        {
            let old_storage = meta::nested(&old_c, &["resources", "requests", "storage"]);
            set(requests, "storage", old_storage);
        }
        if get(&new_c, "volumeAttributesClassName").is_some_and(|v| !v.is_null()) {
            set(
                &mut new_c,
                "volumeAttributesClassName",
                get(&old_c, "volumeAttributesClassName"),
            );
        }
    }
    if !semantic_eq(Some(&new_c), Some(&old_c)) {
        let diff = json_diff(Some(&old_c), Some(&new_c));
        causes.push(field::forbidden(
            "spec",
            &format!("spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n{diff}"),
        ));
    }
    causes.extend(shrink(new, old));
    causes.extend(immutable_field(
        "volumeMode",
        meta::nested(new, &["spec", "volumeMode"]),
        meta::nested(old, &["spec", "volumeMode"]),
    ));
    causes.extend(attributes_class_update(new, old));
    causes
}

fn spec_of(obj: &Value) -> Value {
    obj.get("spec").cloned().unwrap_or(Value::Null)
}

fn beta_class(obj: &Value) -> Option<&str> {
    meta::nested(obj, &["metadata", "annotations", BETA_CLASS]).and_then(Value::as_str)
}

/// The storage class may be given late: from the beta annotation
/// (`validateStorageClassUpgradeFromAnnotation`) or from nothing
/// (`validateStorageClassUpgradeFromNil`); otherwise the annotation is immutable.
fn storage_class_update(
    new: &Value,
    old: &Value,
    new_c: &mut Value,
    old_c: &Value,
    causes: &mut Vec<StatusCause>,
) {
    let (old_ann, new_ann) = (beta_class(old), beta_class(new));
    let class = |c: &Value| get(c, "storageClassName").filter(|v| !v.is_null()).cloned();
    let (old_sc, new_sc) = (class(old_c), class(new_c));
    let new_sc_text = new_sc.as_ref().and_then(Value::as_str);
    let from_annotation = old_ann.is_some()
        && old_sc.is_none()
        && new_sc_text.is_some()
        && new_sc_text == old_ann
        && (new_ann.is_none() || new_ann == old_ann);
    if from_annotation {
        set(new_c, "storageClassName", None);
        return;
    }
    if new_ann.unwrap_or_default() != old_ann.unwrap_or_default() {
        causes.push(field::invalid(
            &format!("metadata.annotations.{BETA_CLASS}"),
            &Value::from(new_ann.unwrap_or_default()),
            "field is immutable",
        ));
    }
    let from_nil =
        new_sc.is_some() && old_sc.is_none() && (old_ann.is_none() || new_sc_text == old_ann);
    if from_nil {
        set(new_c, "storageClassName", None);
    }
}

fn quantity(obj: &Value, path: &[&str]) -> Quantity {
    meta::nested(obj, path)
        .and_then(Value::as_str)
        .and_then(|s| Quantity::parse(s).ok())
        .unwrap_or_default()
}

/// A smaller storage request is allowed only above `status.capacity` (expansion recovery,
/// GA).
fn shrink(new: &Value, old: &Value) -> Option<StatusCause> {
    let request = ["spec", "resources", "requests", "storage"];
    let (new_size, old_size) = (quantity(new, &request), quantity(old, &request));
    let capacity = quantity(old, &["status", "capacity", "storage"]);
    (new_size.cmp_amount(&old_size) == Ordering::Less
        && new_size.cmp_amount(&capacity) != Ordering::Greater)
        .then(|| {
            field::forbidden(
                "spec.resources.requests.storage",
                "field can not be less than status.capacity",
            )
        })
}

/// A claim whose attributes class is in use may not lose it (1.36's words).
fn attributes_class_update(new: &Value, old: &Value) -> Option<StatusCause> {
    let path = ["spec", "volumeAttributesClassName"];
    let (new_v, old_v) = (meta::nested(new, &path), meta::nested(old, &path));
    let current = meta::nested(old, &["status", "currentVolumeAttributesClassName"]);
    if semantic_eq(new_v, old_v) || current.is_none_or(Value::is_null) {
        return None;
    }
    let detail = match new_v.filter(|v| !v.is_null()).and_then(Value::as_str) {
        None => {
            "update to nil is forbidden when status.currentVolumeAttributesClassName is not nil"
        }
        Some("") => {
            "update to empty string is forbidden when status.currentVolumeAttributesClassName is not nil"
        }
        Some(_) => return None,
    };
    Some(field::forbidden("spec.volumeAttributesClassName", detail))
}

/// The volume sources of a PersistentVolumeSpec (its inlined `PersistentVolumeSource`).
const PV_SOURCES: [&str; 22] = [
    "awsElasticBlockStore",
    "azureDisk",
    "azureFile",
    "cephfs",
    "cinder",
    "csi",
    "fc",
    "flexVolume",
    "flocker",
    "gcePersistentDisk",
    "glusterfs",
    "hostPath",
    "iscsi",
    "local",
    "nfs",
    "photonPersistentDisk",
    "portworxVolume",
    "quobyte",
    "rbd",
    "scaleIO",
    "storageos",
    "vsphereVolume",
];

fn pv_source(obj: &Value) -> Value {
    let mut source = Value::Object(Default::default());
    let spec = obj.get("spec").unwrap_or(&Value::Null);
    for key in PV_SOURCES {
        set(&mut source, key, get(spec, key));
    }
    source
}

/// `ValidatePersistentVolumeUpdate` (1.36, `MutablePVNodeAffinity` off).
pub fn validate_pv_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let (mut new_src, old_src) = (pv_source(new), pv_source(old));
    let secret = |s: &Value| {
        get(s, "csi")
            .and_then(|c| get(c, "controllerExpandSecretRef"))
            .is_some_and(|v| !v.is_null())
    };
    let secret_added = get(&old_src, "csi").is_some() && !secret(&old_src) && secret(&new_src);
    if secret_added && let Some(csi) = new_src.get_mut("csi") {
        set(csi, "controllerExpandSecretRef", None);
    }
    if !semantic_eq(Some(&new_src), Some(&old_src)) {
        let diff = json_diff(Some(&old_src), Some(&new_src));
        causes.push(field::forbidden(
            "spec.persistentvolumesource",
            &format!("spec.persistentvolumesource is immutable after creation\n{diff}"),
        ));
    }
    causes.extend(immutable_field(
        "volumeMode",
        meta::nested(new, &["spec", "volumeMode"]),
        meta::nested(old, &["spec", "volumeMode"]),
    ));
    fn affinity(o: &Value) -> Option<&Value> {
        meta::nested(o, &["spec", "nodeAffinity"]).filter(|v| !v.is_null())
    }
    if let Some(old_na) = affinity(old)
        && !semantic_eq(
            ga_labels(affinity(new)).as_ref(),
            ga_labels(Some(old_na)).as_ref(),
        )
    {
        causes.push(field::invalid(
            "nodeAffinity",
            &internal_json::volume_node_affinity(affinity(new)),
            "field is immutable, except for updating from beta label to GA",
        ));
    }
    let class = ["spec", "volumeAttributesClassName"];
    if meta::nested(old, &class).is_some_and(|v| !v.is_null())
        && meta::nested(new, &class).is_none_or(Value::is_null)
    {
        causes.push(field::forbidden(
            "spec.volumeAttributesClassName",
            "update from non-nil value to nil is forbidden",
        ));
    }
    causes
}

/// The beta topology label keys and their GA names.
const BETA_TO_GA: [(&str, &str); 5] = [
    (
        "failure-domain.beta.kubernetes.io/zone",
        "topology.kubernetes.io/zone",
    ),
    (
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/region",
    ),
    ("beta.kubernetes.io/os", "kubernetes.io/os"),
    ("beta.kubernetes.io/arch", "kubernetes.io/arch"),
    (
        "beta.kubernetes.io/instance-type",
        "node.kubernetes.io/instance-type",
    ),
];

/// A volume node affinity with its requirements' beta label keys renamed to GA, so that
/// the beta → GA update compares equal.
fn ga_labels(affinity: Option<&Value>) -> Option<Value> {
    let mut a = affinity?.clone();
    let terms = a
        .get_mut("required")
        .and_then(|r| r.get_mut("nodeSelectorTerms"))
        .and_then(Value::as_array_mut);
    for term in terms.into_iter().flatten() {
        let exprs = term
            .get_mut("matchExpressions")
            .and_then(Value::as_array_mut);
        for expr in exprs.into_iter().flatten() {
            let ga = BETA_TO_GA
                .iter()
                .find(|(beta, _)| get(expr, "key").and_then(Value::as_str) == Some(beta));
            if let Some((_, ga)) = ga {
                set(expr, "key", Some(&Value::from(*ga)));
            }
        }
    }
    Some(a)
}

/// `ValidateStorageClassUpdate` as 1.36 words it (`Invalid … field is immutable`).
pub fn validate_storage_class_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    [
        "parameters",
        "provisioner",
        "reclaimPolicy",
        "volumeBindingMode",
    ]
    .iter()
    .filter_map(|k| immutable_field(k, get(new, k), get(old, k)))
    .collect()
}

/// `ValidateCSIDriverUpdate`: `attachRequired` (reported as upstream's
/// `spec.attachedRequired`) and `volumeLifecycleModes` are immutable.
pub fn validate_csi_driver_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    fn at<'a>(o: &'a Value, k: &str) -> Option<&'a Value> {
        meta::nested(o, &["spec", k])
    }
    let mut causes = Vec::new();
    causes.extend(immutable_field(
        "spec.attachedRequired",
        at(new, "attachRequired"),
        at(old, "attachRequired"),
    ));
    causes.extend(immutable_field(
        "spec.volumeLifecycleModes",
        at(new, "volumeLifecycleModes"),
        at(old, "volumeLifecycleModes"),
    ));
    causes
}

/// `ValidateVolumeAttributesClassUpdate`: driver and parameters are fixed.
pub fn validate_volume_attributes_class_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    if text(new, "driverName") != text(old, "driverName") {
        causes.push(field::forbidden(
            "driverName",
            "updates to driverName are forbidden.",
        ));
    }
    if !semantic_eq(get(new, "parameters"), get(old, "parameters")) {
        causes.push(field::forbidden(
            "parameters",
            "updates to parameters are forbidden.",
        ));
    }
    causes
}

/// `ValidateCSIStorageCapacityUpdate`: topology and class are fixed.
pub fn validate_csi_storage_capacity_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    ["nodeTopology", "storageClassName"]
        .iter()
        .filter_map(|k| immutable_field(k, get(new, k), get(old, k)))
        .collect()
}

/// `ValidateVolumeAttachmentUpdate`: the spec is fixed (shown in its versioned JSON).
pub fn validate_volume_attachment_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    immutable_field("spec", get(new, "spec"), get(old, "spec"))
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claim(spec: Value, status: Value) -> Value {
        let mut s = json!({"accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem",
            "resources": {"requests": {"storage": "1Gi"}}});
        if let (Some(base), Some(extra)) = (s.as_object_mut(), spec.as_object()) {
            base.extend(extra.clone());
        }
        json!({"metadata": {"name": "c"}, "spec": s, "status": status})
    }

    fn fields(causes: &[StatusCause]) -> Vec<&str> {
        causes.iter().map(|c| c.field.as_str()).collect()
    }

    #[test]
    fn validate_pvc_update_forbids_new_access_modes_with_a_diff() {
        let old = claim(json!({}), json!({"phase": "Pending"}));
        let new = claim(
            json!({"accessModes": ["ReadWriteMany"]}),
            json!({"phase": "Pending"}),
        );
        let causes = validate_pvc_update(&new, &old);
        assert_eq!(fields(&causes), ["spec"]);
        let (text, diff) = causes[0].message.split_once('\n').unwrap();
        assert_eq!(
            text,
            "Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
        );
        assert!(
            diff.contains("-  \"ReadWriteOnce\"\n+  \"ReadWriteMany\"\n"),
            "{diff}"
        );
    }

    #[test]
    fn validate_pvc_update_lets_a_bound_claim_grow_and_an_unbound_one_not() {
        let bigger = json!({"resources": {"requests": {"storage": "2Gi"}}});
        let bound = json!({"phase": "Bound", "capacity": {"storage": "1Gi"}});
        assert!(
            validate_pvc_update(
                &claim(bigger.clone(), bound.clone()),
                &claim(json!({}), bound)
            )
            .is_empty()
        );
        let pending = json!({"phase": "Pending"});
        let causes =
            validate_pvc_update(&claim(bigger, pending.clone()), &claim(json!({}), pending));
        assert_eq!(fields(&causes), ["spec"]);
    }

    #[test]
    fn validate_pvc_update_refuses_a_shrink_to_the_capacity() {
        let bound = json!({"phase": "Bound", "capacity": {"storage": "1Gi"}});
        let old = claim(
            json!({"resources": {"requests": {"storage": "2Gi"}}}),
            bound.clone(),
        );
        let new = claim(
            json!({"resources": {"requests": {"storage": "1024Mi"}}}),
            bound.clone(),
        );
        let causes = validate_pvc_update(&new, &old);
        assert_eq!(fields(&causes), ["spec.resources.requests.storage"]);
        assert_eq!(
            causes[0].message,
            "Forbidden: field can not be less than status.capacity"
        );
        let above = claim(
            json!({"resources": {"requests": {"storage": "1536Mi"}}}),
            bound,
        );
        assert!(validate_pvc_update(&above, &old).is_empty());
    }

    #[test]
    fn validate_pvc_update_sets_volume_name_and_class_once() {
        let pending = json!({"phase": "Pending"});
        let old = claim(json!({}), pending.clone());
        let new = claim(
            json!({"volumeName": "pv1", "storageClassName": "fast"}),
            pending.clone(),
        );
        assert!(validate_pvc_update(&new, &old).is_empty());
        let renamed = claim(
            json!({"volumeName": "pv2", "storageClassName": "fast"}),
            pending,
        );
        assert_eq!(fields(&validate_pvc_update(&renamed, &new)), ["spec"]);
    }

    #[test]
    fn validate_pvc_update_reports_a_new_volume_mode_without_spec_prefix() {
        let pending = json!({"phase": "Pending"});
        let new = claim(json!({"volumeMode": "Block"}), pending.clone());
        let causes = validate_pvc_update(&new, &claim(json!({}), pending));
        assert_eq!(fields(&causes), ["spec", "volumeMode"]);
        assert_eq!(
            causes[1].message,
            "Invalid value: \"Block\": field is immutable"
        );
    }

    #[test]
    fn validate_pv_update_forbids_a_new_source() {
        let pv = |path: &str| json!({"spec": {"hostPath": {"path": path}, "capacity": {"storage": "1Gi"}}});
        let causes = validate_pv_update(&pv("/b"), &pv("/a"));
        assert_eq!(fields(&causes), ["spec.persistentvolumesource"]);
        assert!(
            causes[0].message.starts_with(
                "Forbidden: spec.persistentvolumesource is immutable after creation\n@@"
            )
        );
        let mut reclaimed = pv("/a");
        reclaimed["spec"]["persistentVolumeReclaimPolicy"] = json!("Delete");
        assert!(validate_pv_update(&reclaimed, &pv("/a")).is_empty());
    }

    #[test]
    fn validate_pv_node_affinity_allows_only_beta_to_ga_renames() {
        let pv = |key: &str, value: &str| {
            json!({"spec": {"nodeAffinity": {"required": {"nodeSelectorTerms":
            [{"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}}}})
        };
        let old = pv("failure-domain.beta.kubernetes.io/zone", "a");
        assert!(validate_pv_update(&pv("topology.kubernetes.io/zone", "a"), &old).is_empty());
        let causes = validate_pv_update(&pv("topology.kubernetes.io/zone", "b"), &old);
        assert_eq!(fields(&causes), ["nodeAffinity"]);
        assert_eq!(
            causes[0].message,
            "Invalid value: {\"Required\":{\"NodeSelectorTerms\":[{\"MatchExpressions\":[{\"Key\":\"topology.kubernetes.io/zone\",\"Operator\":\"In\",\"Values\":[\"b\"]}],\"MatchFields\":null}]}}: field is immutable, except for updating from beta label to GA"
        );
    }

    #[test]
    fn validate_storage_class_update_names_each_immutable_field() {
        let old =
            json!({"provisioner": "a", "reclaimPolicy": "Delete", "parameters": {"type": "gp2"}});
        let new = json!({"provisioner": "b", "reclaimPolicy": "Delete", "parameters": {"type": "gp3"},
            "allowVolumeExpansion": true});
        let causes = validate_storage_class_update(&new, &old);
        assert_eq!(fields(&causes), ["parameters", "provisioner"]);
        assert_eq!(
            causes[0].message,
            "Invalid value: {\"type\":\"gp3\"}: field is immutable"
        );
    }

    #[test]
    fn validate_csi_driver_update_uses_upstreams_attached_required_path() {
        let old = json!({"spec": {"attachRequired": true}});
        let new = json!({"spec": {"attachRequired": false}});
        let causes = validate_csi_driver_update(&new, &old);
        assert_eq!(fields(&causes), ["spec.attachedRequired"]);
        assert_eq!(
            causes[0].message,
            "Invalid value: false: field is immutable"
        );
    }

    #[test]
    fn validate_volume_attributes_class_update_forbids_a_new_driver() {
        let causes = validate_volume_attributes_class_update(
            &json!({"driverName": "b"}),
            &json!({"driverName": "a"}),
        );
        assert_eq!(
            causes[0].message,
            "Forbidden: updates to driverName are forbidden."
        );
    }
}
