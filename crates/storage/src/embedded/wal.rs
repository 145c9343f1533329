//! The write-ahead log of the embedded store: each write batch's requests are appended to
//! `kapi.wal` and made durable with one `fdatasync` before the batch is answered, while the
//! redb file itself is committed without an fsync and made durable only at checkpoints. A
//! redb commit dirties a dozen scattered pages (B-tree paths of four tables and the
//! allocator's state) and its fsync costs ~0.7 ms on this machine kind; an append of a few
//! hundred bytes costs one fsync of one page, ~0.14 ms (docs/benchmarks.md).
//!
//! A record is `len: u32 LE | crc32: u32 LE | payload`; the payload is the store revision
//! before the batch and the batch's requests. Recovery replays, in order, the records that
//! start at the revision redb is at (the ones after its last durable commit), through the
//! same code that applied them, which is deterministic; records before it are skipped (a
//! checkpoint that was not yet followed by the log's truncation). A torn last record (a
//! crash during its append, before its batch was answered) ends the replay.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::writer::WriteOp;
use crate::error::{Result, StoreError};

/// Name of the log file inside the data directory.
pub const WAL_FILE: &str = "kapi.wal";

/// Largest record accepted on replay (a batch of 1 024 requests of 3 MiB objects fits).
const MAX_RECORD: usize = 4 << 30;

const CREATE: u8 = 0;
const UPDATE: u8 = 1;
const PUT: u8 = 2;
const DELETE: u8 = 3;
const DELETE_AT: u8 = 4;
const COMPACT: u8 = 5;

/// One logged batch: the revision the store was at before it, and its requests in order.
#[derive(Debug, PartialEq)]
pub struct WalRecord {
    /// The store revision before the batch.
    pub start_revision: i64,
    /// The batch's requests.
    pub ops: Vec<WriteOp>,
}

/// The open log, appended to by the writer thread.
pub struct Wal {
    file: File,
    path: PathBuf,
    /// Bytes appended since the last truncation.
    len: u64,
    /// The length before the last append.
    before_last: u64,
    buf: Vec<u8>,
}

fn io_err(path: &Path, what: &str, e: std::io::Error) -> StoreError {
    StoreError::Internal(format!("write-ahead log {}: {what}: {e}", path.display()))
}

impl Wal {
    /// Opens (or creates, 0600) the log in `dir` and reads the records it holds.
    pub fn open(dir: &Path) -> Result<(Self, Vec<WalRecord>)> {
        let path = dir.join(WAL_FILE);
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| io_err(&path, "open", e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| io_err(&path, "read", e))?;
        let (records, valid) = decode_records(&bytes);
        if valid < bytes.len() {
            tracing::warn!(path = %path.display(), torn_bytes = bytes.len() - valid,
                "the write-ahead log ends with an incomplete record (a crash during an unanswered write); dropping it");
            file.set_len(valid as u64)
                .map_err(|e| io_err(&path, "truncate", e))?;
        }
        let len = valid as u64;
        Ok((
            Wal {
                file,
                path,
                len,
                before_last: len,
                buf: Vec::new(),
            },
            records,
        ))
    }

    /// Appends one batch and makes it durable (one `fdatasync`).
    pub fn append(&mut self, start_revision: i64, ops: &[&WriteOp]) -> Result<()> {
        self.buf.clear();
        self.buf.extend_from_slice(&[0; 8]);
        encode_payload(start_revision, ops, &mut self.buf);
        let payload_len = self.buf.len() - 8;
        let len = u32::try_from(payload_len).map_err(|_| {
            StoreError::InvalidRequest(format!("a write batch of {payload_len} bytes is too large"))
        })?;
        let crc = crc32(&self.buf[8..]);
        self.buf[..4].copy_from_slice(&len.to_le_bytes());
        self.buf[4..8].copy_from_slice(&crc.to_le_bytes());
        self.before_last = self.len;
        let written = self
            .file
            .write_all(&self.buf)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            // A partial record would end the replay early; take it off before anything else.
            let _ = self.file.set_len(self.before_last);
            return Err(io_err(&self.path, "append", e));
        }
        self.len += self.buf.len() as u64;
        Ok(())
    }

    /// Takes the last appended record off again (its batch was not applied).
    pub fn remove_last(&mut self) -> Result<()> {
        self.file
            .set_len(self.before_last)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io_err(&self.path, "truncate", e))?;
        self.len = self.before_last;
        Ok(())
    }

    /// Bytes logged since the last checkpoint.
    pub fn bytes(&self) -> u64 {
        self.len
    }

    /// Empties the log once redb has made everything in it durable (a checkpoint).
    pub fn truncate(&mut self) -> Result<()> {
        self.file
            .set_len(0)
            .map_err(|e| io_err(&self.path, "truncate", e))?;
        self.file
            .sync_all()
            .map_err(|e| io_err(&self.path, "sync", e))?;
        self.len = 0;
        self.before_last = 0;
        Ok(())
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    // Keys and values are bounded far below 4 GiB by the API (3 MiB request bodies).
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn encode_payload(start_revision: i64, ops: &[&WriteOp], out: &mut Vec<u8>) {
    out.extend_from_slice(&start_revision.to_le_bytes());
    out.extend_from_slice(&(ops.len() as u32).to_le_bytes());
    for op in ops {
        match op {
            WriteOp::Create { key, value } => {
                out.push(CREATE);
                put_bytes(out, key);
                put_bytes(out, value);
            }
            WriteOp::Update {
                key,
                value,
                expected,
            } => {
                out.push(UPDATE);
                put_bytes(out, key);
                put_bytes(out, value);
                out.extend_from_slice(&expected.to_le_bytes());
            }
            WriteOp::Put { key, value } => {
                out.push(PUT);
                put_bytes(out, key);
                put_bytes(out, value);
            }
            WriteOp::Delete {
                key,
                expected: None,
            } => {
                out.push(DELETE);
                put_bytes(out, key);
            }
            WriteOp::Delete {
                key,
                expected: Some(expected),
            } => {
                out.push(DELETE_AT);
                put_bytes(out, key);
                out.extend_from_slice(&expected.to_le_bytes());
            }
            WriteOp::Compact { revision } => {
                out.push(COMPACT);
                out.extend_from_slice(&revision.to_le_bytes());
            }
        }
    }
}

/// A cursor over a record's payload.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<Vec<u8>> {
        let n = self.u32()? as usize;
        self.take(n).map(<[u8]>::to_vec)
    }
}

