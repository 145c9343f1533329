//! What a kind's REST storage takes from shared pools around a write (kube's
//! `BeginCreate`/`BeginUpdate` hooks and the Service allocators): a Service's cluster IPs and
//! node ports. The REST store asks its entry's [`Allocator`] after preparation and before
//! the write, gives back what it took when the write fails or loses a race, and tells it
//! what an object held once the object is gone or an update dropped it. The allocator
//! reaches other objects (a Service's IPAddresses) through [`Objects`], which the REST store
//! implements, so that their own strategies apply.

use crate::error::Result;
use kapi_storage::Store;
use serde_json::Value;

/// What one allocation took, for the allocator to give back (its own names: an IP, a port).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Taken(pub Vec<String>);

impl Taken {
    /// Whether nothing was taken.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A resource of the registry, by group, version and plural.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceRef<'a> {
    /// Group (empty for core).
    pub group: &'a str,
    /// Version.
    pub version: &'a str,
    /// Plural.
    pub plural: &'a str,
}

/// The other objects a write may create or delete, through their REST stores.
#[async_trait::async_trait]
pub trait Objects: Send + Sync {
    /// Creates `obj` (cluster-scoped, or in `namespace`) as the server; returns it stored.
    async fn create_object(
        &self,
        resource: ResourceRef<'_>,
        namespace: Option<&str>,
        obj: Value,
    ) -> Result<Value>;

    /// Reads one object; `None` when it does not exist.
    async fn get_object(
        &self,
        resource: ResourceRef<'_>,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Option<Value>>;

    /// Deletes one object (already gone is fine).
    async fn delete_object(
        &self,
        resource: ResourceRef<'_>,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<()>;

    /// The key-value store, for claims that are not API objects.
    fn store(&self) -> &dyn Store;

    /// The storage root (`/registry`) claims are kept under.
    fn storage_root(&self) -> &str;
}

/// A kind's allocations from shared pools.
#[async_trait::async_trait]
pub trait Allocator: Send + Sync {
    /// Takes what `obj` (being created, or updated from `old`) needs and writes it into the
    /// object; under dry run it checks and fills in without keeping anything.
    async fn allocate(
        &self,
        objects: &dyn Objects,
        obj: &mut Value,
        old: Option<&Value>,
        dry_run: bool,
    ) -> Result<Taken>;

    /// Gives back what [`Allocator::allocate`] took for a write that did not happen.
    async fn give_back(&self, objects: &dyn Objects, taken: &Taken);

    /// Gives back what `old` held that `new` no longer holds (`new` None: `old` is gone).
    async fn release(&self, objects: &dyn Objects, old: &Value, new: Option<&Value>);
}
