//! The single writer: one OS thread that drains every queued write request into one redb
//! transaction, makes it durable (group commit: one fsync for the whole batch — of the
//! write-ahead log's append, or of redb's own commit when the log is off), answers the callers
//! and publishes the committed events to the watch fan-out. With the log, redb commits
//! without an fsync and is made durable at checkpoints: when no write came for
//! [`EmbeddedConfig::checkpoint_idle`](super::EmbeddedConfig), after [`CHECKPOINT_BATCHES`]
//! batches or [`CHECKPOINT_BYTES`] of log, and when the store closes.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use redb::{Database, Durability, ReadableDatabase, ReadableTable, WriteTransaction};
use tokio::sync::{mpsc, oneshot};

use super::compaction::compact_chunk;
use super::fanout::Fanout;
use super::tables::{
    self, COMPACT_REVISION, CURRENT_REVISION, META, PHYSICAL_COMPACT_REVISION, Tables, db_err,
    open_tables, to_disk,
};
use super::wal::{Wal, WalRecord};
use crate::error::{Result, StoreError};
use crate::types::{DeleteResponse, Event, KeyValue};

/// Most requests committed in one transaction.
const MAX_BATCH: usize = 1024;
/// Longest wait for the writers of the previous batch to send their next request.
const LINGER: std::time::Duration = std::time::Duration::from_micros(200);
/// Log entries compacted inside a busy write batch.
const BUSY_COMPACTION_CHUNK: usize = 256;
/// Log entries compacted per transaction while no writes are waiting.
const IDLE_COMPACTION_CHUNK: usize = 4096;
/// Batches committed without an fsync before a checkpoint is forced.
pub const CHECKPOINT_BATCHES: usize = 4096;
/// Bytes of write-ahead log before a checkpoint is forced.
pub const CHECKPOINT_BYTES: u64 = 16 << 20;

/// One write the caller wants committed.
#[derive(Debug, PartialEq)]
pub enum WriteOp {
    /// Create if absent.
    Create { key: Vec<u8>, value: Vec<u8> },
    /// Replace if mod_revision matches.
    Update {
        key: Vec<u8>,
        value: Vec<u8>,
        expected: i64,
    },
    /// Create or replace.
    Put { key: Vec<u8>, value: Vec<u8> },
    /// Delete, optionally only at a mod_revision.
    Delete { key: Vec<u8>, expected: Option<i64> },
    /// Move the compacted revision forward.
    Compact { revision: i64 },
}

/// What a committed write produced.
#[derive(Debug)]
pub enum WriteOutcome {
    /// The key after a create, update or put.
    Kv(KeyValue),
    /// A deletion.
    Deleted(DeleteResponse),
    /// A compaction was recorded.
    Compacted,
}

/// A queued write and where to send its outcome.
#[derive(Debug)]
pub struct WriteRequest {
    /// The write.
    pub op: WriteOp,
    /// Receives the outcome once the batch is durable.
    pub reply: oneshot::Sender<Result<WriteOutcome>>,
}

/// The events of one durable commit, in revision order (previous values always included).
#[derive(Debug)]
pub struct CommittedBatch {
    /// The store revision after the commit.
    pub revision: i64,
    /// What changed.
    pub events: Vec<Event>,
}

/// What the writer has done that readers of the store may ask about: how far the history
/// has been physically compacted.
#[derive(Debug, Default)]
pub struct WriterProgress {
    physical: AtomicI64,
}

impl WriterProgress {
    /// The revision below which superseded versions have been removed from disk.
    pub fn physically_compacted(&self) -> i64 {
        self.physical.load(Ordering::Acquire)
    }
}

/// Revision counters owned by the writer.
#[derive(Debug, Clone, Copy)]
struct Counters {
    current: i64,
    compact: i64,
    physical: i64,
}

/// The writer thread's state.
pub struct Writer {
    db: Arc<Database>,
    requests: mpsc::Receiver<WriteRequest>,
    events: Arc<Fanout>,
    counters: Counters,
    /// The write-ahead log; `None`: every redb commit is durable itself.
    wal: Option<Wal>,
    /// Batches redb committed without an fsync since the last checkpoint.
    unsynced: usize,
    /// How long without writes before a checkpoint (`None`: only when forced).
    checkpoint_idle: Option<Duration>,
    progress: Arc<WriterProgress>,
}

type Replies = Vec<Result<WriteOutcome>>;