fn decode_payload(payload: &[u8]) -> Option<WalRecord> {
    let mut r = Reader(payload);
    let start_revision = r.i64()?;
    let count = r.u32()? as usize;
    let mut ops = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        let op = match r.u8()? {
            CREATE => WriteOp::Create {
                key: r.bytes()?,
                value: r.bytes()?,
            },
            UPDATE => WriteOp::Update {
                key: r.bytes()?,
                value: r.bytes()?,
                expected: r.i64()?,
            },
            PUT => WriteOp::Put {
                key: r.bytes()?,
                value: r.bytes()?,
            },
            DELETE => WriteOp::Delete {
                key: r.bytes()?,
                expected: None,
            },
            DELETE_AT => WriteOp::Delete {
                key: r.bytes()?,
                expected: Some(r.i64()?),
            },
            COMPACT => WriteOp::Compact { revision: r.i64()? },
            _ => return None,
        };
        ops.push(op);
    }
    r.0.is_empty().then_some(WalRecord {
        start_revision,
        ops,
    })
}

/// The complete records at the start of `bytes`, and how many bytes they span (the rest is
/// a torn or corrupt tail).
fn decode_records(bytes: &[u8]) -> (Vec<WalRecord>, usize) {
    let mut records = Vec::new();
    let mut at = 0;
    while let Some(head) = bytes.get(at..at + 8) {
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
        if len > MAX_RECORD {
            break;
        }
        let Some(payload) = bytes.get(at + 8..at + 8 + len) else {
            break;
        };
        if crc32(payload) != crc {
            break;
        }
        let Some(record) = decode_payload(payload) else {
            break;
        };
        records.push(record);
        at += 8 + len;
    }
    (records, at)
}

/// CRC-32 (IEEE 802.3, reflected), table-driven.
fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    let mut crc = !0u32;
    for &b in data {
        crc = TABLE[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops() -> Vec<WriteOp> {
        vec![
            WriteOp::Create {
                key: b"/a".to_vec(),
                value: b"1".to_vec(),
            },
            WriteOp::Update {
                key: b"/a".to_vec(),
                value: b"2".to_vec(),
                expected: 7,
            },
            WriteOp::Put {
                key: b"/b".to_vec(),
                value: Vec::new(),
            },
            WriteOp::Delete {
                key: b"/b".to_vec(),
                expected: None,
            },
            WriteOp::Delete {
                key: b"/a".to_vec(),
                expected: Some(9),
            },
            WriteOp::Compact { revision: 5 },
        ]
    }

    #[test]
    fn crc32_matches_the_ieee_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn records_read_back_as_appended() {
        let dir = tempfile::tempdir().unwrap();
        let (mut wal, none) = Wal::open(dir.path()).unwrap();
        assert!(none.is_empty());
        let ops = ops();
        let refs: Vec<&WriteOp> = ops.iter().collect();
        wal.append(6, &refs).unwrap();
        wal.append(10, &refs[..1]).unwrap();
        drop(wal);
        let (_, records) = Wal::open(dir.path()).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].start_revision, 6);
        assert_eq!(records[0].ops, ops);
        assert_eq!(records[1].start_revision, 10);
        assert_eq!(records[1].ops.len(), 1);
    }

    #[test]
    fn a_torn_last_record_is_dropped_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (mut wal, _) = Wal::open(dir.path()).unwrap();
        let ops = ops();
        let refs: Vec<&WriteOp> = ops.iter().collect();
        wal.append(1, &refs).unwrap();
        let good = wal.bytes();
        wal.append(7, &refs).unwrap();
        drop(wal);
        let path = dir.path().join(WAL_FILE);
        let full = std::fs::metadata(&path).unwrap().len();
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(full - 3).unwrap();
        drop(file);
        let (wal, records) = Wal::open(dir.path()).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].start_revision, 1);
        assert_eq!(wal.bytes(), good);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), good);
    }

    #[test]
    fn a_corrupt_record_ends_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let (mut wal, _) = Wal::open(dir.path()).unwrap();
        let ops = ops();
        let refs: Vec<&WriteOp> = ops.iter().collect();
        wal.append(1, &refs).unwrap();
        wal.append(7, &refs).unwrap();
        drop(wal);
        let path = dir.path().join(WAL_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xFF;
        std::fs::write(&path, &bytes).unwrap();
        let (_, records) = Wal::open(dir.path()).unwrap();
        assert_eq!(records.len(), 1);
    }

    #[test]
    fn truncation_empties_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let (mut wal, _) = Wal::open(dir.path()).unwrap();
        let ops = ops();
        let refs: Vec<&WriteOp> = ops.iter().collect();
        wal.append(1, &refs).unwrap();
        wal.truncate().unwrap();
        wal.append(2, &refs[..1]).unwrap();
        drop(wal);
        let (_, records) = Wal::open(dir.path()).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].start_revision, 2);
    }
}
