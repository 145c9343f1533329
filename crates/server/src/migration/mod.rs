//! Storage-version migration (issue 7, kube-behaviours.md section 7): exact per-version
//! accounting ([`accounting`], served as [`storage_versions`]), the StorageVersionMigration API
//! ([`api`], validated by [`strategy`]) and the controller that runs migrations
//! ([`controller`], rewriting through [`rewrite`], updating the CRD through [`crd_status`]).
//! See docs/migration.md.

pub mod accounting;
pub mod api;
pub mod conditions;
pub mod controller;
pub mod crd_status;
pub mod rewrite;
pub mod storage_versions;
pub mod strategy;
