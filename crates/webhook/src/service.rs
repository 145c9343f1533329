//! The axum service: `POST /convert` answers ConversionReview v1 and v1beta1 in the version
//! asked; a body that is not a ConversionReview request gets 400 with the reason.
//! [`WebhookRouter`] serves conversion and admission (mutating and validating) webhooks
//! from one server, each at its own path.

use crate::admission::{AdmissionHandler, review_json};
use crate::converter::Converter;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use std::sync::Arc;

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

/// Largest AdmissionReview accepted (kube-apiserver's objects are at most a few MB).
pub const MAX_ADMISSION_BODY_BYTES: usize = 16 * 1024 * 1024;

/// One server for every webhook of an operator: conversion at one path, mutating and
/// validating admission handlers at others, and `GET /healthz`.
#[derive(Default)]
pub struct WebhookRouter {
    router: Router,
}

impl WebhookRouter {
    /// A router with only `GET /healthz`.
    pub fn new() -> Self {
        Self {
            router: Router::new().route("/healthz", get(|| async { "ok" })),
        }
    }

    /// Serves ConversionReviews at `path` with `converter`.
    pub fn conversion(self, path: &str, converter: Converter) -> Self {
        let conversion = Router::new()
            .route(path, post(convert))
            .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
            .with_state(converter);
        Self {
            router: self.router.merge(conversion),
        }
    }

    /// Serves a mutating admission handler at `path` (its patches are sent).
    pub fn mutating(self, path: &str, handler: impl AdmissionHandler) -> Self {
        self.admission(path, Arc::new(handler), true)
    }

    /// Serves a validating admission handler at `path` (it never sends a patch).
    pub fn validating(self, path: &str, handler: impl AdmissionHandler) -> Self {
        self.admission(path, Arc::new(handler), false)
    }

    fn admission(self, path: &str, handler: Arc<dyn AdmissionHandler>, mutating: bool) -> Self {
        let route = post(move |body: Bytes| {
            let handler = handler.clone();
            async move { admit(handler, body, mutating).await }
        });
        let admission = Router::new()
            .route(path, route)
            .layer(DefaultBodyLimit::max(MAX_ADMISSION_BODY_BYTES));
        Self {
            router: self.router.merge(admission),
        }
    }

    /// The axum router.
    pub fn build(self) -> Router {
        self.router
    }
}

/// The admission handler: the review in, the answer in the same review version out; the
/// handler runs on a blocking thread (it may do anything).
async fn admit(handler: Arc<dyn AdmissionHandler>, body: Bytes, mutating: bool) -> Response {
    let answer =
        tokio::task::spawn_blocking(move || review_json(handler.as_ref(), &body, mutating)).await;
    match answer {
        Ok(Ok(json)) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Ok(Err(malformed)) => {
            tracing::warn!(error = %malformed, "malformed AdmissionReview");
            (StatusCode::BAD_REQUEST, malformed.to_string()).into_response()
        }
        Err(join) => {
            tracing::error!(error = %join, "admission handler failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "admission handler failed",
            )
                .into_response()
        }
    }
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
