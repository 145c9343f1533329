//! An etcd-shaped key-value store: one trait, an embedded backend and an etcd backend.