impl Writer {
    /// Loads the counters from disk and prepares the writer.
    pub fn new(
        db: Arc<Database>,
        requests: mpsc::Receiver<WriteRequest>,
        events: Arc<Fanout>,
    ) -> Result<Self> {
        let txn = db.begin_read().map_err(db_err)?;
        let meta = txn.open_table(META).map_err(db_err)?;
        let counters = Counters {
            current: tables::from_disk(tables::read_meta(&meta, CURRENT_REVISION)?),
            compact: tables::from_disk(tables::read_meta(&meta, COMPACT_REVISION)?),
            physical: tables::from_disk(tables::read_meta(&meta, PHYSICAL_COMPACT_REVISION)?),
        };
        drop(meta);
        drop(txn);
        events.advance(counters.current);
        Ok(Writer {
            db,
            requests,
            events,
            counters,
            wal: None,
            unsynced: 0,
            checkpoint_idle: None,
            progress: Arc::new(WriterProgress {
                physical: AtomicI64::new(counters.physical),
            }),
        })
    }

    /// Logs every batch in `wal` before answering it, checkpointing after `checkpoint_idle`
    /// without writes; first replays `records` (the batches after redb's last durable
    /// commit) and checkpoints them.
    pub fn with_wal(
        mut self,
        wal: Wal,
        records: Vec<WalRecord>,
        checkpoint_idle: Option<Duration>,
    ) -> Result<Self> {
        self.wal = Some(wal);
        self.checkpoint_idle = checkpoint_idle;
        let replayed = self.replay(records)?;
        self.events.advance(self.counters.current);
        if replayed > 0 {
            tracing::info!(
                batches = replayed,
                revision = self.counters.current,
                "embedded store: replayed the write-ahead log"
            );
        }
        self.checkpoint()?;
        // Records redb already held (a checkpoint the log's truncation did not follow).
        if let Some(wal) = self.wal.as_mut()
            && wal.bytes() > 0
        {
            wal.truncate()?;
        }
        Ok(self)
    }

    /// What the writer reports of its work, shared with the store.
    pub fn progress(&self) -> Arc<WriterProgress> {
        self.progress.clone()
    }

    /// Stops logging (after a replay): every redb commit is durable itself from now on.
    pub fn without_wal(mut self) -> Self {
        self.wal = None;
        self
    }

    /// Re-applies the logged batches that start at redb's revision, in order, through the
    /// same code that applied them first; earlier ones are already in redb.
    fn replay(&mut self, records: Vec<WalRecord>) -> Result<usize> {
        let mut replayed = 0;
        for record in records {
            if record.start_revision < self.counters.current {
                continue;
            }
            if record.start_revision > self.counters.current {
                return Err(StoreError::Internal(format!(
                    "the write-ahead log continues at revision {} but the store is at {}: \
                     batches in between are missing",
                    record.start_revision, self.counters.current
                )));
            }
            let txn = self.begin(Durability::None)?;
            // The answers were given before the crash; only the state matters.
            self.apply_ops(&txn, record.ops.iter(), &mut Vec::new())?;
            txn.commit().map_err(db_err)?;
            self.unsynced += 1;
            replayed += 1;
        }
        Ok(replayed)
    }

    /// Makes everything redb committed durable, then empties the log.
    fn checkpoint(&mut self) -> Result<()> {
        if self.unsynced == 0 {
            return Ok(());
        }
        self.begin(Durability::Immediate)?
            .commit()
            .map_err(db_err)?;
        if let Some(wal) = self.wal.as_mut() {
            wal.truncate()?;
        }
        self.unsynced = 0;
        Ok(())
    }

    /// Checkpoints, logging a failure (the log keeps every batch; the next one retries).
    fn try_checkpoint(&mut self) {
        if let Err(error) = self.checkpoint() {
            tracing::error!(%error, "embedded store checkpoint failed; retrying later");
        }
    }

    /// Whether enough went into the log since the last checkpoint to force one.
    fn checkpoint_due(&self) -> bool {
        self.unsynced >= CHECKPOINT_BATCHES
            || self
                .wal
                .as_ref()
                .is_some_and(|w| w.bytes() >= CHECKPOINT_BYTES)
    }

