//! Reads of the embedded store: get, range and count, at the latest revision (from the live
//! `kv` table) or at an older one (from `history`), each in one consistent read snapshot.

use std::ops::Bound;

use redb::{Database, ReadOnlyTable, ReadTransaction, ReadableDatabase};

use super::tables::{
    self, COMPACT_REVISION, CURRENT_REVISION, HISTORY, KV, META, db_err, from_disk, to_disk,
};
use crate::error::{Result, StoreError};
use crate::keys::prefix_end;
use crate::types::{KeyValue, RangeRequest, RangeResponse};

/// The revision a read is served at.
struct ReadAt {
    revision: i64,
    latest: bool,
}

/// Checks a requested revision against the snapshot's current and compacted revisions.
fn resolve(txn: &ReadTransaction, requested: Option<i64>) -> Result<ReadAt> {
    let meta = txn.open_table(META).map_err(db_err)?;
    let current = from_disk(tables::read_meta(&meta, CURRENT_REVISION)?);
    let compacted = from_disk(tables::read_meta(&meta, COMPACT_REVISION)?);
    match requested {
        None => Ok(ReadAt {
            revision: current,
            latest: true,
        }),
        Some(r) if r <= 0 => Ok(ReadAt {
            revision: current,
            latest: true,
        }),
        Some(r) if r > current => Err(StoreError::FutureRevision {
            requested: r,
            current,
        }),
        Some(r) if r < compacted => Err(StoreError::Compacted {
            requested: r,
            compacted,
        }),
        Some(r) => Ok(ReadAt {
            revision: r,
            latest: r == current,
        }),
    }
}

/// The key at the latest revision or at `revision`.
pub fn get(db: &Database, key: &[u8], revision: Option<i64>) -> Result<Option<KeyValue>> {
    let txn = db.begin_read().map_err(db_err)?;
    let at = resolve(&txn, revision)?;
    if at.latest {
        let kv = txn.open_table(KV).map_err(db_err)?;
        return match kv.get(key).map_err(db_err)? {
            Some(record) => Ok(Some(tables::decode_live(key, record.value())?)),
            None => Ok(None),
        };
    }
    let history = txn.open_table(HISTORY).map_err(db_err)?;
    let found = history
        .range((key, 0u64)..=(key, to_disk(at.revision)))
        .map_err(db_err)?
        .next_back();
    match found {
        Some(item) => {
            let (k, record) = item.map_err(db_err)?;
            tables::decode_version(key, k.value().1, record.value())
        }
        None => Ok(None),
    }
}

/// Number of live keys under `prefix`.
pub fn count(db: &Database, prefix: &[u8]) -> Result<i64> {
    let txn = db.begin_read().map_err(db_err)?;
    let kv = txn.open_table(KV).map_err(db_err)?;
    let end = prefix_end(prefix);
    let upper = end.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
    let mut n = 0i64;
    for item in kv
        .range::<&[u8]>((Bound::Included(prefix), upper))
        .map_err(db_err)?
    {
        item.map_err(db_err)?;
        n += 1;
    }
    Ok(n)
}

/// One page of keys under a prefix.
pub fn range(db: &Database, request: &RangeRequest) -> Result<RangeResponse> {
    let txn = db.begin_read().map_err(db_err)?;
    let at = resolve(&txn, request.revision)?;
    let mut page = Page::new(request.limit, request.skip_count, at.revision);
    let end = prefix_end(&request.prefix);
    let start = match &request.start_after {
        Some(after) if after.as_slice() >= request.prefix.as_slice() => {
            Bound::Excluded(after.as_slice())
        }
        _ => Bound::Included(request.prefix.as_slice()),
    };
    if at.latest {
        range_live(
            &txn.open_table(KV).map_err(db_err)?,
            start,
            end.as_deref(),
            &mut page,
        )?;
    } else {
        range_history(
            &txn.open_table(HISTORY).map_err(db_err)?,
            start,
            end.as_deref(),
            at.revision,
            &mut page,
        )?;
    }
    Ok(page.finish())
}

