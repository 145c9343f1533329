//! The one error type of every store operation.
//! Callers match on the variant (never on the text); the server maps each to a Kubernetes Status.

use crate::types::KeyValue;

/// Result of every store operation.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The key does not exist (update or delete of a missing key).
    #[error("key not found: {}", String::from_utf8_lossy(key))]
    NotFound {
        /// The key that was looked up.
        key: Vec<u8>,
    },
    /// `create` found the key already present.
    #[error("key already exists: {}", String::from_utf8_lossy(&current.key))]
    AlreadyExists {
        /// The key as it is now.
        current: Box<KeyValue>,
    },
    /// A write guarded by `mod_revision` found another revision.
    #[error(
        "conflict on {}: expected mod_revision {expected}, found {}",
        String::from_utf8_lossy(&current.key),
        current.mod_revision
    )]
    Conflict {
        /// The mod_revision the caller expected.
        expected: i64,
        /// The key as it is now.
        current: Box<KeyValue>,
    },
    /// The requested revision is older than the compacted revision (kube: 410 Gone / Expired).
    #[error("required revision {requested} has been compacted (compacted revision {compacted})")]
    Compacted {
        /// The revision the caller asked for.
        requested: i64,
        /// The store's compacted revision; 0 when the backend did not report it.
        compacted: i64,
    },
    /// The requested revision is newer than the store's current revision.
    #[error("required revision {requested} is a future revision (current revision {current})")]
    FutureRevision {
        /// The revision the caller asked for.
        requested: i64,
        /// The store's current revision; 0 when the backend did not report it.
        current: i64,
    },
    /// A watcher fell too far behind or its stream was cut; re-list and watch again.
    #[error("watch closed: {0}")]
    WatchClosed(String),
    /// The store directory is held by another process (embedded backend).
    #[error(
        "storage at {path} is in use by another process (locked); stop it or pick another data directory"
    )]
    Locked {
        /// The locked path.
        path: String,
    },
    /// The request itself is malformed (empty key, bad prefix, …).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The store cannot be reached or has shut down; the write may or may not have happened.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// The backend failed in a way the caller cannot fix (I/O error, corrupt data, …).
    #[error("storage internal error: {0}")]
    Internal(String),
}

impl StoreError {
    /// True for [`StoreError::Compacted`] (the server answers 410 Gone).
    pub fn is_compacted(&self) -> bool {
        matches!(self, StoreError::Compacted { .. })
    }

    /// True for [`StoreError::Conflict`] (the server answers 409 Conflict and clients retry).
    pub fn is_conflict(&self) -> bool {
        matches!(self, StoreError::Conflict { .. })
    }

    /// True for [`StoreError::NotFound`].
    pub fn is_not_found(&self) -> bool {
        matches!(self, StoreError::NotFound { .. })
    }
}
