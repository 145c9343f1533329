//! Plain JSON lists and gets of custom resources answer stored bytes with `resourceVersion`
//! spliced in when a read provably changes nothing; these tests pin that the answer is byte
//! for byte the decoding path's (a label selector forces decoding), before and after a
//! schema change that adds a default and removes a field (pruning and defaulting on read,
//! R4.12).

mod e2e_support;

mod e2e_crd_support;

use e2e_crd_support::*;
use e2e_support::{Kapi, json};
use serde_json::value::RawValue;

/// Creates Widgets of several metadata shapes, all labelled `t=1`.
async fn create_widgets(kapi: &Kapi) {
    let bodies = [
        r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a","labels":{"t":"1"}},"spec":{"label":"x","replicas":2}}"#,
        r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"b","labels":{"t":"1","z":""},"annotations":{"note":"quote \" and \\ and é"},"finalizers":["example.com/keep"]},"spec":{}}"#,
        r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"c","labels":{"t":"1"}},"spec":{"label":"tab\there","replicas":0},"status":{"ready":true}}"#,
    ];
    for body in bodies {
        let (s, _, out) = kapi.raw(send("POST", V1A1, "application/json", body)).await;
        assert_eq!(s, 201, "{}", String::from_utf8_lossy(&out));
    }
}

/// The raw `items` of a list body, byte for byte (the list's own resourceVersion may move
/// between two requests when anything else is written).
fn raw_items(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct List<'a> {
        #[serde(borrow)]
        items: &'a RawValue,
    }
    let list: List = serde_json::from_slice(body).unwrap();
    list.items.get().to_owned()
}

/// The items of the plain list (spliced where proven) and of the decoded list (label
/// selector) of v1alpha1.
async fn both_lists(kapi: &Kapi) -> (String, String) {
    let (s, _, plain) = kapi.raw(get(V1A1)).await;
    assert_eq!(s, 200);
    let (s, _, decoded) = kapi.raw(get(&format!("{V1A1}?labelSelector=t%3D1"))).await;
    assert_eq!(s, 200);
    (raw_items(&plain), raw_items(&decoded))
}

#[tokio::test]
async fn plain_list_is_byte_for_byte_the_decoded_list() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi).await;
    let (plain, decoded) = both_lists(&kapi).await;
    assert_eq!(plain, decoded);
    assert_eq!(json(plain.as_bytes()).as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn plain_get_is_byte_for_byte_the_decoded_list_item() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi).await;
    let (_, decoded) = both_lists(&kapi).await;
    let items: Vec<Box<RawValue>> = serde_json::from_str(&decoded).unwrap();
    for (item, name) in items.iter().zip(["a", "b", "c"]) {
        let (s, _, body) = kapi.raw(get(&format!("{V1A1}/{name}"))).await;
        assert_eq!(s, 200);
        assert_eq!(String::from_utf8(body).unwrap().trim_end(), item.get());
    }
}

#[tokio::test]
async fn plain_list_after_a_schema_change_is_pruned_and_defaulted_like_the_decoded_list() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi).await;
    let changed = widget_crd("v1alpha1", true, true).replace(
        r#""label":{"type":"string","maxLength":10},"#,
        r#""color":{"type":"string","default":"blue"},"#,
    );
    apply_crd(&kapi, &changed);
    // The registry follows the CRD watch: wait until reads use the new schema.
    let mut lists = both_lists(&kapi).await;
    for _ in 0..100 {
        if json(lists.0.as_bytes())[0]["spec"]["color"] == "blue" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        lists = both_lists(&kapi).await;
    }
    let (plain, decoded) = lists;
    assert_eq!(plain, decoded);
    for item in json(plain.as_bytes()).as_array().unwrap() {
        assert_eq!(item["spec"]["color"], "blue", "{item}");
        assert!(item["spec"].get("label").is_none(), "{item}");
    }
}
