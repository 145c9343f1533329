//! The StorageVersionMigration API (`storagemigration.k8s.io`): its entries ([`api`]) and
//! their validation ([`strategy`]). The controller that acts on it lives in kapi-server.

pub mod accounting;
pub mod api;
pub mod strategy;
