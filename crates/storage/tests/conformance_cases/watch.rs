//! Watches: events after the watch starts, replay from a revision, previous values, key vs
//! prefix, progress notifications.

use kapi_storage::{Event, Store, WatchRequest, WatchResponse};

use crate::support::{next_events, next_message};

pub async fn watch_prefix_delivers_puts_and_deletes_in_revision_order(store: &dyn Store) {
    let mut watch = store.watch(WatchRequest::prefix("/v/")).await.unwrap();
    let a = store.create(b"/v/a", b"1".to_vec()).await.unwrap();
    let a2 = store
        .update(b"/v/a", b"2".to_vec(), a.mod_revision)
        .await
        .unwrap();
    let deleted = store.delete(b"/v/a", None).await.unwrap();
    let events = next_events(&mut watch, 3).await;
    assert_eq!(events[0], Event::Put { kv: a, prev: None });
    assert_eq!(events[1], Event::Put { kv: a2, prev: None });
    assert_eq!(
        events[2],
        Event::Delete {
            key: b"/v/a".to_vec(),
            revision: deleted.revision,
            prev: None
        }
    );
}

pub async fn watch_ignores_keys_outside_the_prefix(store: &dyn Store) {
    let mut watch = store.watch(WatchRequest::prefix("/v/p/")).await.unwrap();
    store.put(b"/v/other", b"x".to_vec()).await.unwrap();
    store.put(b"/v/p0", b"x".to_vec()).await.unwrap();
    let inside = store.put(b"/v/p/in", b"x".to_vec()).await.unwrap();
    let events = next_events(&mut watch, 1).await;
    assert_eq!(events[0].key(), b"/v/p/in");
    assert_eq!(events[0].revision(), inside.mod_revision);
}

pub async fn watch_of_a_key_ignores_other_keys_with_that_prefix(store: &dyn Store) {
    let mut watch = store.watch(WatchRequest::key("/v/a")).await.unwrap();
    store.put(b"/v/ab", b"x".to_vec()).await.unwrap();
    let a = store.put(b"/v/a", b"x".to_vec()).await.unwrap();
    let events = next_events(&mut watch, 1).await;
    assert_eq!(events[0], Event::Put { kv: a, prev: None });
}

pub async fn watch_from_a_revision_replays_history_then_follows(store: &dyn Store) {
    let a = store.create(b"/v/a", b"1".to_vec()).await.unwrap();
    let b = store.create(b"/v/b", b"1".to_vec()).await.unwrap();
    let mut watch = store
        .watch(WatchRequest::prefix("/v/").from_revision(a.mod_revision))
        .await
        .unwrap();
    let c = store.create(b"/v/c", b"1".to_vec()).await.unwrap();
    let revisions: Vec<i64> = next_events(&mut watch, 3)
        .await
        .iter()
        .map(Event::revision)
        .collect();
    assert_eq!(revisions, [a.mod_revision, b.mod_revision, c.mod_revision]);
}

pub async fn watch_with_prev_kv_carries_the_previous_value(store: &dyn Store) {
    let a = store.create(b"/v/a", b"1".to_vec()).await.unwrap();
    let mut live = store
        .watch(WatchRequest::prefix("/v/").with_prev_kv())
        .await
        .unwrap();
    let a2 = store
        .update(b"/v/a", b"2".to_vec(), a.mod_revision)
        .await
        .unwrap();
    let deleted = store.delete(b"/v/a", None).await.unwrap();
    let expected = vec![
        Event::Put {
            kv: a2.clone(),
            prev: Some(a.clone()),
        },
        Event::Delete {
            key: b"/v/a".to_vec(),
            revision: deleted.revision,
            prev: Some(a2),
        },
    ];
    assert_eq!(next_events(&mut live, 2).await, expected);
    let request = WatchRequest::prefix("/v/")
        .with_prev_kv()
        .from_revision(a.mod_revision);
    let mut replay = store.watch(request).await.unwrap();
    let replayed = next_events(&mut replay, 3).await;
    assert_eq!(
        replayed[0],
        Event::Put { kv: a, prev: None },
        "a create has no previous value"
    );
    assert_eq!(replayed[1..], expected[..]);
}

