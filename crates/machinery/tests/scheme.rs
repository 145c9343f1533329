//! Scheme behaviours R1.1–R1.19, one test each.

mod common;

use common::*;
use kapi_machinery::meta::v1::{ObjectMeta, Status};
use kapi_machinery::runtime::{Object, Scheme, Unstructured};
use kapi_machinery::schema::{
    GroupKind, GroupVersion, GroupVersionKind, INTERNAL_VERSION, InternalGroupVersioner,
};
use serde_json::json;

fn gvk(g: &str, v: &str, k: &str) -> GroupVersionKind {
    GroupVersionKind::new(g, v, k)
}

#[test]
fn new_scheme_starts_empty_r1_1() {
    let s = Scheme::new("s");
    assert!(s.all_known_gvks().is_empty());
    assert!(!s.is_group_registered(""));
}

#[test]
fn registration_requires_a_version_r1_3() {
    let mut s = Scheme::new("s");
    let err = s
        .add_known_type::<ConfigMap>(gvk("", "", "ConfigMap"))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("version is required on all types")
    );
}

#[test]
fn registering_same_gvk_for_another_type_is_an_error_r1_3() {
    let mut s = Scheme::new("s");
    s.add_known_type::<ConfigMap>(gvk("", "v1", "ConfigMap"))
        .unwrap();
    let err = s
        .add_known_type::<WidgetV1>(gvk("", "v1", "ConfigMap"))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Double registration of different types for /v1, Kind=ConfigMap")
    );
}

#[test]
fn registering_same_pair_twice_is_a_no_op_r1_3() {
    let mut s = Scheme::new("s");
    s.add_known_type::<ConfigMap>(gvk("", "v1", "ConfigMap"))
        .unwrap();
    s.add_known_type::<ConfigMap>(gvk("", "v1", "ConfigMap"))
        .unwrap();
    assert_eq!(
        s.object_kinds(&ConfigMap::default()).unwrap().0,
        vec![gvk("", "v1", "ConfigMap")]
    );
}

#[test]
fn one_type_under_many_kinds_keeps_insertion_order_r1_3() {
    let mut s = Scheme::new("s");
    s.add_known_type::<ConfigMap>(gvk("b", "v1", "Second"))
        .unwrap();
    s.add_known_type::<ConfigMap>(gvk("a", "v1", "First"))
        .unwrap();
    let (kinds, unversioned) = s.object_kinds(&ConfigMap::default()).unwrap();
    assert_eq!(
        kinds,
        vec![gvk("b", "v1", "Second"), gvk("a", "v1", "First")]
    );
    assert!(!unversioned);
}

#[test]
fn unversioned_kind_names_must_be_unique_r1_4() {
    let mut s = Scheme::new("s");
    s.add_unversioned_type::<Status>(&core_v1(), "Status")
        .unwrap();
    let err = s
        .add_unversioned_type::<ConfigMap>(&GroupVersion::new("x", "v1"), "Status")
        .unwrap_err();
    assert!(err.to_string().contains("kind name must be unique"));
}

#[test]
fn internal_versions_are_not_observed_r1_5() {
    let s = scheme();
    assert!(!s.is_version_registered(&widgets_hub()));
    assert!(s.is_version_registered(&widgets_v1()));
}

#[test]
fn new_object_returns_zero_value_of_registered_type_r1_6() {
    let obj = scheme().new_object(&gvk("", "v1", "ConfigMap")).unwrap();
    assert_eq!(obj.downcast_ref::<ConfigMap>(), Some(&ConfigMap::default()));
}

#[test]
fn new_object_finds_unversioned_kind_in_any_group_version_r1_6() {
    let obj = scheme()
        .new_object(&gvk("whatever.io", "v9", "Status"))
        .unwrap();
    assert!(obj.is::<Status>());
}

#[test]
fn new_object_of_unknown_kind_is_not_registered_r1_6() {
    let err = scheme().new_object(&gvk("apps", "v1", "Nope")).unwrap_err();
    assert!(err.is_not_registered());
    assert_eq!(
        err.to_string(),
        r#"no kind "Nope" is registered for version "apps/v1" in scheme "test""#
    );
}