    /// Runs until every request sender is dropped, then checkpoints.
    pub fn run(mut self) {
        // Waits for a request with a deadline (the idle checkpoint) on this thread.
        let timer = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build();
        // Writers answered by one commit come back at about the same time; waiting briefly
        // for as many requests as the last batch had keeps batches (and fsyncs) full.
        let mut expected = 1usize;
        loop {
            let idle = self.checkpoint_idle.filter(|_| self.unsynced > 0);
            let first = if self.counters.physical < self.counters.compact {
                match self.requests.try_recv() {
                    Ok(request) => request,
                    Err(mpsc::error::TryRecvError::Empty) => {
                        self.compact_idle();
                        self.report_progress();
                        continue;
                    }
                    Err(mpsc::error::TryRecvError::Disconnected) => break,
                }
            } else if let (Some(idle), Ok(timer)) = (idle, timer.as_ref()) {
                let requests = &mut self.requests;
                // The timeout's timer must be made inside the runtime.
                match timer.block_on(async { tokio::time::timeout(idle, requests.recv()).await }) {
                    Ok(Some(request)) => request,
                    Ok(None) => break,
                    Err(_) => {
                        self.try_checkpoint();
                        continue;
                    }
                }
            } else {
                match self.requests.blocking_recv() {
                    Some(request) => request,
                    None => break,
                }
            };
            let batch = self.collect_batch(first, expected);
            expected = batch.len();
            self.commit_batch(batch);
            self.report_progress();
            if self.checkpoint_due() {
                self.try_checkpoint();
            }
        }
        self.try_checkpoint();
        self.events.close();
        tracing::debug!("embedded store writer stopped");
    }

    fn report_progress(&self) {
        self.progress
            .physical
            .store(self.counters.physical, Ordering::Release);
    }

    /// Drains queued requests after `first`, lingering up to [`LINGER`] while fewer than
    /// `expected` have arrived.
    fn collect_batch(&mut self, first: WriteRequest, expected: usize) -> Vec<WriteRequest> {
        let mut batch = vec![first];
        let deadline = std::time::Instant::now() + LINGER;
        while batch.len() < MAX_BATCH {
            match self.requests.try_recv() {
                Ok(request) => batch.push(request),
                Err(mpsc::error::TryRecvError::Empty)
                    if batch.len() < expected && std::time::Instant::now() < deadline =>
                {
                    std::thread::yield_now();
                }
                Err(_) => break,
            }
        }
        batch
    }

    fn commit_batch(&mut self, batch: Vec<WriteRequest>) {
        let before = self.counters;
        match self.apply_batch(&batch) {
            Ok((replies, events)) => {
                // Published first: a caller answered with a revision finds it published
                // (the store's current revision) and its watchers already woken.
                self.events.publish(CommittedBatch {
                    revision: self.counters.current,
                    events,
                });
                for (request, reply) in batch.into_iter().zip(replies) {
                    // The caller may have given up waiting; the write is committed regardless.
                    let _ = request.reply.send(reply);
                }
            }
            Err(error) => {
                tracing::error!(%error, "embedded store commit failed");
                self.counters = before;
                for request in batch {
                    let _ = request.reply.send(Err(error.clone()));
                }
            }
        }
    }

    /// A write transaction committed with `durability`.
    fn begin(&self, durability: Durability) -> Result<WriteTransaction> {
        let mut txn = self.db.begin_write().map_err(db_err)?;
        txn.set_durability(durability)
            .map_err(|e| StoreError::Internal(e.to_string()))?;
        Ok(txn)
    }

    /// How batches and compaction chunks commit: without an fsync when the log (or, for
    /// compaction, a rerun) makes up for a crash; durably when there is no log.
    fn commit_durability(&self) -> Durability {
        if self.wal.is_some() {
            Durability::None
        } else {
            Durability::Immediate
        }
    }

