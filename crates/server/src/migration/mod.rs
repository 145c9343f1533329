//! Storage-version migration (issue 7, kube-behaviours.md section 7): exact per-version
//! accounting ([`accounting`], served as [`storage_versions`]), the StorageVersionMigration API
//! ([`api`]) and the controller that runs migrations ([`controller`]). See docs/migration.md.

pub mod accounting;
pub mod api;
pub mod controller;
pub mod storage_versions;
