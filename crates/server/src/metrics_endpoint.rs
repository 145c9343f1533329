//! `/metrics`: the server's request metrics, the watch caches' and the conversion
//! webhooks', in the Prometheus text format.

use crate::state::ApiState;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use std::sync::Arc;

/// The watch caches' store watches and subscribers, one series per storage prefix.
fn watch_cache_metrics(caches: &kapi_registry::cache::WatchCaches) -> String {
    let mut caches = caches.all();
    caches.sort_by(|a, b| a.prefix().cmp(b.prefix()));
    let mut out = String::from(
        "# HELP kapi_watch_cache_store_watches_total Store watches opened by the watch cache of a storage prefix (one unless it had to restart)\n# TYPE kapi_watch_cache_store_watches_total counter\n",
    );
    for c in &caches {
        out.push_str(&format!(
            "kapi_watch_cache_store_watches_total{{prefix=\"{}\"}} {}\n",
            c.prefix(),
            c.store_watches()
        ));
    }
    out.push_str("# HELP kapi_watch_cache_lists_total Lists answered from the watch cache of a storage prefix\n# TYPE kapi_watch_cache_lists_total counter\n");
    for c in &caches {
        out.push_str(&format!(
            "kapi_watch_cache_lists_total{{prefix=\"{}\"}} {}\n",
            c.prefix(),
            c.lists()
        ));
    }
    out.push_str("# HELP kapi_watch_cache_consistent_reads_total Consistent lists that waited for the watch cache of a storage prefix: answered by it (fallback=\"false\") or, when it could not catch up in time, by the store (fallback=\"true\")\n# TYPE kapi_watch_cache_consistent_reads_total counter\n");
    for c in &caches {
        let (served, fallbacks) = c.consistent_reads();
        out.push_str(&format!(
            "kapi_watch_cache_consistent_reads_total{{prefix=\"{}\",fallback=\"false\"}} {served}\nkapi_watch_cache_consistent_reads_total{{prefix=\"{}\",fallback=\"true\"}} {fallbacks}\n",
            c.prefix(),
            c.prefix(),
        ));
    }
    out.push_str("# HELP kapi_watch_cache_subscribers Watchers and controllers following the watch cache of a storage prefix\n# TYPE kapi_watch_cache_subscribers gauge\n");
    for c in &caches {
        out.push_str(&format!(
            "kapi_watch_cache_subscribers{{prefix=\"{}\"}} {}\n",
            c.prefix(),
            c.subscribers()
        ));
    }
    out
}

/// `/metrics` in the Prometheus text format: the server's metrics, the watch caches'
/// (`kapi_watch_cache_*`, per storage prefix), then the conversion webhooks'
/// (`apiserver_conversion_webhook_*`, of the server's `WebhookEnvironment`).
pub async fn serve(State(state): State<Arc<ApiState>>) -> impl IntoResponse {
    let mut text = state.metrics.render();
    text.push_str(&watch_cache_metrics(&state.caches));
    text.push_str(&state.webhooks.metrics().render());
    text.push_str(&state.admission_metrics.render());
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        text,
    )
}
