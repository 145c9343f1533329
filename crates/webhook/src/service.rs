//! The axum service: `POST /convert` answers ConversionReview v1 and v1beta1 in the version
//! asked; a body that is not a ConversionReview request gets 400 with the reason.

use crate::converter::Converter;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

/// The path kube-apiserver is usually configured to call (`clientConfig.service.path`).
pub const DEFAULT_PATH: &str = "/convert";
/// Largest review body accepted: kube-apiserver sends all items of a list in one review.
pub const MAX_BODY_BYTES: usize = 256 * 1024 * 1024;

/// A router serving `converter` at [`DEFAULT_PATH`], plus `GET /healthz`.
pub fn router(converter: Converter) -> Router {
    router_at(DEFAULT_PATH, converter)
}

/// A router serving `converter` at `path`, plus `GET /healthz`.
pub fn router_at(path: &str, converter: Converter) -> Router {
    Router::new()
        .route(path, post(convert))
        .route("/healthz", get(|| async { "ok" }))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(converter)
}

/// Bodies above this size are converted on a blocking thread, so that a large list does
/// not stall the async workers; small ones inline, which is cheaper than a thread hop.
const INLINE_BODY_BYTES: usize = 64 * 1024;

/// The handler: the review in, the answer in the same review version out.
async fn convert(State(converter): State<Converter>, body: Bytes) -> Response {
    let answer = if body.len() <= INLINE_BODY_BYTES {
        Ok(converter.review_json(&body))
    } else {
        tokio::task::spawn_blocking(move || converter.review_json(&body)).await
    };
    match answer {
        Ok(Ok(json)) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Ok(Err(malformed)) => {
            tracing::warn!(error = %malformed, "malformed ConversionReview");
            (StatusCode::BAD_REQUEST, malformed.to_string()).into_response()
        }
        Err(join) => {
            tracing::error!(error = %join, "conversion task failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "conversion task failed").into_response()
        }
    }
}
