//! The on-disk layout of the embedded store (one redb file) and its record encodings.
//! `kv` holds the live keys, `history` every version by (key, revision), `log` the key of each
//! revision in order (for watch catch-up and compaction), `meta` the revision counters.

use redb::{ReadableTable, Table, TableDefinition};

use crate::error::StoreError;
use crate::types::KeyValue;

/// Live keys: key -> [`encode_live`] record.
pub const KV: TableDefinition<&[u8], &[u8]> = TableDefinition::new("kv");
/// Every retained version: (key, revision) -> [`encode_version`] record.
pub const HISTORY: TableDefinition<(&[u8], u64), &[u8]> = TableDefinition::new("history");
/// Revision -> key written at that revision.
pub const LOG: TableDefinition<u64, &[u8]> = TableDefinition::new("log");
/// Counters: [`CURRENT_REVISION`], [`COMPACT_REVISION`], [`PHYSICAL_COMPACT_REVISION`].
pub const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// Revision of the last committed write.
pub const CURRENT_REVISION: &str = "current_revision";
/// Reads and watches before this revision fail with `Compacted`.
pub const COMPACT_REVISION: &str = "compact_revision";
/// History before this revision has been physically removed.
pub const PHYSICAL_COMPACT_REVISION: &str = "physical_compact_revision";

const PUT: u8 = 0;
const TOMBSTONE: u8 = 1;

/// Maps any redb error to an internal store error.
pub fn db_err<E: Into<redb::Error>>(error: E) -> StoreError {
    let error: redb::Error = error.into();
    StoreError::Internal(format!("embedded store: {error}"))
}

/// A revision as stored (u64) from the API's i64; negative revisions do not exist.
pub fn to_disk(revision: i64) -> u64 {
    u64::try_from(revision).unwrap_or(0)
}

/// A stored revision (u64) as the API's i64.
pub fn from_disk(revision: u64) -> i64 {
    i64::try_from(revision).unwrap_or(i64::MAX)
}

/// The live record: create_revision, mod_revision, version (8 bytes LE each), then the value.
pub fn encode_live(kv: &KeyValue) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + kv.value.len());
    out.extend_from_slice(&kv.create_revision.to_le_bytes());
    out.extend_from_slice(&kv.mod_revision.to_le_bytes());
    out.extend_from_slice(&kv.version.to_le_bytes());
    out.extend_from_slice(&kv.value);
    out
}

/// Decodes a live record for `key`.
pub fn decode_live(key: &[u8], record: &[u8]) -> Result<KeyValue, StoreError> {
    let (create_revision, rest) = split_i64(record)?;
    let (mod_revision, rest) = split_i64(rest)?;
    let (version, value) = split_i64(rest)?;
    Ok(KeyValue {
        key: key.to_vec(),
        value: value.to_vec(),
        create_revision,
        mod_revision,
        version,
    })
}

/// A version record: kind (put/tombstone), create_revision, version, then the value.
pub fn encode_version(kv: &KeyValue, tombstone: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(17 + kv.value.len());
    out.push(if tombstone { TOMBSTONE } else { PUT });
    out.extend_from_slice(&kv.create_revision.to_le_bytes());
    out.extend_from_slice(&kv.version.to_le_bytes());
    out.extend_from_slice(&kv.value);
    out
}

/// Decodes a version record of `key` at `revision`; `None` for a tombstone.
pub fn decode_version(
    key: &[u8],
    revision: u64,
    record: &[u8],
) -> Result<Option<KeyValue>, StoreError> {
    let Some((&kind, rest)) = record.split_first() else {
        return Err(corrupt("empty version record"));
    };
    if kind == TOMBSTONE {
        return Ok(None);
    }
    let (create_revision, rest) = split_i64(rest)?;
    let (version, value) = split_i64(rest)?;
    Ok(Some(KeyValue {
        key: key.to_vec(),
        value: value.to_vec(),
        create_revision,
        mod_revision: from_disk(revision),
        version,
    }))
}

