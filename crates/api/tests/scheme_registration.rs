//! The built-in groups registered through the machinery Scheme: kinds, version priority,
//! conversion through the hub, defaults and field labels.

use kapi_api::autoscaling::{v1, v2};
use kapi_api::core::v1::{Namespace, Secret};
use kapi_machinery::runtime::Scheme;
use kapi_machinery::schema::{GroupKind, GroupVersion, GroupVersionKind};

fn scheme() -> Scheme {
    kapi_api::new_scheme().unwrap()
}

#[test]
fn every_built_in_kind_is_recognized() {
    let s = scheme();
    for (api_version, kind) in [
        ("v1", "Namespace"),
        ("v1", "NamespaceList"),
        ("v1", "ConfigMap"),
        ("v1", "ConfigMapList"),
        ("v1", "Secret"),
        ("v1", "SecretList"),
        ("v1", "Event"),
        ("v1", "EventList"),
        ("coordination.k8s.io/v1", "Lease"),
        ("coordination.k8s.io/v1", "LeaseList"),
        ("autoscaling/v1", "HorizontalPodAutoscaler"),
        ("autoscaling/v2", "HorizontalPodAutoscalerList"),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinitionList"),
    ] {
        let gvk = GroupVersionKind::from_api_version_and_kind(api_version, kind);
        assert!(s.recognizes(&gvk), "{api_version} {kind}");
    }
}

#[test]
fn autoscaling_prefers_v2_over_v1() {
    let versions = scheme().prioritized_versions_for_group("autoscaling");
    assert_eq!(
        versions[..2],
        [
            GroupVersion::new("autoscaling", "v2"),
            GroupVersion::new("autoscaling", "v1")
        ]
    );
}

#[test]
fn hpa_versions_for_the_group_kind_put_v2_first() {
    let versions =
        scheme().versions_for_group_kind(&GroupKind::new("autoscaling", "HorizontalPodAutoscaler"));
    assert_eq!(
        versions.first(),
        Some(&GroupVersion::new("autoscaling", "v2"))
    );
}

#[test]
fn scheme_converts_hpa_v1_to_v2_through_the_hub() {
    let s = scheme();
    let mut hpa = v1::HorizontalPodAutoscaler::default();
    hpa.spec.target_cpu_utilization_percentage = Some(55);
    let out = s
        .convert_to_version(&hpa, &GroupVersion::new("autoscaling", "v2"))
        .unwrap();
    assert_eq!(out.api_version(), "autoscaling/v2");
    let v2 = out.downcast_ref::<v2::HorizontalPodAutoscaler>().unwrap();
    assert_eq!(
        v2.spec.metrics[0]
            .resource
            .as_ref()
            .unwrap()
            .target
            .average_utilization,
        Some(55)
    );
}

#[test]
fn scheme_applies_each_hpa_versions_defaults() {
    let s = scheme();
    let mut hpa = v2::HorizontalPodAutoscaler::default();
    s.default(&mut hpa);
    assert_eq!(hpa.spec.min_replicas, Some(1));
    assert_eq!(hpa.spec.metrics.len(), 1);
    let mut old = v1::HorizontalPodAutoscaler::default();
    s.default(&mut old);
    assert_eq!(old.spec.min_replicas, Some(1));
    assert_eq!(old.spec.target_cpu_utilization_percentage, None);
}

#[test]
fn secret_type_defaults_to_opaque() {
    let mut secret = Secret::default();
    scheme().default(&mut secret);
    assert_eq!(secret.r#type, "Opaque");
}

#[test]
fn namespace_defaults_add_the_name_label_and_active_phase() {
    let mut ns = Namespace::default();
    ns.metadata.name = "team-a".into();
    scheme().default(&mut ns);
    assert_eq!(ns.metadata.labels["kubernetes.io/metadata.name"], "team-a");
    assert_eq!(ns.status.phase, "Active");
}

#[test]
fn secret_and_event_field_labels_are_accepted() {
    let s = scheme();
    let secret = GroupVersionKind::new("", "v1", "Secret");
    assert_eq!(
        s.convert_field_label(&secret, "type", "Opaque").unwrap(),
        ("type".into(), "Opaque".into())
    );
    let event = GroupVersionKind::new("", "v1", "Event");
    assert!(
        s.convert_field_label(&event, "involvedObject.uid", "x")
            .is_ok()
    );
    assert!(
        s.convert_field_label(&event, "reportingComponent", "x")
            .is_ok()
    );
}

#[test]
fn unknown_field_label_is_refused_with_kubernetes_wording() {
    let ns = GroupVersionKind::new("", "v1", "Namespace");
    let err = scheme()
        .convert_field_label(&ns, "spec.finalizers", "x")
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("field label not supported: spec.finalizers"),
        "{err}"
    );
}

#[test]
fn config_map_keeps_the_default_metadata_field_labels() {
    let s = scheme();
    let cm = GroupVersionKind::new("", "v1", "ConfigMap");
    assert!(s.convert_field_label(&cm, "metadata.name", "a").is_ok());
    assert!(s.convert_field_label(&cm, "data", "a").is_err());
}
