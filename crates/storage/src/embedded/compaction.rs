//! Physical compaction of the history: removes versions that no read at or after the
//! compacted revision can see, a bounded chunk of the revision log at a time.

use redb::ReadableTable;

use super::tables::{Tables, db_err, from_disk, is_tombstone, to_disk};
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

#[cfg(test)]
mod tests {
    use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata};

    use super::compact_chunk;
    use crate::embedded::tables::open_tables;
    use crate::embedded::tables::{HISTORY, LOG};
    use crate::embedded::{DB_FILE, EmbeddedConfig, EmbeddedStore};
    use crate::store::Store;

    /// Writes 10 versions of /a and a created-then-deleted /b; returns the last revision.
    async fn write_history(dir: &std::path::Path) -> i64 {
        let mut config = EmbeddedConfig::new(dir);
        config.compaction_interval = None;
        let store = EmbeddedStore::open(config).unwrap();
        for i in 0..10 {
            store.put(b"/a", vec![i]).await.unwrap();
        }
        store.put(b"/b", vec![0]).await.unwrap();
        let last = store.delete(b"/b", None).await.unwrap().revision;
        store.close().await.unwrap();
        last
    }

    #[tokio::test]
    async fn compaction_keeps_only_the_newest_version_at_or_below_the_compacted_revision() {
        let dir = tempfile::tempdir().unwrap();
        let last = write_history(dir.path()).await;
        let db = Database::create(dir.path().join(DB_FILE)).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut tables = open_tables(&txn).unwrap();
            assert_eq!(
                compact_chunk(&mut tables, 0, last, 3).unwrap(),
                4,
                "a partial chunk"
            );
            assert_eq!(
                compact_chunk(&mut tables, 4, last, 100).unwrap(),
                last,
                "done"
            );
        }
        txn.commit().unwrap();
        let read = db.begin_read().unwrap();
        let history = read.open_table(HISTORY).unwrap();
        let versions: Vec<(Vec<u8>, u64)> = history
            .iter()
            .unwrap()
            .map(|item| {
                let (key, _) = item.unwrap();
                let (k, rev) = key.value();
                (k.to_vec(), rev)
            })
            .collect();
        // /a keeps only its newest version (revision 10). /b's tombstone is at the compacted
        // revision itself, so it and the put before it (its previous value, for a watch from
        // the compacted revision) stay until a later compaction.
        assert_eq!(
            versions,
            [
                (b"/a".to_vec(), 10),
                (b"/b".to_vec(), 11),
                (b"/b".to_vec(), 12)
            ]
        );
        assert_eq!(
            read.open_table(LOG).unwrap().len().unwrap(),
            1,
            "only the compacted revision's entry"
        );
    }
}