/// True when a version record is a tombstone.
pub fn is_tombstone(record: &[u8]) -> bool {
    record.first() == Some(&TOMBSTONE)
}

fn split_i64(bytes: &[u8]) -> Result<(i64, &[u8]), StoreError> {
    let (head, rest) = bytes
        .split_at_checked(8)
        .ok_or_else(|| corrupt("record too short"))?;
    let mut raw = [0u8; 8];
    raw.copy_from_slice(head);
    Ok((i64::from_le_bytes(raw), rest))
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Internal(format!("embedded store: corrupt record: {what}"))
}

/// Reads a counter from the meta table (0 when unset).
pub fn read_meta(
    table: &impl ReadableTable<&'static str, u64>,
    name: &str,
) -> Result<u64, StoreError> {
    Ok(table
        .get(name)
        .map_err(db_err)?
        .map(|v| v.value())
        .unwrap_or(0))
}

/// Creates every table so that read transactions never see a missing one.
pub fn create_tables(db: &redb::Database) -> Result<(), StoreError> {
    let txn = db.begin_write().map_err(db_err)?;
    txn.open_table(KV).map_err(db_err)?;
    txn.open_table(HISTORY).map_err(db_err)?;
    txn.open_table(LOG).map_err(db_err)?;
    txn.open_table(META).map_err(db_err)?;
    txn.commit().map_err(db_err)
}

/// The (current, compact) revisions as seen by a fresh read transaction.
#[cfg(test)]
pub fn read_revisions(db: &redb::Database) -> Result<(i64, i64), StoreError> {
    use redb::ReadableDatabase;
    let txn = db.begin_read().map_err(db_err)?;
    let meta = txn.open_table(META).map_err(db_err)?;
    Ok((
        from_disk(read_meta(&meta, CURRENT_REVISION)?),
        from_disk(read_meta(&meta, COMPACT_REVISION)?),
    ))
}

/// The open tables of one write transaction.
pub struct Tables<'t> {
    /// [`KV`]: the live value of each key.
    pub kv: Table<'t, &'static [u8], &'static [u8]>,
    /// [`HISTORY`]: every retained version of each key.
    pub history: Table<'t, (&'static [u8], u64), &'static [u8]>,
    /// [`LOG`]: the changes of each revision.
    pub log: Table<'t, u64, &'static [u8]>,
    /// [`META`]: the revision counters.
    pub meta: Table<'t, &'static str, u64>,
}

/// Opens the four tables in a write transaction.
pub(super) fn open_tables(txn: &redb::WriteTransaction) -> crate::error::Result<Tables<'_>> {
    Ok(Tables {
        kv: txn.open_table(KV).map_err(db_err)?,
        history: txn.open_table(HISTORY).map_err(db_err)?,
        log: txn.open_table(LOG).map_err(db_err)?,
        meta: txn.open_table(META).map_err(db_err)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> KeyValue {
        KeyValue {
            key: b"/a".to_vec(),
            value: b"v".to_vec(),
            create_revision: 3,
            mod_revision: 7,
            version: 2,
        }
    }

    #[test]
    fn live_record_round_trips() {
        let kv = sample();
        assert_eq!(decode_live(&kv.key, &encode_live(&kv)).unwrap(), kv);
    }

    #[test]
    fn version_record_round_trips_with_revision_from_key() {
        let kv = sample();
        assert_eq!(
            decode_version(&kv.key, 7, &encode_version(&kv, false)).unwrap(),
            Some(kv)
        );
    }

    #[test]
    fn tombstone_decodes_as_absent() {
        let record = encode_version(&sample(), true);
        assert!(is_tombstone(&record));
        assert_eq!(decode_version(b"/a", 8, &record).unwrap(), None);
    }

    #[test]
    fn short_record_is_an_error_not_a_panic() {
        assert!(decode_live(b"/a", &[1, 2, 3]).is_err());
    }
}
