//! The garbage collector's memory per object, counted by the allocator: builds the
//! collector's graph from N stored ConfigMaps (as it does from lists when it starts) and
//! prints the heap bytes it holds per object — without owner references, and with one
//! owner reference each (all to one owner, as a cascade's dependents).
//!
//! `cargo run --release -p kapi-controllers --example gc_graph_memory -- 10000`

use kapi_controllers::gc::graph::Graph;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's layout is passed on as it came.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: forwarded with the caller's pointer, layout and size.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const PREFIX: &str = "/registry/configmaps/";

/// A uid as kapi makes them (36 characters).
fn uid(i: usize) -> String {
    format!("{:08x}-0000-4000-8000-{:012x}", i, i)
}

/// The stored JSON of ConfigMap `i` in `default`, with `owners` references.
fn stored(i: usize, owner: Option<&str>) -> Vec<u8> {
    let owners = match owner {
        Some(owner) => format!(
            r#","ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"{owner}","blockOwnerDeletion":true}}]"#
        ),
        None => String::new(),
    };
    format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"dependent-{i:06}","namespace":"default","uid":"{}","resourceVersion":"{}","creationTimestamp":"2026-12-03T12:00:00Z"{owners}}},"data":{{"k":"v"}}}}"#,
        uid(i),
        i + 10
    )
    .into_bytes()
}

/// Heap bytes per object of a graph of `n` objects.
fn bytes_per_object(n: usize, owner: Option<&str>) -> f64 {
    let inputs: Vec<(String, Vec<u8>)> = (0..n)
        .map(|i| {
            (
                format!("{PREFIX}default/dependent-{i:06}"),
                stored(i, owner),
            )
        })
        .collect();
    let before = LIVE.load(Ordering::Relaxed);
    let mut graph = Graph::default();
    for (key, bytes) in &inputs {
        if let Some(node) = graph.node_from_stored(PREFIX, key.as_bytes(), bytes) {
            graph.upsert(node);
        }
    }
    let held = LIVE.load(Ordering::Relaxed) - before;
    assert_eq!(graph.len(), n);
    held as f64 / n as f64
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let owner = uid(usize::MAX >> 16);
    let bare = bytes_per_object(n, None);
    let owned = bytes_per_object(n, Some(&owner));
    println!("objects: {n}");
    println!("graph bytes per object, no owner reference: {bare:.0}");
    println!("graph bytes per object, one owner reference: {owned:.0}");
    println!(
        "an owner reference adds: {:.0} bytes (reference, reverse index entry)",
        owned - bare
    );
}
