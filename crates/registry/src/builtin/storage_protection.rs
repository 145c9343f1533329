//! kube-apiserver's StorageObjectInUseProtection admission plugin, as a pure function of the
//! write (plugin/pkg/admission/storage/storageobjectinuseprotection): every
//! PersistentVolumeClaim created gets the finalizer [`PVC_PROTECTION_FINALIZER`], every
//! PersistentVolume [`PV_PROTECTION_FINALIZER`], once, so that deleting one that is in use
//! only marks it; kube-controller-manager's protection controllers (kapi's
//! `kapi_controllers::volume_protection`) remove the finalizer once nothing uses it. Updates
//! and subresources are left alone, as upstream's plugin handles only CREATE of the main
//! resource. The server runs it in its admission chain (`kapi_server::admission`).

use crate::meta;
use crate::rest::admission::{AdmissionRequest, Operation};
use serde_json::Value;

/// The plugin's name, as `--disable-admission-plugins` names it.
pub const PLUGIN_NAME: &str = "StorageObjectInUseProtection";

/// The finalizer that keeps a PersistentVolumeClaim while a Pod uses it.
pub const PVC_PROTECTION_FINALIZER: &str = "kubernetes.io/pvc-protection";

/// The finalizer that keeps a PersistentVolume while it is Bound.
pub const PV_PROTECTION_FINALIZER: &str = "kubernetes.io/pv-protection";

/// The protection finalizer of a core resource, if it has one.
pub fn finalizer_of(group: &str, resource: &str) -> Option<&'static str> {
    match (group, resource) {
        ("", "persistentvolumeclaims") => Some(PVC_PROTECTION_FINALIZER),
        ("", "persistentvolumes") => Some(PV_PROTECTION_FINALIZER),
        _ => None,
    }
}

/// The plugin's mutation: on CREATE of a claim or volume (not of a subresource) the
/// protection finalizer is appended after those the object has. Whether it changed `obj`.
pub fn admit(request: &AdmissionRequest<'_>, obj: &mut Value) -> bool {
    if request.operation != Operation::Create || request.subresource.is_some() {
        return false;
    }
    let Some(finalizer) = finalizer_of(request.group, request.resource) else {
        return false;
    };
    let added = meta::add_finalizer(obj, finalizer);
    if added {
        tracing::debug!(
            resource = request.resource,
            namespace = request.namespace.unwrap_or(""),
            name = request.name,
            finalizer,
            "adding the protection finalizer"
        );
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(resource: &'static str, operation: Operation) -> AdmissionRequest<'static> {
        AdmissionRequest {
            operation,
            group: "",
            version: "v1",
            resource,
            kind: "",
            subresource: None,
            namespace: None,
            name: "x",
            old: None,
            dry_run: false,
        }
    }

    #[test]
    fn a_new_claim_gets_the_pvc_protection_finalizer_after_its_own() {
        let mut pvc = json!({"metadata": {"name": "c", "finalizers": ["example.com/a"]}});
        assert!(admit(
            &request("persistentvolumeclaims", Operation::Create),
            &mut pvc
        ));
        assert_eq!(
            pvc["metadata"]["finalizers"],
            json!(["example.com/a", PVC_PROTECTION_FINALIZER])
        );
    }

    #[test]
    fn a_new_volume_gets_the_pv_protection_finalizer() {
        let mut pv = json!({"metadata": {"name": "v"}});
        assert!(admit(
            &request("persistentvolumes", Operation::Create),
            &mut pv
        ));
        assert_eq!(
            pv["metadata"]["finalizers"],
            json!([PV_PROTECTION_FINALIZER])
        );
    }

    #[test]
    fn a_claim_that_has_the_finalizer_does_not_get_it_twice() {
        let mut pvc = json!({"metadata": {"finalizers": [PVC_PROTECTION_FINALIZER]}});
        assert!(!admit(
            &request("persistentvolumeclaims", Operation::Create),
            &mut pvc
        ));
        assert_eq!(
            pvc["metadata"]["finalizers"],
            json!([PVC_PROTECTION_FINALIZER])
        );
    }

    #[test]
    fn updates_subresources_and_other_kinds_are_left_alone() {
        let mut pvc = json!({"metadata": {"name": "c"}});
        assert!(!admit(
            &request("persistentvolumeclaims", Operation::Update),
            &mut pvc
        ));
        let status = AdmissionRequest {
            subresource: Some("status"),
            ..request("persistentvolumeclaims", Operation::Create)
        };
        assert!(!admit(&status, &mut pvc));
        let other_group = AdmissionRequest {
            group: "example.com",
            ..request("persistentvolumeclaims", Operation::Create)
        };
        assert!(!admit(&other_group, &mut pvc));
        assert!(!admit(&request("configmaps", Operation::Create), &mut pvc));
        assert_eq!(pvc, json!({"metadata": {"name": "c"}}));
    }
}
