//! The writer's fan-out of committed batches to the store's watchers, dispatched by key: a
//! batch wakes only the watchers whose key or prefix one of its events falls under, so a
//! server with a watch cache per resource pays one wake-up per write instead of one per
//! resource. A watcher whose queue is full is dropped from the fan-out and told it lagged
//! (it goes back to the disk log); the revision of the last batch published is kept, so a
//! watcher that was not woken can still answer a progress request with it.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::writer::CommittedBatch;

/// The fan-out, shared by the writer (publishing) and the watchers (subscribing).
pub struct Fanout {
    subscribers: Mutex<Vec<Subscriber>>,
    /// The store revision of the last batch published (or of the store when it opened).
    published: AtomicI64,
    closed: AtomicBool,
    /// Batches queued per watcher before it counts as lagging.
    capacity: usize,
}

struct Subscriber {
    key: Vec<u8>,
    prefix: bool,
    batches: mpsc::Sender<Arc<CommittedBatch>>,
    lagged: Arc<AtomicBool>,
}

impl Subscriber {
    fn wants(&self, batch: &CommittedBatch) -> bool {
        batch
            .events
            .iter()
            .any(|e| covers(&self.key, self.prefix, e.key()))
    }
}

/// One watcher's place in the fan-out; the batches come in publication order.
pub struct Subscription {
    batches: mpsc::Receiver<Arc<CommittedBatch>>,
    lagged: Arc<AtomicBool>,
}

/// What a subscription yields.
pub enum Received {
    /// A batch with at least one event under the watched key.
    Batch(Arc<CommittedBatch>),
    /// Nothing is queued.
    Empty,
    /// The watcher fell behind and was dropped from the fan-out: batches were lost.
    Lagged,
    /// The store has closed.
    Closed,
}

impl Fanout {
    /// A fan-out starting at the store's `revision`, queueing `capacity` batches per watcher.
    pub fn new(revision: i64, capacity: usize) -> Self {
        Fanout {
            subscribers: Mutex::new(Vec::new()),
            published: AtomicI64::new(revision),
            closed: AtomicBool::new(false),
            capacity: capacity.max(1),
        }
    }

    /// Subscribes to the batches touching `key` (or keys under it when `prefix`).
    pub fn subscribe(&self, key: &[u8], prefix: bool) -> Subscription {
        let (tx, rx) = mpsc::channel(self.capacity);
        let lagged = Arc::new(AtomicBool::new(false));
        let mut subscribers = self.lock();
        // Checked under the lock `close` takes, so no subscriber is added after it emptied.
        if !self.closed.load(Ordering::Acquire) {
            subscribers.push(Subscriber {
                key: key.to_vec(),
                prefix,
                batches: tx,
                lagged: lagged.clone(),
            });
        }
        Subscription {
            batches: rx,
            lagged,
        }
    }

    /// Queues `batch` for every watcher it concerns, then records its revision. Called by the
    /// writer before it answers the batch's writers, so a revision a caller was answered with
    /// is never newer than [`Fanout::published`].
    pub fn publish(&self, batch: CommittedBatch) {
        let revision = batch.revision;
        if !batch.events.is_empty() {
            let batch = Arc::new(batch);
            self.lock().retain(|subscriber| {
                if subscriber.batches.is_closed() {
                    return false;
                }
                if !subscriber.wants(&batch) {
                    return true;
                }
                match subscriber.batches.try_send(batch.clone()) {
                    Ok(()) => true,
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        subscriber.lagged.store(true, Ordering::Release);
                        false
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => false,
                }
            });
        }
        self.advance(revision);
    }

    /// Records the store's revision without a batch (the store opened, or replayed its log).
    pub fn advance(&self, revision: i64) {
        self.published.fetch_max(revision, Ordering::AcqRel);
    }

    /// The store revision of the last batch published: every batch up to it that concerns a
    /// subscription is already in that subscription's queue.
    pub fn published(&self) -> i64 {
        self.published.load(Ordering::Acquire)
    }

    /// Ends every subscription (the writer has stopped).
    pub fn close(&self) {
        let mut subscribers = self.lock();
        self.closed.store(true, Ordering::Release);
        subscribers.clear();
    }

