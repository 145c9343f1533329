//! The embedded backend, kapi's default: one redb file and a write-ahead log in a data
//! directory, one writer thread with group commit (one log fsync per batch; redb made durable
//! at checkpoints), watches served from the revision log and an in-memory fan-out.

mod compaction;
mod fanout;
mod reader;
mod tables;
mod wal;
mod watch;
mod writer;

pub use wal::WAL_FILE;

use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use redb::{Database, DatabaseError};
use tokio::sync::{mpsc, oneshot};

use crate::compactor;
use crate::error::{Result, StoreError};
use crate::store::{Store, WatchStream};
use crate::types::{DeleteResponse, KeyValue, RangeRequest, RangeResponse, WatchRequest};
use writer::{WriteOp, WriteOutcome, WriteRequest, Writer};

/// Name of the database file inside the data directory.
pub const DB_FILE: &str = "kapi.redb";

/// Settings of an [`EmbeddedStore`].
#[derive(Debug, Clone)]
pub struct EmbeddedConfig {
    /// Data directory (created if missing); holds [`DB_FILE`].
    pub dir: PathBuf,
    /// How often history is compacted (kube-apiserver's `--etcd-compaction-interval`, default
    /// 5 minutes); `None` disables periodic compaction.
    pub compaction_interval: Option<Duration>,
    /// Interval of progress notifications for watches that ask for them.
    pub progress_notify_interval: Duration,
    /// redb page cache in bytes.
    pub cache_size: usize,
    /// Committed batches buffered for watchers before a slow one falls back to the disk log.
    pub watch_buffer: usize,
    /// Write requests queued before callers wait for the writer.
    pub write_queue: usize,
    /// Make each batch durable by appending it to the write-ahead log ([`WAL_FILE`], one
    /// small fsync) and commit redb without an fsync until a checkpoint; when false, every
    /// redb commit is durable itself (a dozen scattered pages per fsync).
    pub write_ahead_log: bool,
    /// Checkpoint (make redb durable and empty the log) once no write came for this long;
    /// `None`: only after many batches and when the store closes.
    pub checkpoint_idle: Option<Duration>,
}

impl EmbeddedConfig {
    /// Defaults for a data directory.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        EmbeddedConfig {
            dir: dir.into(),
            compaction_interval: Some(Duration::from_secs(300)),
            progress_notify_interval: Duration::from_secs(60),
            cache_size: 256 << 20,
            watch_buffer: 64,
            write_queue: 16384,
            write_ahead_log: true,
            checkpoint_idle: Some(Duration::from_millis(100)),
        }
    }
}

/// The embedded store. Open it with [`EmbeddedStore::open`]; share the returned `Arc`.
pub struct EmbeddedStore {
    db: Arc<Database>,
    writes: mpsc::Sender<WriteRequest>,
    events: Arc<fanout::Fanout>,
    progress: Arc<writer::WriterProgress>,
    config: EmbeddedConfig,
    writer_thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Drop for EmbeddedStore {
    /// Stops the writer and waits for it, so that the database file is closed cleanly (redb
    /// marks it so when its last handle drops, here) before the process can exit; a file left
    /// unmarked costs the next open a repair. The writer only finishes what is queued, so
    /// the wait is one commit at most.
    fn drop(&mut self) {
        let (closed, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.writes, closed));
        let thread = match self.writer_thread.get_mut() {
            Ok(thread) => thread.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(thread) = thread
            && thread.join().is_err()
        {
            tracing::warn!("the embedded store's writer thread panicked");
        }
    }
}

impl EmbeddedStore {
    /// Opens (or creates) the store in `config.dir`. Fails with [`StoreError::Locked`] when
    /// another process (or another open in this one) holds the directory. Must be called
    /// inside a tokio runtime when periodic compaction is on.
    pub fn open(config: EmbeddedConfig) -> Result<Arc<Self>> {
        if config.compaction_interval.is_some() && tokio::runtime::Handle::try_current().is_err() {
            return Err(StoreError::InvalidRequest(
                "periodic compaction needs a tokio runtime: open the store inside one".into(),
            ));
        }
        // The store holds Secrets: the directory and the file are private to the owner.
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&config.dir)
            .map_err(|e| {
                StoreError::Internal(format!("cannot create {}: {e}", config.dir.display()))
            })?;
        let path = config.dir.join(DB_FILE);
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| StoreError::Internal(format!("cannot create {}: {e}", path.display())))?;
        let repairing = path.display().to_string();
        let db = Database::builder()
            .set_cache_size(config.cache_size)
            .set_repair_callback(move |session| {
                tracing::warn!(path = %repairing, progress = session.progress(),
                    "the embedded store was not closed cleanly; repairing it");
            })
            .create(&path)
            .map_err(|e| match e {
                DatabaseError::DatabaseAlreadyOpen => StoreError::Locked {
                    path: path.display().to_string(),
                },
                other => StoreError::Internal(format!("cannot open {}: {other}", path.display())),
            })?;
        let db = Arc::new(db);
        tables::create_tables(&db)?;
        let (writes, requests) = mpsc::channel(config.write_queue);
        let events = Arc::new(fanout::Fanout::new(0, config.watch_buffer));
        let mut writer = Writer::new(db.clone(), requests, events.clone())?;
        // A log left by a run with the log on is replayed even when it is now off.
        if config.write_ahead_log || config.dir.join(WAL_FILE).exists() {
            let (wal, records) = wal::Wal::open(&config.dir)?;
            writer = writer.with_wal(wal, records, config.checkpoint_idle)?;
            if !config.write_ahead_log {
                writer = writer.without_wal();
            }
        }
        let progress = writer.progress();
        let thread = std::thread::Builder::new()
            .name("kapi-store-writer".into())
            .spawn(move || writer.run())
            .map_err(|e| StoreError::Internal(format!("cannot start writer thread: {e}")))?;
        let store = Arc::new(EmbeddedStore {
            db,
            writes,
            events,
            progress,
            config,
            writer_thread: Mutex::new(Some(thread)),
        });
        if let Some(interval) = store.config.compaction_interval {
            let weak: std::sync::Weak<dyn Store> =
                Arc::downgrade(&store) as std::sync::Weak<dyn Store>;
            compactor::spawn_compactor(weak, interval);
        }
        tracing::info!(dir = %store.config.dir.display(), "embedded store open");
        Ok(store)
    }

    /// Closes the store and waits until the writer has finished and the file is released.
    /// Fails with [`StoreError::InvalidRequest`] while other handles to the store exist.
    pub async fn close(self: Arc<Self>) -> Result<()> {
        let store = Arc::try_unwrap(self).map_err(|_| {
            StoreError::InvalidRequest("store is still shared; drop other handles first".into())
        })?;
        let thread = store.writer_thread.lock().ok().and_then(|mut t| t.take());
        drop(store);
        if let Some(thread) = thread {
            tokio::task::spawn_blocking(move || thread.join())
                .await
                .map_err(|e| StoreError::Internal(format!("close: {e}")))?
                .map_err(|_| StoreError::Internal("writer thread panicked".into()))?;
        }
        Ok(())
    }

    /// The revision below which superseded versions have been removed from disk: a
    /// compaction is logical at once (reads before it fail) and physical in chunks between
    /// writes; this says how far the physical part got.
    pub fn physically_compacted(&self) -> i64 {
        self.progress.physically_compacted()
    }

    async fn write(&self, op: WriteOp) -> Result<WriteOutcome> {
        let (reply, outcome) = oneshot::channel();
        self.writes
            .send(WriteRequest { op, reply })
            .await
            .map_err(|_| StoreError::Unavailable("embedded store writer has stopped".into()))?;
        outcome
            .await
            .map_err(|_| StoreError::Unavailable("embedded store writer has stopped".into()))?
    }

    async fn write_kv(&self, op: WriteOp) -> Result<KeyValue> {
        match self.write(op).await? {
            WriteOutcome::Kv(kv) => Ok(kv),
            other => Err(StoreError::Internal(format!(
                "unexpected write outcome {other:?}"
            ))),
        }
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Database) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || f(&db))
            .await
            .map_err(|e| StoreError::Internal(format!("read task failed: {e}")))?
    }
}

