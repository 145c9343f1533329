//! The `Store` trait: etcd's key-value model (one global revision, CAS on mod_revision,
//! ranges at a revision, watches from a revision, compaction), implemented by every backend.

use std::pin::Pin;
use std::task::{Context, Poll};

use async_trait::async_trait;
use futures::Stream;

use crate::error::Result;
use crate::types::{
    DeleteResponse, KeyValue, RangeRequest, RangeResponse, WatchRequest, WatchResponse,
};

/// An etcd-shaped key-value store. Object safe: hold it as `Arc<dyn Store>`.
///
/// Every successful write gets the next value of one global revision counter. Reads at a
/// revision older than the compacted revision fail with [`crate::StoreError::Compacted`], reads at
/// a revision newer than the current one with [`crate::StoreError::FutureRevision`].
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// The key at the latest revision or at `revision`; `None` when absent.
    async fn get(&self, key: &[u8], revision: Option<i64>) -> Result<Option<KeyValue>>;

    /// Keys under a prefix, paged, all pages readable at one revision.
    async fn range(&self, request: RangeRequest) -> Result<RangeResponse>;

    /// Number of keys under `prefix` at the latest revision.
    async fn count(&self, prefix: &[u8]) -> Result<i64>;

    /// Creates `key` if absent; [`crate::StoreError::AlreadyExists`] otherwise.
    async fn create(&self, key: &[u8], value: Vec<u8>) -> Result<KeyValue>;

    /// Replaces `key` if its mod_revision is `expected_mod_revision`;
    /// [`crate::StoreError::Conflict`] on another revision, [`crate::StoreError::NotFound`] when absent.
    async fn update(
        &self,
        key: &[u8],
        value: Vec<u8>,
        expected_mod_revision: i64,
    ) -> Result<KeyValue>;

    /// Writes `key` unconditionally (create or replace).
    async fn put(&self, key: &[u8], value: Vec<u8>) -> Result<KeyValue>;

    /// Deletes `key`, if `expected_mod_revision` is given only at that revision;
    /// [`crate::StoreError::NotFound`] when absent, [`crate::StoreError::Conflict`] on another revision.
    async fn delete(
        &self,
        key: &[u8],
        expected_mod_revision: Option<i64>,
    ) -> Result<DeleteResponse>;

    /// Streams committed changes to a key or prefix, starting at a revision.
    async fn watch(&self, request: WatchRequest) -> Result<WatchStream>;

    /// Discards history before `revision`: later reads and watches before it fail with
    /// [`crate::StoreError::Compacted`]. Compacting at or below the compacted revision is
    /// [`crate::StoreError::Compacted`] too, beyond the current revision [`crate::StoreError::FutureRevision`].
    async fn compact(&self, revision: i64) -> Result<()>;

    /// The revision of the last committed write (0 for an empty store that was never written).
    async fn current_revision(&self) -> Result<i64>;
}

/// Asks a running watch for a progress notification (backend-specific).
#[async_trait]
pub trait ProgressRequester: Send {
    /// Requests one [`WatchResponse::Progress`] on the stream.
    async fn request_progress(&mut self) -> Result<()>;
}

/// The boxed stream inside a [`WatchStream`].
pub type BoxWatchStream = Pin<Box<dyn Stream<Item = Result<WatchResponse>> + Send>>;

/// A running watch: a stream of [`WatchResponse`]s. An `Err` item (compacted, closed,
/// unavailable) is the last item. Dropping the stream cancels the watch.
pub struct WatchStream {
    inner: BoxWatchStream,
    progress: Box<dyn ProgressRequester>,
}

impl WatchStream {
    /// Wraps a backend's stream and its progress requester.
    pub fn new(inner: BoxWatchStream, progress: Box<dyn ProgressRequester>) -> Self {
        WatchStream { inner, progress }
    }

    /// Asks for a [`WatchResponse::Progress`] carrying the revision the watch has caught up with.
    pub async fn request_progress(&mut self) -> Result<()> {
        self.progress.request_progress().await
    }
}

impl Stream for WatchStream {
    type Item = Result<WatchResponse>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl std::fmt::Debug for WatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchStream").finish_non_exhaustive()
    }
}
