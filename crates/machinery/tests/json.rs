//! JSON serializer behaviours R2.2–R2.15, one test each.

mod common;

use common::*;
use kapi_machinery::meta::v1::Status;
use kapi_machinery::runtime::{Error, Object, Unknown, Unstructured};
use kapi_machinery::schema::GroupVersionKind;
use kapi_machinery::serializer::{Decoder, Encoder, JsonSerializer, SerializerOptions};
use serde_json::json;

fn json(strict: bool) -> JsonSerializer {
    JsonSerializer::new(
        scheme(),
        SerializerOptions {
            pretty: false,
            strict,
        },
    )
}

fn gvk(g: &str, v: &str, k: &str) -> GroupVersionKind {
    GroupVersionKind::new(g, v, k)
}

#[test]
fn decode_reads_kind_and_version_case_insensitively_r2_2() {
    let d = json(false)
        .decode(br#"{"APIVERSION":"v1","KIND":"ConfigMap"}"#, None, None)
        .unwrap();
    assert_eq!(d.gvk, gvk("", "v1", "ConfigMap"));
    assert!(d.object.is::<ConfigMap>());
}

#[test]
fn decode_of_invalid_json_cannot_get_version_kind_r2_2() {
    let err = json(false).decode(b"{\"kind\":", None, None).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("couldn't get version/kind; json parse error:")
    );
}

#[test]
fn decode_prefers_gvk_from_data_over_defaults_r2_3() {
    let defaults = gvk("example.com", "v2", "Widget");
    let d = json(false)
        .decode(
            br#"{"apiVersion":"example.com/v1","kind":"Widget","size":"1"}"#,
            Some(&defaults),
            None,
        )
        .unwrap();
    assert_eq!(d.gvk, gvk("example.com", "v1", "Widget"));
    assert!(d.object.is::<WidgetV1>());
}

