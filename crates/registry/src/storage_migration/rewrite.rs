//! The rewrite loop of a storage-version migration (R7.3, R7.5): pages over a resource's keys
//! and writes every object not stored in the current storage version again, converted through
//! the entry's codec. Nothing but the encoding changes, so no strategy runs (as upstream's
//! no-op update of a stale object only re-encodes it).
//! Each write is a compare-and-swap on the revision read, so a concurrent client write always
//! wins and is never lost; the object is then read again and rewritten if still stale. A page
//! is converted in one batch (one webhook call) and written [`WRITES_IN_FLIGHT`] writes at a
//! time, so the store can commit them in groups.

use crate::entry::ResourceEntry;
use kapi_storage::{KeyValue, RangeRequest, Store, StoreError};
use serde_json::Value;

/// Why a rewrite stopped.
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    /// The store failed.
    #[error("storage: {0}")]
    Store(#[from] StoreError),
    /// Converting or encoding an object failed (e.g. the conversion webhook is down).
    #[error("converting {key}: {message}")]
    Convert {
        /// The object's key.
        key: String,
        /// The converter's message.
        message: String,
    },
}

/// Objects read (and converted) per page.
pub const PAGE: usize = 500;
/// Concurrent CAS writes within a page.
pub const WRITES_IN_FLIGHT: usize = 64;

/// Called after each page with the number of objects rewritten so far.
pub type Progress<'a> = &'a (dyn Fn(u64) + Send + Sync);

/// Rewrites every stale object of `entry`'s resource; the number rewritten.
pub async fn rewrite_all(
    store: &dyn Store,
    entry: &ResourceEntry,
    progress: Progress<'_>,
) -> Result<u64, RewriteError> {
    let prefix = entry.collection_prefix(None);
    let page_request = || {
        RangeRequest::prefix(prefix.as_bytes())
            .with_limit(PAGE)
            .without_count()
    };
    let mut request = page_request();
    let mut rewritten = 0;
    loop {
        let page = store.range(request).await?;
        rewritten += rewrite_page(store, entry, &page.kvs).await?;
        progress(rewritten);
        match (page.more, page.kvs.last()) {
            (true, Some(last)) => {
                request = page_request().after(last.key.clone());
            }
            _ => return Ok(rewritten),
        }
        tokio::task::yield_now().await;
    }
}

fn convert_error(key: &[u8], message: String) -> RewriteError {
    RewriteError::Convert {
        key: String::from_utf8_lossy(key).into_owned(),
        message,
    }
}

/// Rewrites a page's stale objects: one batched conversion, then concurrent CAS writes.
async fn rewrite_page(
    store: &dyn Store,
    entry: &ResourceEntry,
    kvs: &[KeyValue],
) -> Result<u64, RewriteError> {
    let stale: Vec<&KeyValue> = kvs
        .iter()
        .filter(|kv| !entry.codec.is_stored_current(&kv.value))
        .collect();
    let Some(first) = stale.first() else {
        return Ok(0);
    };
    let values: Vec<&[u8]> = stale.iter().map(|kv| kv.value.as_slice()).collect();
    let objs = entry
        .codec
        .decode_stored_many(&values)
        .await
        .map_err(|e| convert_error(&first.key, e.to_string()))?;
    let mut rewritten = 0;
    let mut pairs = stale.into_iter().zip(objs).peekable();
    while pairs.peek().is_some() {
        let writes = pairs
            .by_ref()
            .take(WRITES_IN_FLIGHT)
            .map(|(kv, obj)| write_converted(store, entry, kv, obj));
        let wrote = futures::future::try_join_all(writes).await?;
        rewritten += wrote.into_iter().filter(|w| *w).count() as u64;
    }
    Ok(rewritten)
}

/// Writes one converted object over the revision it was read at; on conflict the object is
/// read again and handled by [`rewrite_one`]. True when a write happened.
async fn write_converted(
    store: &dyn Store,
    entry: &ResourceEntry,
    kv: &KeyValue,
    obj: Value,
) -> Result<bool, RewriteError> {
    let bytes = entry
        .codec
        .encode_for_storage(&obj)
        .await
        .map_err(|e| convert_error(&kv.key, e.to_string()))?;
    match store.update(&kv.key, bytes, kv.mod_revision).await {
        Ok(_) => Ok(true),
        Err(e) if e.is_conflict() => match store.get(&kv.key, None).await? {
            Some(fresh) => rewrite_one(store, entry, fresh).await,
            None => Ok(false),
        },
        Err(StoreError::NotFound { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Rewrites one object in the storage version, retrying on conflict; false when it was
/// deleted or is already current.
async fn rewrite_one(
    store: &dyn Store,
    entry: &ResourceEntry,
    mut kv: KeyValue,
) -> Result<bool, RewriteError> {
    loop {
        if entry.codec.is_stored_current(&kv.value) {
            return Ok(false);
        }
        let obj = entry
            .codec
            .decode_stored(&kv.value)
            .await
            .map_err(|e| convert_error(&kv.key, e.to_string()))?;
        let bytes = entry
            .codec
            .encode_for_storage(&obj)
            .await
            .map_err(|e| convert_error(&kv.key, e.to_string()))?;
        match store.update(&kv.key, bytes, kv.mod_revision).await {
            Ok(_) => return Ok(true),
            Err(e) if e.is_conflict() => match store.get(&kv.key, None).await? {
                Some(fresh) => kv = fresh,
                None => return Ok(false),
            },
            Err(StoreError::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(e.into()),
        }
    }
}
