//! Durability of the embedded store: a child process (this binary, re-invoked) writes keys
//! from several tasks and prints each acknowledged key; it is killed with SIGKILL mid-stream;
//! after reopening, every acknowledged key must be there. While the child runs, opening its
//! directory from this process must fail with `Locked`. A second child never checkpoints:
//! everything it wrote after opening is only in the write-ahead log when it is killed, and
//! must come back from it, with its revisions and its watch history.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kapi_storage::{EmbeddedConfig, EmbeddedStore, Store, StoreError};

const CHILD_ENV: &str = "KAPI_DURABILITY_CHILD_DIR";
const LOG_ONLY_CHILD_ENV: &str = "KAPI_DURABILITY_LOG_ONLY_CHILD_DIR";
/// Keys the log-only child writes, one at a time, before it says so and waits.
const LOG_ONLY_KEYS: usize = 300;
const WRITERS: usize = 8;
const ACKS_BEFORE_KILL: usize = 2000;

fn main() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        child_writes_until_killed(&dir);
        return;
    }
    if let Ok(dir) = std::env::var(LOG_ONLY_CHILD_ENV) {
        child_writes_to_the_log_only(&dir);
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(every_acknowledged_write_survives_sigkill());
    println!("durability: every_acknowledged_write_survives_sigkill ... ok");
    runtime.block_on(writes_only_in_the_write_ahead_log_are_replayed_after_sigkill());
    println!("durability: writes_only_in_the_write_ahead_log_are_replayed_after_sigkill ... ok");
}

/// The log-only child: never checkpoints; writes `LOG_ONLY_KEYS` keys (each updated once,
/// every tenth deleted), prints `done` and waits to be killed.
fn child_writes_to_the_log_only(dir: &str) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut cfg = config(dir);
        cfg.checkpoint_idle = None;
        let store = EmbeddedStore::open(cfg).unwrap();
        for i in 0..LOG_ONLY_KEYS {
            let key = format!("/log/{i:04}");
            let created = store.create(key.as_bytes(), b"1".to_vec()).await.unwrap();
            store
                .update(key.as_bytes(), b"2".to_vec(), created.mod_revision)
                .await
                .unwrap();
            if i % 10 == 0 {
                store.delete(key.as_bytes(), None).await.unwrap();
            }
        }
        println!("done");
        std::future::pending::<()>().await;
    });
}

async fn writes_only_in_the_write_ahead_log_are_replayed_after_sigkill() {
    use futures::StreamExt;
    use kapi_storage::{RangeRequest, WatchRequest, WatchResponse};
    let dir = tempfile::tempdir().unwrap();
    let dir_str = dir.path().display().to_string();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(LOG_ONLY_CHILD_ENV, &dir_str)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "done");
    let wal = dir.path().join(kapi_storage::embedded::WAL_FILE);
    assert!(
        std::fs::metadata(&wal).unwrap().len() > 0,
        "nothing was checkpointed"
    );
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child's pid has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    child.wait().unwrap();

    let store = EmbeddedStore::open(config(&dir_str)).unwrap();
    let deleted = LOG_ONLY_KEYS.div_ceil(10);
    let writes = LOG_ONLY_KEYS * 2 + deleted;
    assert_eq!(
        store.current_revision().await.unwrap(),
        i64::try_from(writes).unwrap()
    );
    let live = store.range(RangeRequest::prefix(b"/log/")).await.unwrap();
    assert_eq!(live.kvs.len(), LOG_ONLY_KEYS - deleted);
    assert!(
        live.kvs
            .iter()
            .all(|kv| kv.value == b"2" && kv.version == 2)
    );
    assert_eq!(
        std::fs::metadata(&wal).unwrap().len(),
        0,
        "replayed and checkpointed"
    );
    // The history came back too: a watch from the first revision sees every write.
    let mut watch = store
        .watch(WatchRequest::prefix(b"/log/").from_revision(1))
        .await
        .unwrap();
    let mut seen = 0;
    while seen < writes {
        let next = tokio::time::timeout(Duration::from_secs(10), watch.next())
            .await
            .expect("history in time");
        if let Some(Ok(WatchResponse::Events(events))) = next {
            seen += events.len();
        }
    }
    assert_eq!(seen, writes);
}

fn config(dir: &str) -> EmbeddedConfig {
    let mut config = EmbeddedConfig::new(dir);
    config.compaction_interval = None;
    config
}

/// The child: writes forever from several tasks, printing "<key> <value>" after each ack.
fn child_writes_until_killed(dir: &str) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = EmbeddedStore::open(config(dir)).unwrap();
        let mut tasks = Vec::new();
        for writer in 0..WRITERS {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                for i in 0u64.. {
                    let key = format!("/d/{writer}/{i:08}");
                    let value = format!("value-{writer}-{i}");
                    store
                        .create(key.as_bytes(), value.clone().into_bytes())
                        .await
                        .unwrap();
                    let mut out = std::io::stdout().lock();
                    writeln!(out, "{key} {value}").unwrap();
                    out.flush().unwrap();
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
    });
}

async fn every_acknowledged_write_survives_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let dir_str = dir.path().display().to_string();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, &dir_str)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let (lines_tx, lines_rx) = mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut stdout = BufReader::new(stdout);
        let mut line = String::new();
        // Only complete lines count: a line cut by the kill was never fully acknowledged.
        while stdout.read_line(&mut line).unwrap_or(0) > 0 {
            if line.ends_with('\n') {
                let _ = lines_tx.send(line.trim_end().to_string());
            }
            line.clear();
        }
    });
    let mut acked = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    while acked.len() < ACKS_BEFORE_KILL && Instant::now() < deadline {
        if let Ok(line) = lines_rx.recv_timeout(Duration::from_millis(100)) {
            acked.push(line);
        }
    }
    assert!(!acked.is_empty(), "the child acknowledged nothing");

    let second = EmbeddedStore::open(config(&dir_str));
    assert!(
        matches!(second, Err(StoreError::Locked { .. })),
        "second open of a held directory must fail"
    );

    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child's pid has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    child.wait().unwrap();
    reader.join().unwrap();
    acked.extend(lines_rx.try_iter());

    let store = EmbeddedStore::open(config(&dir_str)).unwrap();
    for line in &acked {
        let (key, value) = line.split_once(' ').unwrap();
        let found = store.get(key.as_bytes(), None).await.unwrap();
        assert_eq!(
            found.map(|kv| kv.value),
            Some(value.as_bytes().to_vec()),
            "acked {key} lost"
        );
    }
    let current = store.current_revision().await.unwrap();
    assert!(current >= i64::try_from(acked.len()).unwrap());
    println!(
        "durability: {} acknowledged writes all present after SIGKILL (revision {current})",
        acked.len()
    );
}