/// Accumulates a page: keys up to the limit, and the count of every key in range (or, with
/// `skip_count`, just whether one more exists).
struct Page {
    limit: usize,
    skip_count: bool,
    response: RangeResponse,
}

impl Page {
    fn new(limit: usize, skip_count: bool, revision: i64) -> Self {
        Page {
            limit,
            skip_count,
            response: RangeResponse {
                revision,
                ..RangeResponse::default()
            },
        }
    }

    fn wants_more(&self) -> bool {
        self.limit == 0 || self.response.kvs.len() < self.limit
    }

    /// Counts one key in range and keeps it while the page has room; false once the walk
    /// can stop (the page is full and the rest need not be counted).
    fn push(&mut self, kv: impl FnOnce() -> Result<KeyValue>) -> Result<bool> {
        self.response.count += 1;
        if self.wants_more() {
            self.response.kvs.push(kv()?);
            return Ok(true);
        }
        self.response.more = true;
        Ok(!self.skip_count)
    }

    fn finish(self) -> RangeResponse {
        self.response
    }
}

fn range_live(
    kv: &ReadOnlyTable<&'static [u8], &'static [u8]>,
    start: Bound<&[u8]>,
    end: Option<&[u8]>,
    page: &mut Page,
) -> Result<()> {
    let upper = end.map_or(Bound::Unbounded, Bound::Excluded);
    for item in kv.range::<&[u8]>((start, upper)).map_err(db_err)? {
        let (key, record) = item.map_err(db_err)?;
        if !page.push(|| tables::decode_live(key.value(), record.value()))? {
            break;
        }
    }
    Ok(())
}

/// Walks every retained version in key order and keeps, per key, the newest at or below
/// `revision`; a tombstone there means the key did not exist at `revision`.
fn range_history(
    history: &ReadOnlyTable<(&'static [u8], u64), &'static [u8]>,
    start: Bound<&[u8]>,
    end: Option<&[u8]>,
    revision: i64,
    page: &mut Page,
) -> Result<()> {
    let lower = match start {
        Bound::Included(k) => Bound::Included((k, 0u64)),
        Bound::Excluded(k) => Bound::Excluded((k, u64::MAX)),
        Bound::Unbounded => Bound::Unbounded,
    };
    let upper = end.map_or(Bound::Unbounded, |e| Bound::Excluded((e, 0u64)));
    let mut current: Option<KeyVersions> = None;
    for item in history
        .range::<(&[u8], u64)>((lower, upper))
        .map_err(db_err)?
    {
        let (k, record) = item.map_err(db_err)?;
        let (key, rev) = k.value();
        if current.as_ref().is_none_or(|c| c.key.as_slice() != key) {
            if !flush(current.take(), page)? {
                return Ok(());
            }
            current = Some(KeyVersions {
                key: key.to_vec(),
                newest: None,
            });
        }
        if rev <= to_disk(revision)
            && let Some(versions) = current.as_mut()
        {
            versions.newest = Some((rev, record.value().to_vec()));
        }
    }
    flush(current, page).map(|_| ())
}

/// One key's newest version at or below the read revision, while walking the history.
struct KeyVersions {
    key: Vec<u8>,
    newest: Option<(u64, Vec<u8>)>,
}

/// Pushes one key's version read at the revision; false once the walk can stop.
fn flush(entry: Option<KeyVersions>, page: &mut Page) -> Result<bool> {
    let Some(KeyVersions {
        key,
        newest: Some((rev, record)),
    }) = entry
    else {
        return Ok(true);
    };
    if tables::is_tombstone(&record) {
        return Ok(true);
    }
    page.push(|| {
        tables::decode_version(&key, rev, &record)?.ok_or_else(|| {
            StoreError::Internal("embedded store: tombstone decoded as value".into())
        })
    })
}