pub async fn watch_request_progress_reports_the_current_revision(store: &dyn Store) {
    let mut watch = store.watch(WatchRequest::prefix("/v/")).await.unwrap();
    let written = store.put(b"/other/a", b"1".to_vec()).await.unwrap();
    // Until the watch has seen the write, progress may report an earlier revision: ask again.
    loop {
        watch.request_progress().await.unwrap();
        match next_message(&mut watch).await {
            WatchResponse::Progress { revision } if revision >= written.mod_revision => break,
            WatchResponse::Progress { .. } => {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await
            }
            WatchResponse::Events(events) => panic!("unexpected events {events:?}"),
        }
    }
}

pub async fn watch_with_progress_notify_reports_progress_while_idle(store: &dyn Store) {
    let written = store.put(b"/other/a", b"1".to_vec()).await.unwrap();
    let request = WatchRequest::prefix("/v/").with_progress_notify();
    let mut watch = store.watch(request).await.unwrap();
    loop {
        match next_message(&mut watch).await {
            WatchResponse::Progress { revision } if revision >= written.mod_revision => break,
            WatchResponse::Progress { .. } => continue,
            WatchResponse::Events(events) => panic!("unexpected events {events:?}"),
        }
    }
}

pub async fn many_watchers_each_see_every_event(store: &dyn Store) {
    let mut watches = Vec::new();
    for _ in 0..10 {
        watches.push(store.watch(WatchRequest::prefix("/v/")).await.unwrap());
    }
    let mut revisions = Vec::new();
    for i in 0..20 {
        revisions.push(
            store
                .put(format!("/v/{i}").as_bytes(), b"x".to_vec())
                .await
                .unwrap()
                .mod_revision,
        );
    }
    for watch in &mut watches {
        let seen: Vec<i64> = next_events(watch, 20)
            .await
            .iter()
            .map(Event::revision)
            .collect();
        assert_eq!(seen, revisions);
    }
}

pub async fn watchers_started_during_concurrent_writes_see_every_revision_once(store: &dyn Store) {
    let first = store
        .put(b"/v/start", b"x".to_vec())
        .await
        .unwrap()
        .mod_revision;
    let mut from_start = store
        .watch(WatchRequest::prefix("/v/").from_revision(first))
        .await
        .unwrap();
    let writes = (0..8).map(|writer| async move {
        let mut last = 0;
        for i in 0..50 {
            let key = format!("/v/{writer}/{i}");
            last = store
                .put(key.as_bytes(), b"x".to_vec())
                .await
                .unwrap()
                .mod_revision;
        }
        last
    });
    let mut midway = None;
    let all = futures::future::join_all(writes);
    let watch_midway = async {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        midway = Some(store.watch(WatchRequest::prefix("/v/")).await.unwrap());
    };
    let (lasts, ()) = tokio::join!(all, watch_midway);
    let end = lasts.into_iter().max().unwrap();
    let seen: Vec<i64> = next_events(&mut from_start, 401)
        .await
        .iter()
        .map(Event::revision)
        .collect();
    assert_eq!(
        seen,
        (first..=end).collect::<Vec<_>>(),
        "every revision once, in order"
    );
    let mut midway = midway.unwrap();
    let mut previous = None;
    // The mid-way watcher starts at some revision; from there it must see every revision once.
    loop {
        let events = match next_message(&mut midway).await {
            WatchResponse::Events(events) => events,
            WatchResponse::Progress { .. } => continue,
        };
        for event in events {
            if let Some(previous) = previous {
                assert_eq!(event.revision(), previous + 1, "gap or duplicate");
            }
            previous = Some(event.revision());
        }
        if previous == Some(end) {
            break;
        }
    }
}
