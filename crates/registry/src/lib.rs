//! kube's registry layer in Rust, without HTTP (DESIGN.md "The registry entry"): every served
//! resource, built-in or custom, is one [`entry::ResourceEntry`] with its storage codec,
//! strategy and table convertor; the [`rest`] store runs every verb over an entry (one
//! guaranteed-update loop under PUT, PATCH, apply, `/status` and `/scale`); failures are
//! typed [`Error`] values that the HTTP edge turns into a `Status` once.

pub mod allocator;
pub mod builtin;
pub mod cache;
pub mod codec;
pub mod crd;
pub mod entry;
pub mod error;
pub mod field;
pub mod field_path;
pub mod field_schema;
pub mod json_dups;
pub mod managed_fields;
pub mod meta;
pub mod patch;
pub mod patch_meta;
pub mod rest;
pub mod scheme_codec;
pub mod selectors;
pub mod storage_migration;
pub mod strategic;
pub mod strategy;
pub mod table;
pub mod typed_fields;

pub use error::{Error, Result, StatusCause, StatusDetails};
