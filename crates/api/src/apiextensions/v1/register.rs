//! Registration and defaults of apiextensions.k8s.io/v1
//! (apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go).

use super::{CustomResourceConversion, CustomResourceDefinition, CustomResourceDefinitionList};
use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// apiextensions.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "apiextensions.k8s.io/v1";

crate::impl_kind!(CustomResourceDefinition, object_meta, json_only);
crate::impl_kind!(CustomResourceDefinitionList, list_meta, json_only);

/// CRD defaults: singular and list kind from the kind, conversion `None`, webhook service
/// port 443, and the storage version as the first stored version.
pub fn set_defaults(crd: &mut CustomResourceDefinition) {
    let spec = &mut crd.spec;
    if spec.names.singular.is_empty() {
        spec.names.singular = spec.names.kind.to_lowercase();
    }
    if spec.names.list_kind.is_empty() && !spec.names.kind.is_empty() {
        spec.names.list_kind = format!("{}List", spec.names.kind);
    }
    let conversion = spec
        .conversion
        .get_or_insert_with(|| CustomResourceConversion {
            strategy: "None".to_owned(),
            webhook: None,
        });
    if let Some(service) = conversion
        .webhook
        .as_mut()
        .and_then(|w| w.client_config.as_mut())
        .and_then(|c| c.service.as_mut())
    {
        service.port.get_or_insert(443);
    }
    let has_stored = crd
        .status
        .stored_versions
        .as_ref()
        .is_some_and(|s| !s.is_empty());
    if !has_stored && let Some(v) = spec.versions.iter().find(|v| v.storage) {
        crd.status.stored_versions = Some(vec![v.name.clone()]);
    }
}

/// Registers apiextensions.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("apiextensions.k8s.io", "v1");
    scheme.add_known_type::<CustomResourceDefinition>(gv.with_kind("CustomResourceDefinition"))?;
    scheme.add_known_type::<CustomResourceDefinitionList>(
        gv.with_kind("CustomResourceDefinitionList"),
    )?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.add_type_defaulting_func::<CustomResourceDefinition>(set_defaults);
    scheme.add_type_defaulting_func::<CustomResourceDefinitionList>(|l| {
        l.items.iter_mut().for_each(set_defaults)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