#[test]
fn object_kinds_of_unstructured_is_its_own_gvk_r1_7() {
    let u = Unstructured::from_value(json!({"apiVersion": "x.io/v1", "kind": "Thing"})).unwrap();
    assert_eq!(
        scheme().object_kinds(&u).unwrap(),
        (vec![gvk("x.io", "v1", "Thing")], false)
    );
}

#[test]
fn object_kinds_of_unstructured_without_kind_is_missing_kind_r1_7() {
    let u = Unstructured::from_value(json!({"apiVersion": "x.io/v1"})).unwrap();
    let err = scheme().object_kinds(&u).unwrap_err();
    assert!(err.is_missing_kind());
    assert_eq!(
        err.to_string(),
        "Object 'Kind' is missing in 'unstructured object has no kind'"
    );
}

#[test]
fn object_kinds_of_unstructured_without_version_is_missing_version_r1_7() {
    let u = Unstructured::from_value(json!({"kind": "Thing"})).unwrap();
    assert!(scheme().object_kinds(&u).unwrap_err().is_missing_version());
}

#[test]
fn object_kinds_of_unregistered_type_is_not_registered_r1_7() {
    let err = Scheme::new("empty")
        .object_kinds(&ConfigMap::default())
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("no kind is registered for the type ")
    );
    assert!(err.to_string().ends_with(r#"ConfigMap in scheme "empty""#));
}

#[test]
fn object_kinds_reports_unversioned_flag_r1_7() {
    let (kinds, unversioned) = scheme().object_kinds(&Status::default()).unwrap();
    assert!(unversioned);
    assert_eq!(kinds[0], gvk("", "v1", "Status"));
}

#[test]
fn recognizes_only_exact_registrations_r1_8() {
    let s = scheme();
    assert!(s.recognizes(&gvk("", "v1", "ConfigMap")));
    assert!(!s.recognizes(&gvk("", "v2", "ConfigMap")));
    assert!(!s.recognizes(&gvk("other", "v1", "Status")));
}

#[test]
fn is_unversioned_returns_unversioned_and_registered_r1_8() {
    let s = scheme();
    assert_eq!(s.is_unversioned(&Status::default()), (true, true));
    assert_eq!(s.is_unversioned(&ConfigMap::default()), (false, true));
    assert_eq!(
        Scheme::new("x").is_unversioned(&ConfigMap::default()),
        (false, false)
    );
}

#[test]
fn last_defaulting_function_wins_r1_11() {
    let mut s = Scheme::new("s");
    s.add_type_defaulting_func(|w: &mut WidgetV2| w.mode = "first".into());
    s.add_type_defaulting_func(|w: &mut WidgetV2| w.mode = "second".into());
    let mut w = WidgetV2::default();
    s.default(&mut w);
    assert_eq!(w.mode, "second");
}

#[test]
fn defaulting_an_unregistered_type_is_a_no_op_r1_11() {
    let mut cm = ConfigMap::default();
    scheme().default(&mut cm);
    assert_eq!(cm, ConfigMap::default());
}

#[test]
fn missing_conversion_is_an_unknown_conversion_error_r1_12() {
    let s = scheme();
    let mut out = WidgetV1::default();
    let err = s
        .convert(&ConfigMap::default(), &mut out, None)
        .unwrap_err();
    assert!(
        err.to_string().ends_with("WidgetV1): unknown conversion"),
        "{err}"
    );
    assert!(err.to_string().starts_with("converting ("));
}

#[test]
fn conversion_registered_after_a_failed_lookup_is_used_r1_12() {
    // The Scheme caches conversion routes; a later registration must not be hidden by a
    // cached "unknown conversion".
    let mut s = Scheme::new("test");
    s.add_known_type::<ConfigMap>(core_v1().with_kind("ConfigMap"))
        .unwrap();
    add_widgets(&mut s).unwrap();
    let mut out = WidgetV1::default();
    assert!(s.convert(&ConfigMap::default(), &mut out, None).is_err());
    s.add_conversion_func(|c: ConfigMap| {
        Ok(WidgetV1 {
            size: c.data.len().to_string(),
            ..WidgetV1::default()
        })
    });
    s.convert(&ConfigMap::default(), &mut out, None).unwrap();
    assert_eq!(out.size, "0");
}

#[test]
fn convert_between_unstructured_copies_content_r1_13() {
    let s = scheme();
    let a = Unstructured::from_value(json!({"apiVersion": "x/v1", "kind": "T", "spec": {"a": 1}}))
        .unwrap();
    let mut b = Unstructured::default();
    s.convert(&a, &mut b, None).unwrap();
    assert_eq!(a, b);
}

#[test]
fn convert_typed_to_unstructured_sets_the_gvk_r1_13() {
    let s = scheme();
    let w = WidgetV1 {
        size: "3".into(),
        ..WidgetV1::default()
    };
    let mut u = Unstructured::default();
    s.convert(&w, &mut u, None).unwrap();
    assert_eq!(u.group_version_kind(), gvk("example.com", "v1", "Widget"));
    assert_eq!(u.object["size"], json!("3"));
}

#[test]
fn convert_internal_to_unstructured_needs_a_target_version_r1_13() {
    let s = scheme();
    let hub = Widget {
        replicas: 2,
        ..Widget::default()
    };
    let mut u = Unstructured::default();
    assert!(
        s.convert(&hub, &mut u, None)
            .unwrap_err()
            .to_string()
            .contains("without providing a preferred version")
    );
    s.convert(&hub, &mut u, Some(&widgets_v1())).unwrap();
    assert_eq!(u.object["size"], json!("2"));
}

#[test]
fn convert_unstructured_to_typed_goes_through_its_typed_form_r1_13() {
    let s = scheme();
    let u = Unstructured::from_value(
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "size": "4"}),
    )
    .unwrap();
    let mut hub = Widget::default();
    s.convert(&u, &mut hub, None).unwrap();
    assert_eq!(hub.replicas, 4);
}

