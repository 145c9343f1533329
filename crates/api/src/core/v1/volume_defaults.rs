//! core/v1 defaults of storage, as pkg/apis/core/v1/defaults.go sets them
//! (`SetDefaults_PersistentVolume`, `_PersistentVolumeClaim`, `_PersistentVolumeClaimSpec`,
//! and the volume sources' `SetDefaults_HostPathVolumeSource`, `_ISCSI…`, `_RBD…`,
//! `_AzureDiskVolumeSource`, `_ScaleIO…`): what a volume, a claim or a pod's volume reads
//! back with.

use super::types::*;

/// `SetDefaults_HostPathVolumeSource`: type `""` (no check before mounting).
fn default_host_path(h: &mut HostPathVolumeSource) {
    h.r#type.get_or_insert_with(String::new);
}

/// `SetDefaults_AzureDiskVolumeSource`: ReadWrite caching, a shared blob disk, ext4, read-write.
fn default_azure_disk(d: &mut AzureDiskVolumeSource) {
    d.caching_mode.get_or_insert_with(|| "ReadWrite".into());
    d.kind.get_or_insert_with(|| "Shared".into());
    d.fs_type.get_or_insert_with(|| "ext4".into());
    d.read_only.get_or_insert(false);
}

fn default_if_empty(field: &mut String, value: &str) {
    if field.is_empty() {
        *field = value.into();
    }
}

/// `SetDefaults_RBDVolumeSource` and `_RBDPersistentVolumeSource`.
fn default_rbd(pool: &mut String, user: &mut String, keyring: &mut String) {
    default_if_empty(pool, "rbd");
    default_if_empty(user, "admin");
    default_if_empty(keyring, "/etc/ceph/keyring");
}

/// `SetDefaults_ScaleIOVolumeSource` and `_ScaleIOPersistentVolumeSource`.
fn default_scale_io(storage_mode: &mut String, fs_type: &mut String) {
    default_if_empty(storage_mode, "ThinProvisioned");
    default_if_empty(fs_type, "xfs");
}

/// The sources of a pod's volume (`SetDefaults_Volume`'s siblings of the generated
/// defaulter): hostPath, iSCSI, RBD, Azure disk, ScaleIO, and an ephemeral volume's claim.
pub(super) fn set_defaults_volume_sources(v: &mut Volume) {
    if let Some(h) = &mut v.host_path {
        default_host_path(h);
    }
    if let Some(i) = &mut v.iscsi {
        default_if_empty(&mut i.iscsi_interface, "default");
    }
    if let Some(r) = &mut v.rbd {
        default_rbd(&mut r.pool, &mut r.user, &mut r.keyring);
    }
    if let Some(d) = &mut v.azure_disk {
        default_azure_disk(d);
    }
    if let Some(s) = &mut v.scale_io {
        default_scale_io(&mut s.storage_mode, &mut s.fs_type);
    }
    if let Some(t) = v
        .ephemeral
        .as_mut()
        .and_then(|e| e.volume_claim_template.as_mut())
    {
        set_defaults_pvc_spec(&mut t.spec);
    }
}

/// The volume sources of a PersistentVolumeSpec (a PersistentVolume's, or a
/// VolumeAttachment's inline spec): hostPath, iSCSI, RBD, Azure disk, ScaleIO.
pub fn set_defaults_persistent_volume_source(s: &mut PersistentVolumeSpec) {
    if let Some(h) = &mut s.host_path {
        default_host_path(h);
    }
    if let Some(i) = &mut s.iscsi {
        default_if_empty(&mut i.iscsi_interface, "default");
    }
    if let Some(r) = &mut s.rbd {
        default_rbd(&mut r.pool, &mut r.user, &mut r.keyring);
    }
    if let Some(d) = &mut s.azure_disk {
        default_azure_disk(d);
    }
    if let Some(io) = &mut s.scale_io {
        default_scale_io(&mut io.storage_mode, &mut io.fs_type);
    }
}

/// `SetDefaults_PersistentVolumeClaimSpec`: `volumeMode: Filesystem` (claims, claim
/// templates of StatefulSets and ephemeral volumes).
/// Its resources are rounded up to milli-units (`SetDefaults_ResourceList`).
pub fn set_defaults_pvc_spec(s: &mut PersistentVolumeClaimSpec) {
    s.volume_mode.get_or_insert_with(|| "Filesystem".into());
    super::set_defaults_resource_list(&mut s.resources.limits);
    super::set_defaults_resource_list(&mut s.resources.requests);
}

/// `SetDefaults_PersistentVolumeClaim` with its spec: phase Pending, `volumeMode: Filesystem`.
pub fn set_defaults_pvc(c: &mut PersistentVolumeClaim) {
    if c.status.phase.is_empty() {
        c.status.phase = "Pending".into();
    }
    set_defaults_pvc_spec(&mut c.spec);
    super::set_defaults_resource_list(&mut c.status.capacity);
    super::set_defaults_resource_list(&mut c.status.allocated_resources);
}