fn check_key(key: &[u8]) -> Result<()> {
    if key.is_empty() {
        return Err(StoreError::InvalidRequest("key is empty".into()));
    }
    Ok(())
}

#[async_trait]
impl Store for EmbeddedStore {
    async fn get(&self, key: &[u8], revision: Option<i64>) -> Result<Option<KeyValue>> {
        check_key(key)?;
        let key = key.to_vec();
        self.read(move |db| reader::get(db, &key, revision)).await
    }

    async fn range(&self, request: RangeRequest) -> Result<RangeResponse> {
        self.read(move |db| reader::range(db, &request)).await
    }

    async fn count(&self, prefix: &[u8]) -> Result<i64> {
        let prefix = prefix.to_vec();
        self.read(move |db| reader::count(db, &prefix)).await
    }

    async fn create(&self, key: &[u8], value: Vec<u8>) -> Result<KeyValue> {
        check_key(key)?;
        self.write_kv(WriteOp::Create {
            key: key.to_vec(),
            value,
        })
        .await
    }

    async fn update(
        &self,
        key: &[u8],
        value: Vec<u8>,
        expected_mod_revision: i64,
    ) -> Result<KeyValue> {
        check_key(key)?;
        self.write_kv(WriteOp::Update {
            key: key.to_vec(),
            value,
            expected: expected_mod_revision,
        })
        .await
    }

    async fn put(&self, key: &[u8], value: Vec<u8>) -> Result<KeyValue> {
        check_key(key)?;
        self.write_kv(WriteOp::Put {
            key: key.to_vec(),
            value,
        })
        .await
    }

    async fn delete(
        &self,
        key: &[u8],
        expected_mod_revision: Option<i64>,
    ) -> Result<DeleteResponse> {
        check_key(key)?;
        match self
            .write(WriteOp::Delete {
                key: key.to_vec(),
                expected: expected_mod_revision,
            })
            .await?
        {
            WriteOutcome::Deleted(deleted) => Ok(deleted),
            other => Err(StoreError::Internal(format!(
                "unexpected write outcome {other:?}"
            ))),
        }
    }

    async fn watch(&self, request: WatchRequest) -> Result<WatchStream> {
        let from = match request.start_revision {
            Some(r) if r > 0 => r,
            _ => self.current_revision().await? + 1,
        };
        let ctx = watch::WatchContext {
            db: Arc::downgrade(&self.db),
            events: Arc::downgrade(&self.events),
            progress_interval: self.config.progress_notify_interval,
        };
        Ok(watch::start(ctx, request, from))
    }

    async fn compact(&self, revision: i64) -> Result<()> {
        self.write(WriteOp::Compact { revision }).await.map(|_| ())
    }

    async fn current_revision(&self) -> Result<i64> {
        // The writer publishes each commit's revision before it answers the commit's callers.
        Ok(self.events.published())
    }
}
