//! An etcd-shaped key-value store: one trait, an embedded backend and an etcd backend.
//!
//! Everything above the storage layer holds an `Arc<dyn Store>` and cannot tell the backends
//! apart; the contract is written down in `docs/storage.md` and pinned by one conformance suite.
//!
//! ```
//! use std::sync::Arc;
//! use kapi_storage::{EmbeddedConfig, EmbeddedStore, RangeRequest, Store, StoreError};
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), StoreError> {
//! # let dir = tempfile::tempdir().unwrap();
//! let store: Arc<dyn Store> = EmbeddedStore::open(EmbeddedConfig::new(dir.path()))?;
//! let key = b"/registry/pods/default/web";
//! let created = store.create(key, b"{}".to_vec()).await?;
//! // Compare-and-swap on the revision the caller read (resourceVersion).
//! let updated = store.update(key, b"{\"v\":2}".to_vec(), created.mod_revision).await?;
//! let stale = store.update(key, b"{}".to_vec(), created.mod_revision).await;
//! assert!(matches!(stale, Err(StoreError::Conflict { .. })));
//! let list = store.range(RangeRequest::prefix("/registry/pods/")).await?;
//! assert_eq!(list.kvs, vec![updated]);
//! # Ok(())
//! # }
//! ```

mod compactor;
pub mod embedded;
mod error;
pub mod etcd;
mod keys;
mod open;
mod store;
mod types;

pub use compactor::spawn_compactor;
pub use embedded::{EmbeddedConfig, EmbeddedStore};
pub use error::{Result, StoreError};
pub use etcd::{EtcdConfig, EtcdStore, EtcdTls};
pub use keys::prefix_end;
pub use open::{StoreConfig, open_store};
pub use store::{BoxWatchStream, ProgressRequester, Store, WatchStream};
pub use types::{
    DeleteResponse, Event, KeyValue, RangeRequest, RangeResponse, WatchRequest, WatchResponse,
};