    /// Applies `ops` in `txn` (and a compaction chunk when one is due) and records the
    /// counters; each op's answer in order, its events appended to `events`.
    fn apply_ops<'a>(
        &mut self,
        txn: &WriteTransaction,
        ops: impl Iterator<Item = &'a WriteOp>,
        events: &mut Vec<Event>,
    ) -> Result<Replies> {
        let mut t = open_tables(txn)?;
        let replies = ops
            .map(|op| self.apply_one(&mut t, op, events))
            .collect::<Result<Replies>>()?;
        if self.counters.physical < self.counters.compact {
            self.counters.physical = compact_chunk(
                &mut t,
                self.counters.physical,
                self.counters.compact,
                BUSY_COMPACTION_CHUNK,
            )?;
        }
        self.store_counters(&mut t)?;
        Ok(replies)
    }

    fn apply_batch(&mut self, batch: &[WriteRequest]) -> Result<(Replies, Vec<Event>)> {
        let start_revision = self.counters.current;
        let txn = self.begin(self.commit_durability())?;
        let mut events = Vec::with_capacity(batch.len());
        let replies = self.apply_ops(&txn, batch.iter().map(|r| &r.op), &mut events)?;
        if let Some(wal) = self.wal.as_mut() {
            // Durable before anyone is answered or can read it.
            let ops: Vec<&WriteOp> = batch.iter().map(|r| &r.op).collect();
            wal.append(start_revision, &ops)?;
            if let Err(e) = txn.commit() {
                // Not applied: the log must not apply it on the next start either.
                wal.remove_last()?;
                return Err(db_err(e));
            }
            self.unsynced += 1;
        } else {
            txn.commit().map_err(db_err)?;
        }
        Ok((replies, events))
    }

    fn compact_idle(&mut self) {
        let before = self.counters;
        let logged = self.wal.is_some();
        let result = (|| {
            // Lost in a crash, a compaction chunk only runs again.
            let txn = self.begin(self.commit_durability())?;
            {
                let mut t = open_tables(&txn)?;
                self.counters.physical = compact_chunk(
                    &mut t,
                    self.counters.physical,
                    self.counters.compact,
                    IDLE_COMPACTION_CHUNK,
                )?;
                self.store_counters(&mut t)?;
            }
            txn.commit().map_err(db_err)
        })();
        if result.is_ok() && logged {
            self.unsynced += 1;
        }
        if let Err(error) = result {
            tracing::error!(%error, "embedded store compaction failed; retrying on the next request");
            self.counters = before;
            // Stop compacting until the next write so a persistent failure does not spin.
            self.counters.physical = self.counters.compact;
        }
    }

    fn store_counters(&self, t: &mut Tables<'_>) -> Result<()> {
        let c = self.counters;
        t.meta
            .insert(CURRENT_REVISION, to_disk(c.current))
            .map_err(db_err)?;
        t.meta
            .insert(COMPACT_REVISION, to_disk(c.compact))
            .map_err(db_err)?;
        t.meta
            .insert(PHYSICAL_COMPACT_REVISION, to_disk(c.physical))
            .map_err(db_err)?;
        Ok(())
    }

    /// Applies one request; the outer error aborts the batch, the inner one answers the caller.
    fn apply_one(
        &mut self,
        t: &mut Tables<'_>,
        op: &WriteOp,
        events: &mut Vec<Event>,
    ) -> Result<Result<WriteOutcome>> {
        match op {
            WriteOp::Create { key, value } => Ok(match live(t, key)? {
                Some(current) => Err(StoreError::AlreadyExists {
                    current: Box::new(current),
                }),
                None => Ok(WriteOutcome::Kv(
                    self.write_put(t, key, value, None, events)?,
                )),
            }),
            WriteOp::Update {
                key,
                value,
                expected,
            } => Ok(match live(t, key)? {
                None => Err(StoreError::NotFound { key: key.clone() }),
                Some(current) if current.mod_revision != *expected => Err(StoreError::Conflict {
                    expected: *expected,
                    current: Box::new(current),
                }),
                Some(current) => Ok(WriteOutcome::Kv(self.write_put(
                    t,
                    key,
                    value,
                    Some(current),
                    events,
                )?)),
            }),
            WriteOp::Put { key, value } => {
                let current = live(t, key)?;
                Ok(Ok(WriteOutcome::Kv(
                    self.write_put(t, key, value, current, events)?,
                )))
            }
            WriteOp::Delete { key, expected } => Ok(match live(t, key)? {
                None => Err(StoreError::NotFound { key: key.clone() }),
                Some(current) if expected.is_some_and(|e| e != current.mod_revision) => {
                    Err(StoreError::Conflict {
                        expected: expected.unwrap_or_default(),
                        current: Box::new(current),
                    })
                }
                Some(current) => Ok(WriteOutcome::Deleted(
                    self.write_delete(t, current, events)?,
                )),
            }),
            WriteOp::Compact { revision } => Ok(self.record_compaction(*revision)),
        }
    }

    fn record_compaction(&mut self, revision: i64) -> Result<WriteOutcome> {
        let c = &mut self.counters;
        if revision <= c.compact {
            return Err(StoreError::Compacted {
                requested: revision,
                compacted: c.compact,
            });
        }
        if revision > c.current {
            return Err(StoreError::FutureRevision {
                requested: revision,
                current: c.current,
            });
        }
        c.compact = revision;
        Ok(WriteOutcome::Compacted)
    }

    fn write_put(
        &mut self,
        t: &mut Tables<'_>,
        key: &[u8],
        value: &[u8],
        prev: Option<KeyValue>,
        events: &mut Vec<Event>,
    ) -> Result<KeyValue> {
        let revision = self.counters.current + 1;
        let kv = KeyValue {
            key: key.to_vec(),
            value: value.to_vec(),
            create_revision: prev.as_ref().map_or(revision, |p| p.create_revision),
            mod_revision: revision,
            version: prev.as_ref().map_or(1, |p| p.version + 1),
        };
        t.kv.insert(key, tables::encode_live(&kv).as_slice())
            .map_err(db_err)?;
        t.history
            .insert(
                (key, to_disk(revision)),
                tables::encode_version(&kv, false).as_slice(),
            )
            .map_err(db_err)?;
        t.log.insert(to_disk(revision), key).map_err(db_err)?;
        self.counters.current = revision;
        events.push(Event::Put {
            kv: kv.clone(),
            prev,
        });
        Ok(kv)
    }

    fn write_delete(
        &mut self,
        t: &mut Tables<'_>,
        prev: KeyValue,
        events: &mut Vec<Event>,
    ) -> Result<DeleteResponse> {
        let revision = self.counters.current + 1;
        let key = prev.key.as_slice();
        let tombstone = KeyValue {
            key: key.to_vec(),
            ..KeyValue::default()
        };
        t.kv.remove(key).map_err(db_err)?;
        t.history
            .insert(
                (key, to_disk(revision)),
                tables::encode_version(&tombstone, true).as_slice(),
            )
            .map_err(db_err)?;
        t.log.insert(to_disk(revision), key).map_err(db_err)?;
        self.counters.current = revision;
        events.push(Event::Delete {
            key: key.to_vec(),
            revision,
            prev: Some(prev.clone()),
        });
        Ok(DeleteResponse { prev, revision })
    }
}

