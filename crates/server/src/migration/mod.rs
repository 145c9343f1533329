//! Storage-version migration (issue 7, kube-behaviours.md section 7): exact per-version
//! accounting ([`accounting`], served as [`storage_versions`]), the StorageVersionMigration API
//! ([`api`], validated by [`strategy`]) and the controller that runs migrations
//! ([`controller`], rewriting through [`rewrite`], updating the CRD through [`crd_status`],
//! one process at a time through [`leader`]).
//! See docs/migration.md.

pub mod accounting;
pub mod api;
pub mod conditions;
pub mod controller;
pub mod crd_status;
pub mod leader;
pub mod rewrite;
pub mod storage_versions;
pub mod strategy;