    /// How many watchers are subscribed.
    #[cfg(test)]
    pub fn subscribers(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Subscriber>> {
        // A panic while holding the lock leaves the list itself intact.
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Subscription {
    /// Waits for the next batch.
    pub async fn recv(&mut self) -> Received {
        match self.batches.recv().await {
            Some(batch) => Received::Batch(batch),
            None => self.ended(),
        }
    }

    /// The next batch if one is queued.
    pub fn try_recv(&mut self) -> Received {
        match self.batches.try_recv() {
            Ok(batch) => Received::Batch(batch),
            Err(mpsc::error::TryRecvError::Empty) => Received::Empty,
            Err(mpsc::error::TryRecvError::Disconnected) => self.ended(),
        }
    }

    fn ended(&self) -> Received {
        if self.lagged.load(Ordering::Acquire) {
            Received::Lagged
        } else {
            Received::Closed
        }
    }
}

/// True when `key` is covered by a watch of `watched` (a prefix watch when `prefix`).
pub fn covers(watched: &[u8], prefix: bool, key: &[u8]) -> bool {
    if prefix {
        key.starts_with(watched)
    } else {
        key == watched
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Event, KeyValue};

    fn batch(revision: i64, keys: &[&str]) -> CommittedBatch {
        CommittedBatch {
            revision,
            events: keys
                .iter()
                .map(|k| Event::Put {
                    kv: KeyValue {
                        key: k.as_bytes().to_vec(),
                        value: Vec::new(),
                        create_revision: revision,
                        mod_revision: revision,
                        version: 1,
                    },
                    prev: None,
                })
                .collect(),
        }
    }

    #[test]
    fn a_batch_reaches_only_the_watchers_of_its_keys() {
        let fanout = Fanout::new(0, 4);
        let mut pods = fanout.subscribe(b"/registry/pods/", true);
        let mut maps = fanout.subscribe(b"/registry/configmaps/", true);
        fanout.publish(batch(1, &["/registry/pods/a"]));
        assert!(matches!(pods.try_recv(), Received::Batch(b) if b.revision == 1));
        assert!(matches!(maps.try_recv(), Received::Empty));
        assert_eq!(fanout.published(), 1);
    }

    #[test]
    fn a_single_key_watch_ignores_keys_below_it() {
        let fanout = Fanout::new(0, 4);
        let mut one = fanout.subscribe(b"/registry/pods/a", false);
        fanout.publish(batch(1, &["/registry/pods/ab"]));
        fanout.publish(batch(2, &["/registry/pods/a"]));
        assert!(matches!(one.try_recv(), Received::Batch(b) if b.revision == 2));
    }

    #[test]
    fn a_full_queue_makes_the_watcher_lag_after_what_it_holds() {
        let fanout = Fanout::new(0, 2);
        let mut slow = fanout.subscribe(b"/k/", true);
        for revision in 1..=3 {
            fanout.publish(batch(revision, &["/k/x"]));
        }
        assert_eq!(fanout.subscribers(), 0);
        assert!(matches!(slow.try_recv(), Received::Batch(b) if b.revision == 1));
        assert!(matches!(slow.try_recv(), Received::Batch(b) if b.revision == 2));
        assert!(matches!(slow.try_recv(), Received::Lagged));
    }

    #[test]
    fn closing_ends_every_subscription_and_refuses_new_ones() {
        let fanout = Fanout::new(5, 2);
        let mut before = fanout.subscribe(b"/k/", true);
        fanout.close();
        let mut after = fanout.subscribe(b"/k/", true);
        assert!(matches!(before.try_recv(), Received::Closed));
        assert!(matches!(after.try_recv(), Received::Closed));
    }

    #[test]
    fn dropped_watchers_leave_the_fan_out_at_the_next_publication() {
        let fanout = Fanout::new(0, 2);
        drop(fanout.subscribe(b"/k/", true));
        let _kept = fanout.subscribe(b"/j/", true);
        fanout.publish(batch(1, &["/x"]));
        assert_eq!(fanout.subscribers(), 1);
    }

    #[test]
    fn the_published_revision_moves_even_when_no_one_is_concerned() {
        let fanout = Fanout::new(3, 2);
        let _pods = fanout.subscribe(b"/registry/pods/", true);
        fanout.publish(batch(4, &["/registry/leases/x"]));
        assert_eq!(fanout.published(), 4);
    }
}
