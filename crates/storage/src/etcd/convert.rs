//! Translation between etcd's messages and the store's types: key prefixing, key-values,
//! events and errors (etcd reports compaction and future revisions only in the message text).

use etcd_client::{Error as EtcdError, EventType, GetOptions, WatchOptions};

use crate::error::StoreError;
use crate::keys::prefix_end;
use crate::types::{Event, KeyValue};

/// The key prefix under which this store keeps its keys.
#[derive(Debug, Clone, Default)]
pub struct Prefix(pub Vec<u8>);

impl Prefix {
    /// The etcd key of a store key.
    pub fn full(&self, key: &[u8]) -> Vec<u8> {
        let mut full = Vec::with_capacity(self.0.len() + key.len());
        full.extend_from_slice(&self.0);
        full.extend_from_slice(key);
        full
    }

    /// The store key of an etcd key (keys outside the prefix are returned unchanged).
    pub fn strip<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        key.strip_prefix(self.0.as_slice()).unwrap_or(key)
    }

    /// A store key-value from an etcd one.
    pub fn kv(&self, kv: &etcd_client::KeyValue) -> KeyValue {
        KeyValue {
            key: self.strip(kv.key()).to_vec(),
            value: kv.value().to_vec(),
            create_revision: kv.create_revision(),
            mod_revision: kv.mod_revision(),
            version: kv.version(),
        }
    }

    /// A store event from an etcd one; `None` for an event without a key-value.
    pub fn event(&self, event: &etcd_client::Event) -> Option<Event> {
        let kv = event.kv()?;
        let prev = event.prev_kv().map(|p| self.kv(p));
        Some(match event.event_type() {
            EventType::Put => Event::Put {
                kv: self.kv(kv),
                prev,
            },
            EventType::Delete => Event::Delete {
                key: self.strip(kv.key()).to_vec(),
                revision: kv.mod_revision(),
                prev,
            },
        })
    }

    /// Get options covering every etcd key under `full_prefix`, starting at `start`.
    pub fn range_options(&self, full_prefix: &[u8]) -> GetOptions {
        match prefix_end(full_prefix) {
            Some(end) => GetOptions::new().with_range(end),
            None if full_prefix.is_empty() => GetOptions::new().with_all_keys(),
            None => GetOptions::new().with_from_key(),
        }
    }

    /// Watch options covering a key or every key under it.
    pub fn watch_options(&self, full_key: &[u8], prefix: bool) -> WatchOptions {
        if !prefix {
            return WatchOptions::new();
        }
        match prefix_end(full_key) {
            Some(end) => WatchOptions::new().with_range(end),
            None if full_key.is_empty() => WatchOptions::new().with_all_keys(),
            None => WatchOptions::new().with_from_key(),
        }
    }
}

/// Maps an etcd client error; `requested` is the revision the call asked for, if any.
pub fn map_error(error: EtcdError, requested: Option<i64>) -> StoreError {
    match error {
        EtcdError::GRpcStatus(status) => {
            let message = status.message();
            if message.contains("required revision has been compacted") {
                StoreError::Compacted {
                    requested: requested.unwrap_or(0),
                    compacted: 0,
                }
            } else if message.contains("required revision is a future revision") {
                StoreError::FutureRevision {
                    requested: requested.unwrap_or(0),
                    current: 0,
                }
            } else if is_transient_code(status.code()) {
                StoreError::Unavailable(format!("etcd: {message}"))
            } else {
                StoreError::Internal(format!("etcd: {:?}: {message}", status.code()))
            }
        }
        EtcdError::TransportError(e) => StoreError::Unavailable(format!("etcd transport: {e}")),
        EtcdError::IoError(e) => StoreError::Unavailable(format!("etcd i/o: {e}")),
        EtcdError::WatchError(e) => StoreError::Unavailable(format!("etcd watch: {e}")),
        other => StoreError::Internal(format!("etcd: {other}")),
    }
}

/// True when the request provably never reached a member (no connection could be made),
/// so even a non-idempotent write may be retried.
pub fn never_sent(error: &EtcdError) -> bool {
    match error {
        EtcdError::GRpcStatus(status) => {
            status.code() == tonic::Code::Unavailable
                && status.message().contains("tcp connect error")
        }
        _ => false,
    }
}

/// Codes after which the request may be retried elsewhere. tonic reports a broken connection
/// to a member as `Unknown` ("transport error").
fn is_transient_code(code: tonic::Code) -> bool {
    matches!(
        code,
        tonic::Code::Unavailable
            | tonic::Code::DeadlineExceeded
            | tonic::Code::Aborted
            | tonic::Code::Unknown
            | tonic::Code::Cancelled
    )
}
