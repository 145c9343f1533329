//! Lists of a namespace holding `size` ConfigMaps: JSON and protobuf, full and paged, at
//! several concurrencies. A paged list counts as one operation that reads every page.

use super::client::ApiClient;
use super::crud::{configmap, configmaps, run_many};
use super::report::Row;
use futures::StreamExt;
use http::Method;
use std::time::{Duration, Instant};

const JSON: &str = "application/json";
const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// Creates `size` ConfigMaps in `ns` (16 in flight, not measured); returns failures.
pub async fn fill(client: &ApiClient, ns: &str, size: usize) -> usize {
    let base = configmaps(ns);
    let (_, errors, _) = run_many(client, size, 16, |i| {
        let body = configmap(&format!("list-{i}"), i, r#""phase":"list""#);
        (Method::POST, base.clone(), Some(body))
    })
    .await;
    errors
}

/// Every list row for one namespace of `size` objects.
pub async fn list_rows(
    client: &ApiClient,
    ns: &str,
    size: usize,
    concurrency: &[usize],
    repeats: usize,
    page: usize,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for (format, accept) in [("json", JSON), ("protobuf", PROTOBUF)] {
        for limit in [0, page] {
            for &c in concurrency {
                let paged = if limit > 0 {
                    format!(" paged {limit}")
                } else {
                    String::new()
                };
                let name = format!("list {size} {format}{paged}");
                let collection = configmaps(ns);
                let list = ListSpec {
                    collection: &collection,
                    accept,
                    limit,
                    any_version: false,
                };
                rows.push(measure(client, &list, c, repeats, name).await);
            }
        }
        // `resourceVersion=0`: any recent state will do, so servers answer from their watch
        // cache (kube-apiserver's Cacher, kapi's watch cache) instead of the store.
        for &c in concurrency {
            let collection = configmaps(ns);
            let list = ListSpec {
                collection: &collection,
                accept,
                limit: 0,
                any_version: true,
            };
            let name = format!("list {size} {format} rv=0");
            rows.push(measure(client, &list, c, repeats, name).await);
        }
    }
    rows
}

/// What one measured list reads: a collection path, a media type and a page size (0: all).
pub struct ListSpec<'a> {
    /// The collection path, e.g. `/api/v1/namespaces/ns/configmaps`.
    pub collection: &'a str,
    /// The `Accept` media type.
    pub accept: &'a str,
    /// `limit` of each page; 0 reads the whole list at once.
    pub limit: usize,
    /// Ask with `resourceVersion=0` (served from the watch cache).
    pub any_version: bool,
}

/// `repeats` lists as described by `list`, `c` in flight, as one row named `name`.
pub async fn measure(
    client: &ApiClient,
    list: &ListSpec<'_>,
    c: usize,
    repeats: usize,
    name: String,
) -> Row {
    super::server_cpu::phase_started();
    let started = Instant::now();
    let results: Vec<Option<Duration>> = futures::stream::iter(0..repeats)
        .map(|_| async move {
            let t = Instant::now();
            match read_all_pages(client, list).await {
                Ok(()) => Some(t.elapsed()),
                Err(e) => {
                    tracing::warn!(error = %e, "list failed");
                    None
                }
            }
        })
        .buffer_unordered(c.max(1))
        .collect()
        .await;
    let total = started.elapsed();
    let errors = results.iter().filter(|r| r.is_none()).count();
    Row::new(
        name,
        c,
        results.into_iter().flatten().collect(),
        errors,
        total,
    )
}

/// One list, following `continue` tokens until the last page.
async fn read_all_pages(client: &ApiClient, list: &ListSpec<'_>) -> Result<(), String> {
    let (accept, limit) = (list.accept, list.limit);
    let mut cont = String::new();
    loop {
        let mut path = format!("{}?limit={limit}", list.collection);
        if list.any_version {
            path.push_str("&resourceVersion=0");
        }
        if !cont.is_empty() {
            path.push_str("&continue=");
            path.push_str(&escape(&cont));
        }
        let reply = client
            .send(Method::GET, &path, accept, None)
            .await
            .map_err(|e| e.to_string())?;
        if !reply.status.is_success() {
            return Err(format!("{path}: {}", reply.status));
        }
        if limit == 0 {
            return Ok(());
        }
        cont = if accept == PROTOBUF {
            protobuf_continue(&reply.body).unwrap_or_default()
        } else {
            json_continue(&reply.body)
        };
        if cont.is_empty() {
            return Ok(());
        }
    }
}

