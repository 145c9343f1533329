//! A toolkit for writing conversion webhooks in Rust.
