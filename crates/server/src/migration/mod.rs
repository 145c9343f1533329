//! Storage-version migration (issue 7, kube-behaviours.md section 7): exact per-version
//! accounting of the objects stored under a resource's key prefix. The StorageVersionMigration
//! API and its controller are not built yet (see docs/migration.md).

pub mod accounting;
pub mod storage_versions;
