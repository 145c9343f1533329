//! The metadata rules kube-apiserver enforces, kept for the author (R4.26, R4.27): a
//! conversion that meddles with metadata is served in process over HTTPS with
//! `tls::serve_tls`, and the answer carries the original metadata except labels and
//! annotations, the desired apiVersion and the original kind.

mod common;

use common::{client, kube_apiserver_accepts, make_certs};
use kapi_machinery::meta::v1::ObjectMeta;
use kapi_webhook::{
    ConversionReview, ConvertError, Converter, Convertible, Hub, ReviewVersion, SchemeBuilder,
};
use kapi_webhook::{service, tls};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec {
    #[serde(default)]
    refuse: bool,
    #[serde(default)]
    bad_label: bool,
}

macro_rules! meddler {
    ($name:ident) => {
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct $name {
            #[serde(default, skip_serializing_if = "String::is_empty")]
            kind: String,
            #[serde(default, skip_serializing_if = "String::is_empty")]
            api_version: String,
            #[serde(default)]
            metadata: ObjectMeta,
            #[serde(default)]
            spec: Spec,
        }
        kapi_machinery::impl_object!($name, object_meta, json_only);
    };
}
meddler!(HubMeddler);
meddler!(V1Meddler);
meddler!(V2Meddler);
impl Hub for HubMeddler {}

impl Convertible for V1Meddler {
    type Hub = HubMeddler;
    fn into_hub(self) -> Result<HubMeddler, ConvertError> {
        Ok(HubMeddler {
            kind: self.kind,
            api_version: self.api_version,
            metadata: self.metadata,
            spec: self.spec,
        })
    }
    fn from_hub(h: HubMeddler) -> Result<Self, ConvertError> {
        Ok(V1Meddler {
            kind: h.kind,
            api_version: h.api_version,
            metadata: h.metadata,
            spec: h.spec,
        })
    }
}

/// Converting to v2 renames, re-uids, re-namespaces, bumps generation, drops managedFields,
/// adds a label, drops annotations, and writes a wrong apiVersion and kind.
impl Convertible for V2Meddler {
    type Hub = HubMeddler;
    fn into_hub(self) -> Result<HubMeddler, ConvertError> {
        Ok(HubMeddler {
            kind: self.kind,
            api_version: self.api_version,
            metadata: self.metadata,
            spec: self.spec,
        })
    }
    fn from_hub(h: HubMeddler) -> Result<Self, ConvertError> {
        if h.spec.refuse {
            return Err(ConvertError::new("meddler refuses: spec.refuse is set"));
        }
        let mut m = h.metadata;
        m.name.push_str("-renamed");
        m.namespace = "elsewhere".into();
        m.uid = "00000000-0000-0000-0000-000000000000".into();
        m.generation += 7;
        m.resource_version = "999".into();
        m.managed_fields.clear();
        let value = if h.spec.bad_label {
            "not a label!"
        } else {
            "yes"
        };
        m.labels.insert("converted".into(), value.into());
        m.annotations.clear();
        Ok(V2Meddler {
            kind: "Other".into(),
            api_version: "x.example.com/v0".into(),
            metadata: m,
            spec: h.spec,
        })
    }
}

async fn convert(spec: Value) -> (ConversionReview, Value) {
    let certs = make_certs();
    tls::install_crypto_provider();
    let config = tls::load_server_config(&certs.cert_file, &certs.key_file).unwrap();
    let scheme = SchemeBuilder::new("meddler")
        .version::<V1Meddler>("m.example.com", "v1", "Meddler")
        .version::<V2Meddler>("m.example.com", "v2", "Meddler")
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let router = service::router(Converter::new(scheme));
    tokio::spawn(tls::serve_tls(
        listener,
        config,
        router,
        std::future::pending(),
    ));
    let object = json!({
        "apiVersion": "m.example.com/v1", "kind": "Meddler",
        "metadata": {
            "name": "m1", "namespace": "ns", "uid": "11111111-2222-3333-4444-555555555555",
            "generation": 2, "resourceVersion": "42", "creationTimestamp": "2026-11-29T12:55:12Z",
            "labels": {"app": "x"}, "annotations": {"note": "keep?"},
            "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "m.example.com/v1",
                               "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]
        },
        "spec": spec,
    });
    let review =
        ConversionReview::new_request(ReviewVersion::V1, "uid-1", "m.example.com/v2", vec![object]);
    let answer: Value = client(&certs.ca_pem, false)
        .post(format!("https://localhost:{port}/convert"))
        .json(&review)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (review, answer)
}

fn first(answer: &Value) -> &Value {
    &answer["response"]["convertedObjects"][0]
}

#[tokio::test]
async fn meddling_conversion_answer_is_accepted_by_kube_apiserver_rules() {
    let (review, answer) = convert(json!({})).await;
    kube_apiserver_accepts(&review, &answer).unwrap();
}

#[tokio::test]
async fn renamed_object_is_answered_with_its_original_name() {
    let (_, answer) = convert(json!({})).await;
    assert_eq!(first(&answer)["metadata"]["name"], "m1");
}

#[tokio::test]
async fn changed_namespace_and_uid_are_restored() {
    let (_, answer) = convert(json!({})).await;
    assert_eq!(first(&answer)["metadata"]["namespace"], "ns");
    assert_eq!(
        first(&answer)["metadata"]["uid"],
        "11111111-2222-3333-4444-555555555555"
    );
}

#[tokio::test]
async fn other_metadata_changes_are_restored_from_the_input() {
    let (review, answer) = convert(json!({})).await;
    let original = &review.request.as_ref().unwrap().objects[0]["metadata"];
    let out = &first(&answer)["metadata"];
    for field in [
        "generation",
        "resourceVersion",
        "creationTimestamp",
        "managedFields",
    ] {
        assert_eq!(out[field], original[field], "{field}");
    }
}

#[tokio::test]
async fn labels_set_by_the_conversion_are_kept() {
    let (_, answer) = convert(json!({})).await;
    assert_eq!(
        first(&answer)["metadata"]["labels"],
        json!({"app": "x", "converted": "yes"})
    );
}

#[tokio::test]
async fn annotations_removed_by_the_conversion_are_removed() {
    let (_, answer) = convert(json!({})).await;
    assert!(first(&answer)["metadata"].get("annotations").is_none());
}

#[tokio::test]
async fn answer_has_the_desired_api_version_and_the_original_kind() {
    let (_, answer) = convert(json!({})).await;
    assert_eq!(first(&answer)["apiVersion"], "m.example.com/v2");
    assert_eq!(first(&answer)["kind"], "Meddler");
}

#[tokio::test]
async fn invalid_label_from_the_conversion_answers_failure() {
    let (_, answer) = convert(json!({"badLabel": true})).await;
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    let message = answer["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("metadata.labels: Invalid value: \"converted=not a label!\""),
        "{message}"
    );
}

#[tokio::test]
async fn author_error_answers_failure_with_its_message() {
    let (_, answer) = convert(json!({"refuse": true})).await;
    assert_eq!(answer["response"]["uid"], "uid-1");
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    let message = answer["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.ends_with("meddler refuses: spec.refuse is set"),
        "{message}"
    );
}