#[test]
fn convert_to_version_copies_and_leaves_input_unchanged_r1_14() {
    let s = scheme();
    let v1 = WidgetV1 {
        size: "5".into(),
        ..WidgetV1::default()
    };
    let before = v1.clone();
    let out = s.convert_to_version(&v1, &widgets_v2()).unwrap();
    assert_eq!(v1, before);
    let v2 = out.downcast_ref::<WidgetV2>().unwrap();
    assert_eq!(
        (v2.replicas, v2.api_version.as_str(), v2.kind.as_str()),
        (5, "example.com/v2", "Widget")
    );
}

#[test]
fn unsafe_convert_to_version_moves_the_input_r1_14() {
    let s = scheme();
    let v2 = WidgetV2 {
        replicas: 7,
        metadata: ObjectMeta {
            name: "w".into(),
            ..Default::default()
        },
        ..Default::default()
    };
    let out = s
        .unsafe_convert_to_version(Box::new(v2), &widgets_v1())
        .unwrap();
    let v1 = out.downcast_ref::<WidgetV1>().unwrap();
    assert_eq!((v1.size.as_str(), v1.metadata.name.as_str()), ("7", "w"));
}

#[test]
fn convert_to_own_version_only_sets_the_gvk_r1_14() {
    let s = scheme();
    let out = s
        .convert_to_version(&WidgetV1::default(), &widgets_v1())
        .unwrap();
    assert_eq!(out.group_version_kind(), gvk("example.com", "v1", "Widget"));
}

#[test]
fn convert_to_internal_clears_the_gvk_r1_14() {
    let s = scheme();
    let v1 = WidgetV1 {
        size: "1".into(),
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
        ..Default::default()
    };
    let out = s.convert_to_version(&v1, &InternalGroupVersioner).unwrap();
    assert!(out.is::<Widget>());
    assert_eq!((out.api_version(), out.kind()), ("", ""));
}

