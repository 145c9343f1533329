//! Physical compaction of the history: removes versions that no read at or after the
//! compacted revision can see, a bounded chunk of the revision log at a time.

use redb::ReadableTable;

use super::tables::{db_err, from_disk, is_tombstone, to_disk};
use super::writer::Tables;
use crate::error::Result;

/// Processes up to `limit` log entries in `[physical, compact)` and returns the new physical
/// compaction revision. For each entry at revision r of key k, every older version of k is
/// superseded at `compact` and removed; a tombstone at r is removed too (the key is absent
/// either way). The latest version of each key at or below `compact` stays, so reads at
/// `compact` and the previous value of later events remain available, as in etcd.
pub fn compact_chunk(t: &mut Tables<'_>, physical: i64, compact: i64, limit: usize) -> Result<i64> {
    let mut entries: Vec<(u64, Vec<u8>)> = Vec::with_capacity(limit.min(4096));
    for item in t
        .log
        .range(to_disk(physical)..to_disk(compact))
        .map_err(db_err)?
        .take(limit)
    {
        let (revision, key) = item.map_err(db_err)?;
        entries.push((revision.value(), key.value().to_vec()));
    }
    let done = entries.len() < limit;
    let mut last = physical;
    for (revision, key) in &entries {
        let key = key.as_slice();
        t.history
            .retain_in((key, 0u64)..(key, *revision), |_, _| false)
            .map_err(db_err)?;
        let tombstone = t
            .history
            .get((key, *revision))
            .map_err(db_err)?
            .is_some_and(|v| is_tombstone(v.value()));
        if tombstone {
            t.history.remove((key, *revision)).map_err(db_err)?;
        }
        t.log.remove(*revision).map_err(db_err)?;
        last = from_disk(*revision);
    }
    Ok(if done { compact } else { last + 1 })
}
