//! The StorageVersionMigration API (`storagemigration.k8s.io`): its entries ([`api`]), their
//! validation ([`strategy`]), the exact per-version accounting ([`accounting`]) and the
//! rewrite of stale objects in the storage version ([`rewrite`]). The controller that runs
//! migrations is kapi-controllers'.

pub mod accounting;
pub mod api;
pub mod rewrite;
pub mod strategy;
