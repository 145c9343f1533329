//! Fault tolerance of the etcd backend: a 3-member etcd cluster on loopback; the leader (a
//! member the client talks to: requests are balanced over every endpoint) is killed during a
//! write loop; writes continue through the other members and no acknowledged write is lost.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use etcd_client::Client;
use kapi_storage::{
    EtcdConfig, EtcdStore, Event, RangeRequest, Store, StoreError, WatchRequest, WatchResponse,
};
use kapi_testsupport::etcd::EtcdCluster;
use tokio::sync::Mutex;

const ACKS_BEFORE_KILL: usize = 100;
const ACKS_AFTER_KILL: usize = 100;

/// Index of the member that is the raft leader.
async fn leader_index(cluster: &EtcdCluster) -> usize {
    for (i, endpoint) in cluster.endpoints().iter().enumerate() {
        let mut client = Client::connect([endpoint], None).await.unwrap();
        let status = client.status().await.unwrap();
        if status.header().map(|h| h.member_id()) == Some(status.leader()) {
            return i;
        }
    }
    panic!("no leader");
}

/// Creates /f/000000, /f/000001, … until stopped; records each acknowledged key. A key whose
/// create failed ambiguously is retried; finding it present with our value counts as an ack.
async fn write_loop(store: Arc<dyn Store>, acked: Arc<Mutex<Vec<String>>>, stop: Arc<AtomicBool>) {
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let key = format!("/f/{i:06}");
        let value = format!("value-{i}").into_bytes();
        match store.create(key.as_bytes(), value.clone()).await {
            Ok(_) => {}
            Err(StoreError::AlreadyExists { current }) if current.value == value => {}
            Err(StoreError::Unavailable(reason)) => {
                println!("write of {key} failed ({reason}); retrying");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            Err(error) => panic!("unexpected write error: {error}"),
        }
        acked.lock().await.push(key);
        i += 1;
    }
}

async fn wait_for_acks(acked: &Mutex<Vec<String>>, n: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while acked.lock().await.len() < n {
        assert!(
            tokio::time::Instant::now() < deadline,
            "writes stalled at {}",
            acked.lock().await.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_continue_and_no_acked_write_is_lost_when_the_leader_dies() {
    let mut cluster = EtcdCluster::start(3).await;
    let victim = leader_index(&cluster).await;
    let mut endpoints = cluster.endpoints();
    endpoints.swap(0, victim);
    let store: Arc<dyn Store> = Arc::new(
        EtcdStore::connect(EtcdConfig::new(endpoints))
            .await
            .unwrap(),
    );
    let mut watch = store.watch(WatchRequest::prefix("/f/")).await.unwrap();
    let acked = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = tokio::spawn(write_loop(store.clone(), acked.clone(), stop.clone()));

    wait_for_acks(&acked, ACKS_BEFORE_KILL).await;
    cluster.members[victim].kill();
    let at_kill = acked.lock().await.len();
    wait_for_acks(&acked, at_kill + ACKS_AFTER_KILL).await;
    stop.store(true, Ordering::Relaxed);
    writer.await.unwrap();

    let acked = acked.lock().await.clone();
    let survivors: Vec<String> = cluster
        .endpoints()
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i != victim)
        .map(|(_, e)| e)
        .collect();
    let reader = EtcdStore::connect(EtcdConfig::new(survivors))
        .await
        .unwrap();
    let stored = reader.range(RangeRequest::prefix("/f/")).await.unwrap();
    let stored: Vec<String> = stored
        .kvs
        .iter()
        .map(|kv| String::from_utf8(kv.key.clone()).unwrap())
        .collect();
    for key in &acked {
        assert!(stored.contains(key), "acknowledged {key} lost");
    }

    // The watch re-created itself on a surviving member and missed nothing.
    let mut watched = Vec::new();
    while watched.len() < acked.len() {
        if let WatchResponse::Events(events) = support::next_message(&mut watch).await {
            for event in events {
                if let Event::Put { kv, .. } = event {
                    watched.push(String::from_utf8(kv.key).unwrap());
                }
            }
        }
    }
    assert_eq!(watched, acked);
}