#[test]
fn convert_to_unrelated_version_is_not_suitable_r1_14() {
    let err = scheme()
        .convert_to_version(&WidgetV1::default(), &GroupVersion::new("apps", "v1"))
        .unwrap_err();
    assert!(err.is_not_registered());
    assert!(
        err.to_string()
            .contains(r#"is not suitable for converting to "apps/v1" in scheme "test""#)
    );
}

#[test]
fn convert_unversioned_to_any_version_sets_its_gvk_r1_14() {
    let out = scheme()
        .convert_to_version(&Status::default(), &GroupVersion::new("apps", "v1"))
        .unwrap();
    assert_eq!(out.group_version_kind(), gvk("", "v1", "Status"));
}

#[test]
fn convert_to_version_accepts_unstructured_input_r1_14() {
    let u = Unstructured::from_value(
        json!({"apiVersion": "example.com/v2", "kind": "Widget", "replicas": 9}),
    )
    .unwrap();
    let out = scheme().convert_to_version(&u, &widgets_v1()).unwrap();
    assert_eq!(out.downcast_ref::<WidgetV1>().unwrap().size, "9");
}

#[test]
fn field_labels_default_to_name_and_namespace_r1_16() {
    let s = scheme();
    let gk = gvk("", "v1", "ConfigMap");
    assert!(s.convert_field_label(&gk, "metadata.name", "a").is_ok());
    let err = s.convert_field_label(&gk, "spec.x", "a").unwrap_err();
    assert_eq!(
        err.to_string(),
        r#""spec.x" is not a known field selector: only "metadata.name", "metadata.namespace""#
    );
}

#[test]
fn registered_field_label_function_is_used_r1_16() {
    let mut s = Scheme::new("s");
    s.add_field_label_conversion_func(gvk("", "v1", "Event"), |l, v| {
        Ok((l.to_string(), v.to_uppercase()))
    });
    assert_eq!(
        s.convert_field_label(&gvk("", "v1", "Event"), "x", "a")
            .unwrap(),
        ("x".into(), "A".into())
    );
}

#[test]
fn version_priority_rejects_internal_versions_r1_17() {
    let mut s = Scheme::new("s");
    let err = s
        .set_version_priority(&[GroupVersion::new("a", INTERNAL_VERSION)])
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("internal versions cannot be prioritized")
    );
}

#[test]
fn version_priority_must_name_one_group_r1_17() {
    let mut s = Scheme::new("s");
    let err = s
        .set_version_priority(&[GroupVersion::new("a", "v1"), GroupVersion::new("b", "v1")])
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("must register versions for exactly one group")
    );
}

#[test]
fn prioritized_versions_list_priority_then_observed_r1_18() {
    let mut s = Scheme::new("s");
    s.add_known_type::<ConfigMap>(gvk("g", "v1", "A")).unwrap();
    s.add_known_type::<WidgetV1>(gvk("g", "v2", "A")).unwrap();
    s.add_known_type::<WidgetV2>(gvk("g", "v3", "A")).unwrap();
    s.set_version_priority(&[GroupVersion::new("g", "v3")])
        .unwrap();
    let got: Vec<String> = s
        .prioritized_versions_for_group("g")
        .iter()
        .map(|g| g.version.clone())
        .collect();
    assert_eq!(got, ["v3", "v1", "v2"]);
    assert_eq!(
        s.preferred_version_all_groups(),
        vec![GroupVersion::new("g", "v3")]
    );
}

#[test]
fn versions_for_group_kind_follow_priority_r1_19() {
    let got = scheme().versions_for_group_kind(&GroupKind::new("example.com", "Widget"));
    assert_eq!(got, vec![widgets_v2(), widgets_v1()]);
}

#[test]
fn converting_twice_to_a_group_version_gives_the_same_result_r1_14() {
    // The second call takes the cached plan for (WidgetV1, example.com/v2).
    let s = scheme();
    let v1 = WidgetV1 {
        size: "4".into(),
        ..WidgetV1::default()
    };
    let first = s.convert_to_version(&v1, &widgets_v2()).unwrap();
    let second = s.convert_to_version(&v1, &widgets_v2()).unwrap();
    assert_eq!(
        first.downcast_ref::<WidgetV2>(),
        second.downcast_ref::<WidgetV2>()
    );
}

#[test]
fn conversion_registered_after_a_failed_version_conversion_is_used_r1_14() {
    // A plan cached with an unknown route must be forgotten by the next registration.
    let mut s = Scheme::new("test");
    s.add_known_type::<WidgetV1>(widgets_v1().with_kind("Widget"))
        .unwrap();
    s.add_known_type::<WidgetV2>(widgets_v2().with_kind("Widget"))
        .unwrap();
    let v1 = WidgetV1 {
        size: "6".into(),
        ..WidgetV1::default()
    };
    assert!(s.convert_to_version(&v1, &widgets_v2()).is_err());
    s.add_conversion_func(|a: WidgetV1| {
        Ok(WidgetV2 {
            replicas: a.size.len() as i64,
            ..WidgetV2::default()
        })
    });
    let out = s.convert_to_version(&v1, &widgets_v2()).unwrap();
    assert_eq!(out.downcast_ref::<WidgetV2>().unwrap().replicas, 1);
}
