//! Registration of core/v1: kinds, defaults (pkg/apis/core/v1/defaults.go) and field
//! labels for field selectors (pkg/apis/core/v1/conversion.go; others get the R1.16 default).

use super::{Namespace, NamespaceList, Secret, SecretList};
use kapi_machinery::runtime::{Error, Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// core/v1's apiVersion.
pub const GROUP_VERSION: &str = "v1";
/// The label every namespace carries with its own name.
pub const LABEL_METADATA_NAME: &str = "kubernetes.io/metadata.name";
/// The phase of a namespace that is not terminating.
pub const NAMESPACE_ACTIVE: &str = "Active";

/// The type of a Secret that says nothing about its content.
pub const SECRET_TYPE_OPAQUE: &str = "Opaque";

/// Secret defaults: type `Opaque`.
pub fn set_defaults_secret(secret: &mut Secret) {
    if secret.r#type.is_empty() {
        secret.r#type = SECRET_TYPE_OPAQUE.to_owned();
    }
}

/// Namespace defaults: phase `Active`, and the `kubernetes.io/metadata.name` label when
/// the namespace has a name.
pub fn set_defaults_namespace(ns: &mut Namespace) {
    if ns.status.phase.is_empty() {
        ns.status.phase = NAMESPACE_ACTIVE.to_owned();
    }
    if !ns.metadata.name.is_empty() {
        ns.metadata
            .labels
            .insert(LABEL_METADATA_NAME.to_owned(), ns.metadata.name.clone());
    }
}

fn field_label_fn(
    allowed: &'static [&'static str],
) -> impl Fn(&str, &str) -> Result<(String, String)> + Send + Sync + 'static {
    move |label, value| {
        if allowed.contains(&label) {
            Ok((label.to_owned(), value.to_owned()))
        } else {
            Err(Error::Conversion(format!(
                "field label not supported: {label}"
            )))
        }
    }
}

const NAMESPACE_FIELDS: &[&str] = &["status.phase", "metadata.name"];
const SECRET_FIELDS: &[&str] = &["type", "metadata.namespace", "metadata.name"];
const EVENT_FIELDS: &[&str] = &[
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
    "metadata.namespace",
    "metadata.name",
];

/// Registers core/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("", "v1");
    super::types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.add_type_defaulting_func::<Secret>(set_defaults_secret);
    scheme.add_type_defaulting_func::<Namespace>(set_defaults_namespace);
    scheme.add_type_defaulting_func::<super::Pod>(super::set_defaults_pod);
    scheme.add_type_defaulting_func::<super::PodList>(|l| {
        l.items.iter_mut().for_each(super::set_defaults_pod)
    });
    scheme.add_type_defaulting_func::<super::PodTemplate>(|t| {
        super::set_defaults_pod_template_spec(&mut t.template)
    });
    scheme.add_type_defaulting_func::<super::PodTemplateList>(|l| {
        l.items
            .iter_mut()
            .for_each(|t| super::set_defaults_pod_template_spec(&mut t.template))
    });
    scheme.add_type_defaulting_func::<super::Service>(super::set_defaults_service);
    scheme.add_type_defaulting_func::<super::ServiceList>(|l| {
        l.items.iter_mut().for_each(super::set_defaults_service)
    });
    scheme.add_type_defaulting_func::<super::PersistentVolumeClaim>(super::set_defaults_pvc);
    scheme.add_type_defaulting_func::<super::PersistentVolumeClaimList>(|l| {
        l.items.iter_mut().for_each(super::set_defaults_pvc)
    });
    scheme.add_type_defaulting_func::<super::PersistentVolume>(super::set_defaults_pv);
    scheme.add_type_defaulting_func::<super::PersistentVolumeList>(|l| {
        l.items.iter_mut().for_each(super::set_defaults_pv)
    });
    scheme.add_type_defaulting_func::<super::ReplicationController>(
        super::set_defaults_replication_controller,
    );
    scheme.add_type_defaulting_func::<super::ReplicationControllerList>(|l| {
        l.items
            .iter_mut()
            .for_each(super::set_defaults_replication_controller)
    });
    scheme.add_type_defaulting_func::<super::Endpoints>(super::set_defaults_endpoints);
    scheme.add_type_defaulting_func::<super::EndpointsList>(|l| {
        l.items.iter_mut().for_each(super::set_defaults_endpoints)
    });
    scheme.add_type_defaulting_func::<super::LimitRange>(super::set_defaults_limit_range);
    scheme.add_type_defaulting_func::<super::LimitRangeList>(|l| {
        l.items.iter_mut().for_each(super::set_defaults_limit_range)
    });
    scheme.add_type_defaulting_func::<super::Node>(super::set_defaults_node);
    scheme.add_type_defaulting_func::<super::NodeList>(|l| {
        l.items.iter_mut().for_each(super::set_defaults_node)
    });
    scheme.add_type_defaulting_func::<super::ResourceQuota>(super::set_defaults_resource_quota);
    scheme.add_type_defaulting_func::<super::ResourceQuotaList>(|l| {
        l.items
            .iter_mut()
            .for_each(super::set_defaults_resource_quota)
    });
    scheme.add_type_defaulting_func::<SecretList>(|l| {
        l.items.iter_mut().for_each(set_defaults_secret)
    });
    scheme.add_type_defaulting_func::<NamespaceList>(|l| {
        l.items.iter_mut().for_each(set_defaults_namespace)
    });
    scheme.add_field_label_conversion_func(
        gv.with_kind("Namespace"),
        field_label_fn(NAMESPACE_FIELDS),
    );
    scheme.add_field_label_conversion_func(gv.with_kind("Secret"), field_label_fn(SECRET_FIELDS));
    scheme.add_field_label_conversion_func(gv.with_kind("Event"), field_label_fn(EVENT_FIELDS));
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