/// `SetDefaults_PersistentVolume` with its source: phase Pending, reclaim policy Retain,
/// `volumeMode: Filesystem`.
pub fn set_defaults_pv(v: &mut PersistentVolume) {
    if v.status.phase.is_empty() {
        v.status.phase = "Pending".into();
    }
    if v.spec.persistent_volume_reclaim_policy.is_empty() {
        v.spec.persistent_volume_reclaim_policy = "Retain".into();
    }
    v.spec
        .volume_mode
        .get_or_insert_with(|| "Filesystem".into());
    set_defaults_persistent_volume_source(&mut v.spec);
    super::set_defaults_resource_list(&mut v.spec.capacity);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pv(spec: serde_json::Value) -> PersistentVolume {
        let mut v: PersistentVolume = serde_json::from_value(json!({"spec": spec})).unwrap();
        set_defaults_pv(&mut v);
        v
    }

    /// SetDefaults_PersistentVolume: Pending, Retain, Filesystem.
    #[test]
    fn a_volume_is_pending_retained_and_a_filesystem() {
        let v = pv(json!({"capacity": {"storage": "1Gi"}}));
        assert_eq!(v.status.phase, "Pending");
        assert_eq!(v.spec.persistent_volume_reclaim_policy, "Retain");
        assert_eq!(v.spec.volume_mode.as_deref(), Some("Filesystem"));
    }

    /// SetDefaults_PersistentVolume keeps a given policy and mode.
    #[test]
    fn a_volumes_given_policy_and_block_mode_are_kept() {
        let v = pv(json!({"persistentVolumeReclaimPolicy": "Delete", "volumeMode": "Block"}));
        assert_eq!(v.spec.persistent_volume_reclaim_policy, "Delete");
        assert_eq!(v.spec.volume_mode.as_deref(), Some("Block"));
    }

    /// SetDefaults_HostPathVolumeSource: type "" (HostPathUnset).
    #[test]
    fn a_host_path_volume_gets_an_empty_type() {
        let v = pv(json!({"hostPath": {"path": "/data"}}));
        assert_eq!(v.spec.host_path.unwrap().r#type.as_deref(), Some(""));
    }

    /// SetDefaults_ISCSIPersistentVolumeSource, _RBDPersistentVolumeSource,
    /// _AzureDiskVolumeSource, _ScaleIOPersistentVolumeSource.
    #[test]
    fn legacy_volume_sources_get_upstreams_defaults() {
        let iscsi = pv(json!({"iscsi": {"targetPortal": "t", "iqn": "q", "lun": 0}}));
        assert_eq!(iscsi.spec.iscsi.unwrap().iscsi_interface, "default");
        let rbd = pv(json!({"rbd": {"monitors": ["m"], "image": "i"}}))
            .spec
            .rbd
            .unwrap();
        assert_eq!((rbd.pool.as_str(), rbd.user.as_str()), ("rbd", "admin"));
        assert_eq!(rbd.keyring, "/etc/ceph/keyring");
        let disk = pv(json!({"azureDisk": {"diskName": "d", "diskURI": "u"}}));
        let disk = disk.spec.azure_disk.unwrap();
        assert_eq!(disk.caching_mode.as_deref(), Some("ReadWrite"));
        assert_eq!(disk.kind.as_deref(), Some("Shared"));
        assert_eq!(disk.fs_type.as_deref(), Some("ext4"));
        assert_eq!(disk.read_only, Some(false));
        let io = pv(json!({"scaleIO": {"gateway": "g", "system": "s"}}))
            .spec
            .scale_io
            .unwrap();
        assert_eq!(
            (io.storage_mode.as_str(), io.fs_type.as_str()),
            ("ThinProvisioned", "xfs")
        );
    }

    /// SetDefaults_PersistentVolumeClaim and _PersistentVolumeClaimSpec: Pending, Filesystem.
    #[test]
    fn a_claim_is_pending_and_a_filesystem() {
        let mut c = PersistentVolumeClaim::default();
        set_defaults_pvc(&mut c);
        assert_eq!(c.status.phase, "Pending");
        assert_eq!(c.spec.volume_mode.as_deref(), Some("Filesystem"));
    }

    /// SetDefaults_PersistentVolumeClaim keeps a phase a controller wrote.
    #[test]
    fn a_bound_claim_stays_bound() {
        let mut c: PersistentVolumeClaim =
            serde_json::from_value(json!({"status": {"phase": "Bound"}})).unwrap();
        set_defaults_pvc(&mut c);
        assert_eq!(c.status.phase, "Bound");
    }

    /// The generated defaulter's walk: an ephemeral volume's claim template gets
    /// SetDefaults_PersistentVolumeClaimSpec.
    #[test]
    fn an_ephemeral_volumes_claim_template_is_a_filesystem() {
        let mut v: Volume = serde_json::from_value(json!({
            "name": "scratch",
            "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}
        }))
        .unwrap();
        set_defaults_volume_sources(&mut v);
        let t = v.ephemeral.unwrap().volume_claim_template.unwrap();
        assert_eq!(t.spec.volume_mode.as_deref(), Some("Filesystem"));
    }
}
