//! The conformance cases: each is a function over `&dyn Store`, run against every backend.

pub mod compaction;
pub mod reads;
pub mod watch;
pub mod writes;