/// `metadata.continue` of a JSON list. Reading stops at the end of the list's `metadata`,
/// which kube-apiserver and kapi both write before `items`: the load tool does not scan the
/// items of every page (an unpaged list is not parsed at all, so a paged one should cost the
/// tool no more than its requests, issue 19). Items written first are skipped, not built.
fn json_continue(body: &[u8]) -> String {
    let mut token = String::new();
    let mut de = serde_json::Deserializer::from_slice(body);
    // The seed stops the parse with an error once it has the token; either way `token` holds
    // what was found.
    let _ = serde::de::DeserializeSeed::deserialize(ContinueSeed(&mut token), &mut de);
    token
}

/// Reads a list's top-level keys up to `metadata` and takes its `continue`.
struct ContinueSeed<'a>(&'a mut String);

impl<'de> serde::de::DeserializeSeed<'de> for ContinueSeed<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ContinueSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        #[derive(serde::Deserialize, Default)]
        struct Meta {
            #[serde(default, rename = "continue")]
            token: String,
        }
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "metadata" {
                *self.0 = map.next_value::<Meta>()?.token;
                return Err(serde::de::Error::custom("stopped after metadata"));
            }
            map.next_value::<serde::de::IgnoredAny>()?;
        }
        Ok(())
    }
}

/// Percent-encodes the characters of a base64 token that are not safe in a query.
fn escape(token: &str) -> String {
    token
        .replace('+', "%2B")
        .replace('/', "%2F")
        .replace('=', "%3D")
}

/// `metadata.continue` of a protobuf list: envelope `k8s\0` + Unknown{raw=2} →
/// List{metadata=1} → ListMeta{continue=3}.
fn protobuf_continue(body: &[u8]) -> Option<String> {
    let unknown = body.strip_prefix(b"k8s\0")?;
    let raw = bytes_field(unknown, 2)?;
    let meta = bytes_field(raw, 1)?;
    let cont = bytes_field(meta, 3)?;
    String::from_utf8(cont.to_vec()).ok()
}

/// The first length-delimited field `num` of a protobuf message.
fn bytes_field(mut buf: &[u8], num: u64) -> Option<&[u8]> {
    while !buf.is_empty() {
        let key = varint(&mut buf)?;
        match key & 7 {
            0 => {
                varint(&mut buf)?;
            }
            1 => buf = buf.get(8..)?,
            5 => buf = buf.get(4..)?,
            2 => {
                let len = usize::try_from(varint(&mut buf)?).ok()?;
                let value = buf.get(..len)?;
                buf = &buf[len..];
                if key >> 3 == num {
                    return Some(value);
                }
            }
            _ => return None,
        }
    }
    None
}

fn varint(buf: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = buf.split_first()?;
        *buf = rest;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_continue_reads_the_metadata_written_before_the_items() {
        let body = br#"{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"abc"},"items":[{"metadata":{"name":"x","continue":"no"}}]}"#;
        assert_eq!(json_continue(body), "abc");
    }

    #[test]
    fn json_continue_reads_the_metadata_written_after_the_items() {
        let body = br#"{"items":[{"metadata":{"continue":"no"}}],"metadata":{"continue":"abc"}}"#;
        assert_eq!(json_continue(body), "abc");
    }

    #[test]
    fn json_continue_of_a_last_page_or_a_broken_body_is_empty() {
        assert_eq!(
            json_continue(br#"{"metadata":{"resourceVersion":"7"},"items":[]}"#),
            ""
        );
        assert_eq!(json_continue(b"{\"metadata\":"), "");
        assert_eq!(json_continue(b"[1,2]"), "");
    }

    #[test]
    fn protobuf_continue_reads_list_meta_continue() {
        // ListMeta{resourceVersion="7", continue="abc"}
        let meta = [0x12, 1, b'7', 0x1a, 3, b'a', b'b', b'c'];
        let mut list = vec![0x0a, meta.len() as u8];
        list.extend_from_slice(&meta);
        let mut unknown = vec![0x12, list.len() as u8];
        unknown.extend_from_slice(&list);
        let mut body = b"k8s\0".to_vec();
        body.extend_from_slice(&unknown);
        assert_eq!(protobuf_continue(&body).as_deref(), Some("abc"));
    }
}
