//! Concurrency: N tasks increment one counter with read-modify-write and CAS retries; the
//! final value equals the number of successful increments, on both backends.

mod support;

use std::sync::Arc;

use kapi_storage::Store;

const TASKS: usize = 16;
const INCREMENTS_PER_TASK: usize = 20;
const KEY: &[u8] = b"/counter";

async fn increment_until_success(store: &dyn Store) -> usize {
    let mut conflicts = 0;
    loop {
        let current = store.get(KEY, None).await.unwrap().unwrap();
        let n: u64 = String::from_utf8(current.value).unwrap().parse().unwrap();
        match store
            .update(KEY, (n + 1).to_string().into_bytes(), current.mod_revision)
            .await
        {
            Ok(_) => return conflicts,
            Err(e) if e.is_conflict() => conflicts += 1,
            Err(e) => panic!("increment failed: {e}"),
        }
    }
}

async fn cas_increments_from_many_tasks_are_never_lost(store: Arc<dyn Store>) {
    store.create(KEY, b"0".to_vec()).await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..TASKS {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut successes = 0;
            for _ in 0..INCREMENTS_PER_TASK {
                increment_until_success(&*store).await;
                successes += 1;
            }
            successes
        }));
    }
    let mut successes = 0;
    for task in tasks {
        successes += task.await.unwrap();
    }
    let last = store.get(KEY, None).await.unwrap().unwrap();
    assert_eq!(
        String::from_utf8(last.value).unwrap(),
        successes.to_string()
    );
    assert_eq!(successes, TASKS * INCREMENTS_PER_TASK);
    assert_eq!(last.version, i64::try_from(successes).unwrap() + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn embedded_cas_increments_from_many_tasks_are_never_lost() {
    let harness = support::embedded().await;
    cas_increments_from_many_tasks_are_never_lost(harness.store.clone()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn etcd_cas_increments_from_many_tasks_are_never_lost() {
    let harness = support::etcd().await;
    cas_increments_from_many_tasks_are_never_lost(harness.store.clone()).await;
}
