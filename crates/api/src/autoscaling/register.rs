//! Registration of the autoscaling group: v2 and v1 (v2 preferred), the internal hub,
//! conversions to and from the hub, and each version's defaults.

use super::{internal, v1, v2};
use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::{GroupVersion, INTERNAL_VERSION};

/// The group name.
pub const GROUP_NAME: &str = "autoscaling";

crate::impl_kind!(v1::HorizontalPodAutoscaler, object_meta, protobuf);
crate::impl_kind!(v1::HorizontalPodAutoscalerList, list_meta, protobuf);
crate::impl_kind!(v1::Scale, object_meta, protobuf);
crate::impl_kind!(v2::HorizontalPodAutoscaler, object_meta, protobuf);
crate::impl_kind!(v2::HorizontalPodAutoscalerList, list_meta, protobuf);
crate::impl_kind!(internal::HorizontalPodAutoscaler, object_meta, json_only);
crate::impl_kind!(internal::HorizontalPodAutoscalerList, list_meta, json_only);

/// Registers autoscaling v2, v1 and the internal version into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv2 = GroupVersion::new(GROUP_NAME, "v2");
    let gv1 = GroupVersion::new(GROUP_NAME, "v1");
    let hub = GroupVersion::new(GROUP_NAME, INTERNAL_VERSION);
    scheme
        .add_known_type::<v2::HorizontalPodAutoscaler>(gv2.with_kind("HorizontalPodAutoscaler"))?;
    scheme.add_known_type::<v2::HorizontalPodAutoscalerList>(
        gv2.with_kind("HorizontalPodAutoscalerList"),
    )?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv2)?;
    scheme
        .add_known_type::<v1::HorizontalPodAutoscaler>(gv1.with_kind("HorizontalPodAutoscaler"))?;
    scheme.add_known_type::<v1::HorizontalPodAutoscalerList>(
        gv1.with_kind("HorizontalPodAutoscalerList"),
    )?;
    scheme.add_known_type::<v1::Scale>(gv1.with_kind("Scale"))?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv1)?;
    scheme.add_known_type::<internal::HorizontalPodAutoscaler>(
        hub.with_kind("HorizontalPodAutoscaler"),
    )?;
    scheme.add_known_type::<internal::HorizontalPodAutoscalerList>(
        hub.with_kind("HorizontalPodAutoscalerList"),
    )?;
    add_conversions(scheme);
    add_defaults(scheme);
    scheme.set_version_priority(&[gv2, gv1])?;
    Ok(())
}

fn add_conversions(scheme: &mut Scheme) {
    scheme.add_conversion_func(|o: v1::HorizontalPodAutoscaler| Ok(v1::to_hub(o)));
    scheme.add_conversion_func(|o: internal::HorizontalPodAutoscaler| Ok(v1::from_hub(o)));
    scheme.add_conversion_func(|o: v2::HorizontalPodAutoscaler| Ok(v2::to_hub(o)));
    scheme.add_conversion_func(|o: internal::HorizontalPodAutoscaler| Ok(v2::from_hub(o)));
    scheme.add_conversion_func(|l: v1::HorizontalPodAutoscalerList| {
        Ok(internal::HorizontalPodAutoscalerList {
            kind: l.kind,
            api_version: l.api_version,
            metadata: l.metadata,
            items: l.items.into_iter().map(v1::to_hub).collect(),
        })
    });
    scheme.add_conversion_func(|l: internal::HorizontalPodAutoscalerList| {
        Ok(v1::HorizontalPodAutoscalerList {
            kind: l.kind,
            api_version: l.api_version,
            metadata: l.metadata,
            items: l.items.into_iter().map(v1::from_hub).collect(),
        })
    });
    scheme.add_conversion_func(|l: v2::HorizontalPodAutoscalerList| {
        Ok(internal::HorizontalPodAutoscalerList {
            kind: l.kind,
            api_version: l.api_version,
            metadata: l.metadata,
            items: l.items.into_iter().map(v2::to_hub).collect(),
        })
    });
    scheme.add_conversion_func(|l: internal::HorizontalPodAutoscalerList| {
        Ok(v2::HorizontalPodAutoscalerList {
            kind: l.kind,
            api_version: l.api_version,
            metadata: l.metadata,
            items: l.items.into_iter().map(v2::from_hub).collect(),
        })
    });
}

fn add_defaults(scheme: &mut Scheme) {
    scheme.add_type_defaulting_func::<v1::HorizontalPodAutoscaler>(v1::set_defaults);
    scheme.add_type_defaulting_func::<v2::HorizontalPodAutoscaler>(v2::set_defaults);
    scheme.add_type_defaulting_func::<v1::HorizontalPodAutoscalerList>(|l| {
        l.items.iter_mut().for_each(v1::set_defaults)
    });
    scheme.add_type_defaulting_func::<v2::HorizontalPodAutoscalerList>(|l| {
        l.items.iter_mut().for_each(v2::set_defaults)
    });
}