#[test]
fn decode_fills_missing_kind_and_version_from_defaults_r2_3() {
    let defaults = gvk("example.com", "v1", "Widget");
    let d = json(false)
        .decode(br#"{"size":"1"}"#, Some(&defaults), None)
        .unwrap();
    assert_eq!(d.gvk, defaults);
}

#[test]
fn decode_takes_default_version_only_for_the_same_group_r2_3() {
    let defaults = gvk("example.com", "v1", "Widget");
    let err = json(false).decode(
        br#"{"apiVersion":"other.io/","kind":"Widget"}"#,
        Some(&defaults),
        None,
    );
    assert!(err.unwrap_err().is_missing_version());
}

#[test]
fn decode_into_unknown_returns_the_raw_bytes_r2_4() {
    let data = br#"{"apiVersion":"x.io/v1","kind":"Nope","a":1}"#;
    let d = json(false)
        .decode(data, None, Some(&Unknown::default()))
        .unwrap();
    let u = d.object.downcast_ref::<Unknown>().unwrap();
    assert_eq!(
        (u.raw.as_slice(), u.content_type.as_str()),
        (&data[..], "application/json")
    );
    assert_eq!(u.group_version_kind(), gvk("x.io", "v1", "Nope"));
}

#[test]
fn decode_into_unstructured_keeps_every_field_r2_5() {
    let data = br#"{"apiVersion":"x.io/v1","kind":"Thing","spec":{"n":1}}"#;
    let d = json(false)
        .decode(data, None, Some(&Unstructured::default()))
        .unwrap();
    let u = d.object.downcast_ref::<Unstructured>().unwrap();
    assert_eq!(u.object["spec"], json!({"n": 1}));
    assert_eq!(d.gvk, gvk("x.io", "v1", "Thing"));
}

#[test]
fn decode_into_unstructured_without_kind_is_missing_kind_r2_5() {
    let err = json(false)
        .decode(
            br#"{"apiVersion":"x.io/v1"}"#,
            None,
            Some(&Unstructured::default()),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"Object 'Kind' is missing in '{"apiVersion":"x.io/v1"}'"#
    );
}

#[test]
fn decode_into_unregistered_type_decodes_directly_r2_5() {
    let s = kapi_machinery::runtime::Scheme::new("empty");
    let j = JsonSerializer::new(std::sync::Arc::new(s), SerializerOptions::default());
    let d = j
        .decode(br#"{"data":{"a":"b"}}"#, None, Some(&ConfigMap::default()))
        .unwrap();
    assert_eq!(d.object.downcast_ref::<ConfigMap>().unwrap().data["a"], "b");
}

#[test]
fn decode_with_registered_into_takes_its_kind_as_default_r2_6() {
    let d = json(false)
        .decode(br#"{"size":"2"}"#, None, Some(&WidgetV1::default()))
        .unwrap();
    assert_eq!(d.gvk, gvk("example.com", "v1", "Widget"));
    assert!(d.object.is::<WidgetV1>());
}

#[test]
fn decode_returns_the_data_type_when_into_is_another_version_r2_7() {
    let d = json(false)
        .decode(
            br#"{"apiVersion":"example.com/v2","kind":"Widget","replicas":1}"#,
            None,
            Some(&WidgetV1::default()),
        )
        .unwrap();
    assert!(d.object.is::<WidgetV2>());
}

#[test]
fn decode_of_empty_object_is_missing_kind_r2_7() {
    let err = json(false).decode(b"{}", None, None).unwrap_err();
    assert_eq!(err.to_string(), "Object 'Kind' is missing in '{}'");
}

#[test]
fn decode_of_kind_only_is_missing_version_r2_7() {
    let err = json(false)
        .decode(br#"{"kind":"Foo"}"#, None, None)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"Object 'apiVersion' is missing in '{"kind":"Foo"}'"#
    );
}

#[test]
fn decode_of_version_only_is_missing_kind_r2_7() {
    let err = json(false)
        .decode(br#"{"apiVersion":"foo/v1"}"#, None, None)
        .unwrap_err();
    assert!(err.is_missing_kind());
}

#[test]
fn decode_of_unregistered_kind_is_not_registered_r2_7() {
    let err = json(false)
        .decode(br#"{"apiVersion":"v1","kind":"Pod"}"#, None, None)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"no kind "Pod" is registered for version "v1" in scheme "test""#
    );
}

#[test]
fn field_names_are_case_sensitive_r2_8() {
    let d = json(false)
        .decode(
            br#"{"apiVersion":"v1","kind":"ConfigMap","Data":{"a":"b"}}"#,
            None,
            None,
        )
        .unwrap();
    assert!(
        d.object
            .downcast_ref::<ConfigMap>()
            .unwrap()
            .data
            .is_empty()
    );
}

#[test]
fn unstructured_numbers_stay_integers_unless_fractional_r2_8() {
    let data = br#"{"apiVersion":"x/v1","kind":"T","i":3,"f":1.5,"e":1e3}"#;
    let d = json(false)
        .decode(data, None, Some(&Unstructured::default()))
        .unwrap();
    let u = d.object.downcast_ref::<Unstructured>().unwrap();
    assert!(u.object["i"].is_i64());
    assert!(u.object["f"].is_f64());
    assert!(u.object["e"].is_f64());
}

#[test]
fn non_strict_decode_ignores_unknown_fields_r2_8() {
    let d = json(false).decode(
        br#"{"apiVersion":"v1","kind":"ConfigMap","bogus":1}"#,
        None,
        None,
    );
    assert!(d.is_ok());
}

#[test]
fn non_strict_decode_takes_the_last_duplicate_r2_8() {
    let data = br#"{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"},"data":{"b":"2"}}"#;
    let d = json(false).decode(data, None, None).unwrap();
    let cm = d.object.downcast_ref::<ConfigMap>().unwrap();
    assert_eq!(cm.data.keys().collect::<Vec<_>>(), ["b"]);
}

#[test]
fn strict_decode_reports_unknown_and_duplicate_fields_in_order_r2_9() {
    let data = br#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"bogus":1,"data":{"a":"b"},"data":{"c":"d"}}"#;
    let err = json(true).decode(data, None, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"strict decoding error: unknown field "bogus", duplicate field "data""#
    );
}

#[test]
fn strict_decode_still_returns_the_object_r2_9() {
    let data = br#"{"apiVersion":"v1","kind":"ConfigMap","bogus":1,"data":{"a":"b"}}"#;
    let Err(Error::StrictDecoding(e)) = json(true).decode(data, None, None) else {
        panic!("expected strict error")
    };
    let decoded = e.decoded.unwrap();
    assert_eq!(
        decoded.object.downcast_ref::<ConfigMap>().unwrap().data["a"],
        "b"
    );
}

#[test]
fn strict_decode_reports_nested_paths_with_indices_r2_10() {
    let data = br#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"ownerReferences":[{"name":"a"},{"name":"b","hostPort":1}],"name":"n","name":"m"}}"#;
    let err = json(true).decode(data, None, None).unwrap_err();
    assert_eq!(
        err.as_strict_decoding().unwrap().errors,
        [
            r#"unknown field "metadata.ownerReferences[1].hostPort""#,
            r#"duplicate field "metadata.name""#
        ]
    );
}

#[test]
fn strict_decode_of_unstructured_reports_only_duplicates_r2_9() {
    let data = br#"{"apiVersion":"x/v1","kind":"T","anything":1,"a":1,"a":2}"#;
    let err = json(true)
        .decode(data, None, Some(&Unstructured::default()))
        .unwrap_err();
    assert_eq!(
        err.as_strict_decoding().unwrap().errors,
        [r#"duplicate field "a""#]
    );
}

#[test]
fn strict_errors_are_deduplicated_and_capped_at_100_r2_10() {
    let fields: Vec<String> = (0..150).map(|i| format!(r#""u{i}":1"#)).collect();
    let data = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap",{}}}"#,
        fields.join(",")
    );
    let err = json(true).decode(data.as_bytes(), None, None).unwrap_err();
    assert_eq!(err.as_strict_decoding().unwrap().errors.len(), 100);
}

#[test]
fn recognizes_json_by_leading_brace_r2_13() {
    assert!(JsonSerializer::recognizes_data(b"  \n{\"a\":1}"));
    assert!(!JsonSerializer::recognizes_data(b"a: 1"));
    assert!(!JsonSerializer::recognizes_data(b"[1]"));
}

#[test]
fn compact_encoding_escapes_html_and_ends_with_newline_r2_14() {
    let st = Status {
        message: "<a&b>\u{2028}".into(),
        ..Status::default()
    };
    let out = json(false).encode_to_vec(&st).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "{\"metadata\":{},\"message\":\"\\u003ca\\u0026b\\u003e\\u2028\"}\n"
    );
}

#[test]
fn pretty_encoding_indents_two_spaces_without_newline_r2_14() {
    let j = JsonSerializer::new(
        scheme(),
        SerializerOptions {
            pretty: true,
            strict: false,
        },
    );
    let st = Status {
        code: 404,
        ..Status::default()
    };
    let out = String::from_utf8(j.encode_to_vec(&st).unwrap()).unwrap();
    assert_eq!(out, "{\n  \"metadata\": {},\n  \"code\": 404\n}");
}

#[test]
fn encoding_writes_go_struct_field_order_r2_14() {
    let st = Status {
        kind: "Status".into(),
        api_version: "v1".into(),
        status: "Failure".into(),
        code: 400,
        ..Status::default()
    };
    let out = String::from_utf8(json(false).encode_to_vec(&st).unwrap()).unwrap();
    assert_eq!(
        out,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"code\":400}\n"
    );
}

#[test]
fn unstructured_encoding_sorts_keys_and_writes_whole_floats_as_integers_r2_14() {
    let u = Unstructured::from_value(json!({"b": 1.0, "a": 2.5, "c": 1e21})).unwrap();
    let out = String::from_utf8(json(false).encode_to_vec(&u).unwrap()).unwrap();
    assert_eq!(out, "{\"a\":2.5,\"b\":1,\"c\":1e+21}\n");
}

/// meta/v1 tags creationTimestamp `omitempty,omitzero` since 1.33: kube-apiserver 1.36.2's
/// Deployment golden has a pod template with `"metadata":{"labels":…}` and no timestamp.
#[test]
fn zero_creation_timestamp_is_left_out() {
    let cm = ConfigMap::default();
    let out = String::from_utf8(json(false).encode_to_vec(&cm).unwrap()).unwrap();
    assert_eq!(out, "{\"metadata\":{}}\n");
}

#[test]
fn identifier_names_the_options_r2_15() {
    assert_eq!(
        json(true).identifier(),
        r#"{"name":"json","pretty":"false","strict":"true","yaml":"false"}"#
    );
}
