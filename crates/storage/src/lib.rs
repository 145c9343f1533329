//! An etcd-shaped key-value store: one trait, an embedded backend and an etcd backend.
//!
//! Everything above the storage layer holds an `Arc<dyn Store>` and cannot tell the backends
//! apart; the contract is written down in `docs/storage.md` and pinned by one conformance suite.

mod compactor;
pub mod embedded;
mod error;
pub mod etcd;
mod keys;
mod store;
mod types;

pub use compactor::spawn_compactor;
pub use embedded::{EmbeddedConfig, EmbeddedStore};
pub use error::{Result, StoreError};
pub use etcd::{EtcdConfig, EtcdStore, EtcdTls};
pub use keys::prefix_end;
pub use store::{BoxWatchStream, ProgressRequester, Store, WatchStream};
pub use types::{
    DeleteResponse, Event, KeyValue, RangeRequest, RangeResponse, WatchRequest, WatchResponse,
};
