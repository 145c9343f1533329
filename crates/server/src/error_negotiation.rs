//! Errors in the representation the client accepts. kube-apiserver negotiates an error's
//! `Status` like any object (`responsewriters.ErrorNegotiated`): a client-go client set up
//! for protobuf reads errors in protobuf, one that asks for YAML reads YAML, and an error
//! whose `Accept` names nothing servable stays JSON. Every handler writes its errors as JSON
//! once (`ApiError`); this layer re-encodes them on the way out when the client asked for
//! another form.

use crate::negotiate::{self, Media};
use crate::respond::{bytes_response, encode_text};
use axum::extract::Request;
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use kapi_machinery::meta::v1::Status;
use kapi_machinery::serializer::protobuf::write_unknown_message;

/// The largest error body re-encoded; a `Status` is a few KiB at most.
const MAX_STATUS_BYTES: usize = 1 << 20;

/// Runs the request and re-encodes a JSON error `Status` as the client's `Accept` asks.
pub async fn negotiate_errors(req: Request, next: Next) -> Response {
    let media = negotiate::negotiate_error(
        req.headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok()),
    );
    let resp = next.run(req).await;
    let failed = resp.status().is_client_error() || resp.status().is_server_error();
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes() == negotiate::JSON.as_bytes());
    if media == Media::Json || !failed || !is_json {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_STATUS_BYTES).await else {
        return crate::status::ApiError::internal("error body too large to re-encode")
            .into_response();
    };
    let unchanged = |bytes: axum::body::Bytes| Response::from_parts(parts.clone(), bytes.into());
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return unchanged(bytes);
    };
    if value.get("kind").and_then(|k| k.as_str()) != Some("Status") {
        return unchanged(bytes);
    }
    let encoded = match media {
        Media::Protobuf => serde_json::from_value::<Status>(value)
            .map(|status| protobuf_status(&status))
            .ok(),
        _ => encode_text(&value, media, false).ok(),
    };
    let Some(body) = encoded else {
        return unchanged(bytes);
    };
    let mut out = bytes_response(parts.status, media.as_str(), body);
    for (name, v) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().insert(name.clone(), v.clone());
        }
    }
    out
}

/// A `Status` as kube writes it in protobuf: `k8s\0` and a `runtime.Unknown` of `v1, Status`.
fn protobuf_status(status: &Status) -> Vec<u8> {
    let mut message = status.clone();
    message.kind.clear();
    message.api_version.clear();
    let mut out = b"k8s\0".to_vec();
    write_unknown_message(
        "v1",
        "Status",
        &prost::Message::encode_to_vec(&message),
        "",
        "",
        &mut out,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kapi_machinery::serializer::protobuf::read_unknown_message;

    #[test]
    fn a_protobuf_status_is_the_envelope_around_the_status_message() {
        let status = Status {
            kind: "Status".into(),
            api_version: "v1".into(),
            status: "Failure".into(),
            message: "gone".into(),
            reason: "NotFound".into(),
            code: 404,
            ..Default::default()
        };
        let bytes = protobuf_status(&status);
        assert_eq!(&bytes[..4], b"k8s\0");
        let unknown = read_unknown_message(&bytes[4..]).unwrap();
        assert_eq!(unknown.api_version, "v1");
        assert_eq!(unknown.kind, "Status");
        let back: Status = prost::Message::decode(unknown.raw.as_slice()).unwrap();
        assert_eq!(back.reason, "NotFound");
        assert_eq!(back.code, 404);
        assert!(back.kind.is_empty(), "TypeMeta lives in the envelope only");
    }

    #[test]
    fn errors_follow_the_first_clause_without_a_transform() {
        use negotiate::negotiate_error as n;
        assert_eq!(n(Some(negotiate::PROTOBUF)), Media::Protobuf);
        assert_eq!(
            n(Some(
                "application/vnd.kubernetes.protobuf, application/json"
            )),
            Media::Protobuf
        );
        assert_eq!(n(Some("application/yaml")), Media::Yaml);
        assert_eq!(
            n(Some(
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf"
            )),
            Media::Protobuf
        );
        assert_eq!(n(Some("application/xml")), Media::Json);
        assert_eq!(n(None), Media::Json);
    }
}