fn live(t: &Tables<'_>, key: &[u8]) -> Result<Option<KeyValue>> {
    match t.kv.get(key).map_err(db_err)? {
        Some(record) => Ok(Some(tables::decode_live(key, record.value())?)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedded::reader;
    use crate::embedded::wal::Wal;

    fn open(dir: &std::path::Path) -> (Arc<Database>, Writer) {
        let db = Arc::new(Database::create(dir.join("kapi.redb")).unwrap());
        tables::create_tables(&db).unwrap();
        let (_tx, rx) = mpsc::channel(1);
        let writer = Writer::new(db.clone(), rx, Arc::new(Fanout::new(0, 1))).unwrap();
        (db, writer)
    }

    fn create(key: &str, value: &str) -> WriteOp {
        WriteOp::Create {
            key: key.as_bytes().to_vec(),
            value: value.as_bytes().to_vec(),
        }
    }

    /// Replay applies the logged batches that start where redb is, in order, skips those
    /// redb already holds, and leaves the log empty after its checkpoint.
    #[test]
    fn replay_applies_the_batches_after_redbs_revision_and_skips_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let (db, writer) = open(dir.path());
        let (wal, _) = Wal::open(dir.path()).unwrap();
        let records = vec![
            WalRecord {
                start_revision: 0,
                ops: vec![create("/a", "1"), create("/b", "1"), create("/a", "dup")],
            },
            // Already applied (as after a checkpoint whose truncation did not happen).
            WalRecord {
                start_revision: 1,
                ops: vec![create("/stale", "1")],
            },
            WalRecord {
                start_revision: 2,
                ops: vec![
                    WriteOp::Update {
                        key: b"/a".to_vec(),
                        value: b"2".to_vec(),
                        expected: 1,
                    },
                    WriteOp::Delete {
                        key: b"/b".to_vec(),
                        expected: None,
                    },
                ],
            },
        ];
        let writer = writer.with_wal(wal, records, None).unwrap();
        assert_eq!(writer.counters.current, 4);
        assert_eq!(writer.wal.as_ref().unwrap().bytes(), 0);
        let a = reader::get(&db, b"/a", None).unwrap().unwrap();
        assert_eq!(
            (a.value.as_slice(), a.mod_revision, a.version),
            (&b"2"[..], 3, 2)
        );
        assert!(reader::get(&db, b"/b", None).unwrap().is_none());
        assert!(reader::get(&db, b"/stale", None).unwrap().is_none());
        assert_eq!(tables::read_revisions(&db).unwrap().0, 4);
    }

    /// A log that continues past redb's revision with batches missing in between is an error,
    /// not a silent loss.
    #[test]
    fn a_gap_between_redb_and_the_log_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (_db, writer) = open(dir.path());
        let (wal, _) = Wal::open(dir.path()).unwrap();
        let records = vec![WalRecord {
            start_revision: 5,
            ops: vec![create("/a", "1")],
        }];
        let err = writer.with_wal(wal, records, None).err().unwrap();
        assert!(
            err.to_string().contains("batches in between are missing"),
            "{err}"
        );
    }
}
