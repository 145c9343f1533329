//! storage.k8s.io/v1 defaults, as pkg/apis/storage/v1/defaults.go sets them: a
//! StorageClass's reclaim policy and binding mode, a CSIDriver's flags and modes; and, by the
//! generated defaulter's walk, a VolumeAttachment's inline volume sources (core/v1's).

use super::types::*;
use crate::core::v1::set_defaults_persistent_volume_source;

/// `SetDefaults_StorageClass`: reclaim policy Delete, binding mode Immediate.
pub fn set_defaults_storage_class(c: &mut StorageClass) {
    c.reclaim_policy.get_or_insert_with(|| "Delete".into());
    c.volume_binding_mode
        .get_or_insert_with(|| "Immediate".into());
}

/// `SetDefaults_CSIDriver`: attach required; no pod info on mount, storage capacity,
/// republishing or SELinux mounts; fsGroup policy ReadWriteOnceWithFSType; Persistent
/// volumes only.
pub fn set_defaults_csi_driver(d: &mut CSIDriver) {
    let s = &mut d.spec;
    s.attach_required.get_or_insert(true);
    s.pod_info_on_mount.get_or_insert(false);
    s.storage_capacity.get_or_insert(false);
    s.fs_group_policy
        .get_or_insert_with(|| "ReadWriteOnceWithFSType".into());
    if s.volume_lifecycle_modes.is_empty() {
        s.volume_lifecycle_modes.push("Persistent".into());
    }
    s.requires_republish.get_or_insert(false);
    s.se_linux_mount.get_or_insert(false);
}

/// A VolumeAttachment: its inline PersistentVolumeSpec's sources get core/v1's defaults.
pub fn set_defaults_volume_attachment(a: &mut VolumeAttachment) {
    if let Some(spec) = &mut a.spec.source.inline_volume_spec {
        set_defaults_persistent_volume_source(spec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// SetDefaults_StorageClass: Delete and Immediate when unset.
    #[test]
    fn a_storage_class_deletes_and_binds_immediately() {
        let mut c: StorageClass =
            serde_json::from_value(json!({"provisioner": "example.com/disk"})).unwrap();
        set_defaults_storage_class(&mut c);
        assert_eq!(c.reclaim_policy.as_deref(), Some("Delete"));
        assert_eq!(c.volume_binding_mode.as_deref(), Some("Immediate"));
        assert_eq!(c.allow_volume_expansion, None);
    }

    /// SetDefaults_StorageClass keeps what the class says.
    #[test]
    fn a_storage_classs_own_policy_and_mode_are_kept() {
        let mut c: StorageClass = serde_json::from_value(json!({
            "provisioner": "p", "reclaimPolicy": "Retain", "volumeBindingMode": "WaitForFirstConsumer"
        }))
        .unwrap();
        set_defaults_storage_class(&mut c);
        assert_eq!(c.reclaim_policy.as_deref(), Some("Retain"));
        assert_eq!(
            c.volume_binding_mode.as_deref(),
            Some("WaitForFirstConsumer")
        );
    }

    /// SetDefaults_CSIDriver on an empty spec.
    #[test]
    fn a_csi_driver_gets_every_default() {
        let mut d = CSIDriver::default();
        set_defaults_csi_driver(&mut d);
        let s = &d.spec;
        assert_eq!(s.attach_required, Some(true));
        assert_eq!(s.pod_info_on_mount, Some(false));
        assert_eq!(s.storage_capacity, Some(false));
        assert_eq!(s.requires_republish, Some(false));
        assert_eq!(s.se_linux_mount, Some(false));
        assert_eq!(
            s.fs_group_policy.as_deref(),
            Some("ReadWriteOnceWithFSType")
        );
        assert_eq!(s.volume_lifecycle_modes, ["Persistent"]);
        assert_eq!(s.service_account_token_in_secrets, None);
    }

    /// SetDefaults_CSIDriver keeps given values.
    #[test]
    fn a_csi_drivers_own_settings_are_kept() {
        let mut d: CSIDriver = serde_json::from_value(json!({"spec": {
            "attachRequired": false, "fsGroupPolicy": "File", "volumeLifecycleModes": ["Ephemeral"]
        }}))
        .unwrap();
        set_defaults_csi_driver(&mut d);
        assert_eq!(d.spec.attach_required, Some(false));
        assert_eq!(d.spec.fs_group_policy.as_deref(), Some("File"));
        assert_eq!(d.spec.volume_lifecycle_modes, ["Ephemeral"]);
    }

    /// The generated defaulter walks into a VolumeAttachment's inline volume spec
    /// (SetDefaults_HostPathVolumeSource), but not SetDefaults_PersistentVolume.
    #[test]
    fn a_volume_attachments_inline_spec_gets_its_sources_defaults() {
        let mut a: VolumeAttachment = serde_json::from_value(json!({"spec": {
            "attacher": "a", "nodeName": "n",
            "source": {"inlineVolumeSpec": {"hostPath": {"path": "/d"}}}
        }}))
        .unwrap();
        set_defaults_volume_attachment(&mut a);
        let spec = a.spec.source.inline_volume_spec.unwrap();
        assert_eq!(spec.host_path.unwrap().r#type.as_deref(), Some(""));
        assert_eq!(spec.persistent_volume_reclaim_policy, "");
    }
}
