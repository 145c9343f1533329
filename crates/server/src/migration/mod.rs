//! Storage-version migration (issue 7, kube-behaviours.md section 7): exact per-version
//! accounting ([`accounting`], served as [`storage_versions`]), the StorageVersionMigration API
//! (`kapi_registry::storage_migration`) and the controller that runs migrations
//! ([`controller`], rewriting through [`rewrite`], updating the CRD through [`crd_status`],
//! one process at a time through [`leader`]).
//! See docs/migration.md.

pub mod conditions;
pub mod controller;
pub mod crd_status;
pub mod leader;
pub mod rewrite;
pub mod storage_versions;
