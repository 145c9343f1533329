//! The values the store trait speaks: key-values, range and watch requests and their answers.
//! They mirror etcd's v3 messages so the etcd backend is a thin adapter.

/// One key with its value and revisions, as etcd's `mvccpb.KeyValue`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyValue {
    /// The key.
    pub key: Vec<u8>,
    /// The value (empty for a deleted key in a delete event).
    pub value: Vec<u8>,
    /// Revision of the write that created the key (since its last deletion).
    pub create_revision: i64,
    /// Revision of the last write to the key; `resourceVersion` in Kubernetes.
    pub mod_revision: i64,
    /// Number of writes since creation (1 after create).
    pub version: i64,
}

/// A committed change, as delivered by a watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The key was created or updated.
    Put {
        /// The key after the write.
        kv: KeyValue,
        /// The key before the write; `None` on create or when `prev_kv` was not requested.
        prev: Option<KeyValue>,
    },
    /// The key was deleted.
    Delete {
        /// The deleted key.
        key: Vec<u8>,
        /// Revision of the deletion.
        revision: i64,
        /// The key before the deletion; `None` when `prev_kv` was not requested.
        prev: Option<KeyValue>,
    },
}

impl Event {
    /// The key this event is about.
    pub fn key(&self) -> &[u8] {
        match self {
            Event::Put { kv, .. } => &kv.key,
            Event::Delete { key, .. } => key,
        }
    }

    /// The revision at which the change was committed.
    pub fn revision(&self) -> i64 {
        match self {
            Event::Put { kv, .. } => kv.mod_revision,
            Event::Delete { revision, .. } => *revision,
        }
    }

    /// The previous value, if known.
    pub fn prev(&self) -> Option<&KeyValue> {
        match self {
            Event::Put { prev, .. } | Event::Delete { prev, .. } => prev.as_ref(),
        }
    }
}

/// A range read over all keys that start with `prefix`, in key order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RangeRequest {
    /// Keys starting with these bytes are returned; empty means every key.
    pub prefix: Vec<u8>,
    /// Only keys strictly greater than this one (the last key of the previous page).
    pub start_after: Option<Vec<u8>>,
    /// At most this many keys; 0 means no limit.
    pub limit: usize,
    /// Read at this revision; `None` reads the latest.
    pub revision: Option<i64>,
    /// Stop after `limit` keys instead of counting the rest of the range: `count` is then
    /// only the keys returned, plus one when more follow. Callers that page through a whole
    /// range without needing the total (migration, accounting) avoid a scan per page. A
    /// backend whose server counts anyway (etcd) may still return the full count.
    pub skip_count: bool,
}

impl RangeRequest {
    /// All keys under `prefix`, latest revision, no limit.
    pub fn prefix(prefix: impl Into<Vec<u8>>) -> Self {
        RangeRequest {
            prefix: prefix.into(),
            ..Self::default()
        }
    }

    /// Returns the request with at most `limit` keys per page.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Returns the request reading at `revision`.
    pub fn at_revision(mut self, revision: i64) -> Self {
        self.revision = Some(revision);
        self
    }

    /// Returns the request starting after `key` (continue from a previous page).
    pub fn after(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.start_after = Some(key.into());
        self
    }

    /// Returns the request without counting keys beyond the limit (see `skip_count`).
    pub fn without_count(mut self) -> Self {
        self.skip_count = true;
        self
    }
}

/// The answer to a [`RangeRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RangeResponse {
    /// The keys of this page, in key order.
    pub kvs: Vec<KeyValue>,
    /// True when more keys follow this page (continue with `start_after` = last key).
    pub more: bool,
    /// Number of keys in the requested range (from `start_after`, ignoring `limit`).
    pub count: i64,
    /// The revision the read was served at; pass it as `revision` for the next page.
    pub revision: i64,
}

/// The answer to a delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteResponse {
    /// The key as it was just before the deletion.
    pub prev: KeyValue,
    /// The revision of the deletion.
    pub revision: i64,
}

/// What to watch and from where.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WatchRequest {
    /// The key, or the key prefix when `prefix` is true (empty prefix: every key).
    pub key: Vec<u8>,
    /// Watch every key starting with `key`.
    pub prefix: bool,
    /// First revision to deliver (etcd semantics: events with revision >= this);
    /// `None` starts after the current revision. Kubernetes' "watch from resourceVersion N"
    /// is `Some(N + 1)`.
    pub start_revision: Option<i64>,
    /// Deliver the previous value with each event.
    pub prev_kv: bool,
    /// Send periodic [`WatchResponse::Progress`] messages when idle.
    pub progress_notify: bool,
}

impl WatchRequest {
    /// Watches every key under `prefix`.
    pub fn prefix(prefix: impl Into<Vec<u8>>) -> Self {
        WatchRequest {
            key: prefix.into(),
            prefix: true,
            ..Self::default()
        }
    }

    /// Watches exactly `key`.
    pub fn key(key: impl Into<Vec<u8>>) -> Self {
        WatchRequest {
            key: key.into(),
            ..Self::default()
        }
    }

    /// Returns the request starting at `revision` (inclusive).
    pub fn from_revision(mut self, revision: i64) -> Self {
        self.start_revision = Some(revision);
        self
    }

    /// Returns the request with previous values on events.
    pub fn with_prev_kv(mut self) -> Self {
        self.prev_kv = true;
        self
    }

    /// Returns the request with periodic progress notifications.
    pub fn with_progress_notify(mut self) -> Self {
        self.progress_notify = true;
        self
    }
}

/// One message of a watch stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchResponse {
    /// Committed changes, in revision order.
    Events(Vec<Event>),
    /// Every change up to and including `revision` has been delivered (a Kubernetes bookmark).
    Progress {
        /// The store revision the watcher has caught up with.
        revision: i64,
    },
}
