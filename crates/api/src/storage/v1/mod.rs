//! storage.k8s.io/v1: StorageClasses, CSI drivers and nodes, capacities, attachments. The types are generated (`types.rs`, see `docs/api.md`).

mod defaults;
mod types;

pub use defaults::{
    set_defaults_csi_driver, set_defaults_storage_class, set_defaults_volume_attachment,
};
pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// storage.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "storage.k8s.io/v1";

/// Registers storage.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("storage.k8s.io", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.add_type_defaulting_func::<StorageClass>(set_defaults_storage_class);
    scheme.add_type_defaulting_func::<StorageClassList>(|l| {
        l.items.iter_mut().for_each(set_defaults_storage_class)
    });
    scheme.add_type_defaulting_func::<CSIDriver>(set_defaults_csi_driver);
    scheme.add_type_defaulting_func::<CSIDriverList>(|l| {
        l.items.iter_mut().for_each(set_defaults_csi_driver)
    });
    scheme.add_type_defaulting_func::<VolumeAttachment>(set_defaults_volume_attachment);
    scheme.add_type_defaulting_func::<VolumeAttachmentList>(|l| {
        l.items.iter_mut().for_each(set_defaults_volume_attachment)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
