//! The admission chain a write passes, as a plug-in of the REST store (kube's admission
//! plugins: mutating and validating webhooks, admission policies). The store calls
//! [`Admission::mutate`] with the object a request asks to write before preparing and
//! validating it (for a create: before its uid, timestamps and generated name; for an
//! update: after the new object is computed from the stored one, on every attempt), and
//! [`Admission::validate`] with the object it is about to store once it validated. A delete
//! calls [`Admission::mutate_delete`] then [`Admission::validate`] with the object being
//! deleted, as upstream's delete admits (mutating plugins too, with no object to change).
//! Under dryRun every step runs and is told so.
//! The server plugs in what it has configured; without a chain, writes are admitted.

use crate::Result;
use serde_json::Value;
use std::sync::Arc;

/// The operation of a write, as admission names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// A new object (POST, or an update or apply that creates).
    Create,
    /// A changed object (PUT, PATCH, apply; subresources too).
    Update,
    /// A deletion.
    Delete,
}

impl Operation {
    /// `CREATE`, `UPDATE` or `DELETE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }
}

/// What admission is told about a write.
#[derive(Debug, Clone, Copy)]
pub struct AdmissionRequest<'a> {
    /// The operation.
    pub operation: Operation,
    /// The API group of the resource written.
    pub group: &'a str,
    /// The version it is written in.
    pub version: &'a str,
    /// The resource (plural).
    pub resource: &'a str,
    /// Its kind.
    pub kind: &'a str,
    /// The subresource written (`status`, `scale`), if any.
    pub subresource: Option<&'a str>,
    /// The namespace (`None` for cluster-scoped objects).
    pub namespace: Option<&'a str>,
    /// The object's name (empty for a create with `generateName`).
    pub name: &'a str,
    /// The stored object an update or delete starts from.
    pub old: Option<&'a Value>,
    /// Whether nothing will be stored.
    pub dry_run: bool,
}

/// An admission chain.
#[async_trait::async_trait]
pub trait Admission: Send + Sync {
    /// Mutating admission: may change `obj` (the object of a create or update), or refuse.
    async fn mutate(&self, request: &AdmissionRequest<'_>, obj: &mut Value) -> Result<()>;

    /// Mutating admission of a delete (the object going is `request.old`): the mutating
    /// plugins registered for DELETE are called and may refuse; there is nothing to change.
    async fn mutate_delete(&self, request: &AdmissionRequest<'_>) -> Result<()>;

    /// Validating admission: may refuse `obj` (the validated object of a create or update,
    /// the object being deleted).
    async fn validate(&self, request: &AdmissionRequest<'_>, obj: &Value) -> Result<()>;
}

/// The admission chain of a write ([`crate::rest::WriteContext::admission`]).
#[derive(Clone)]
pub struct AdmissionChain(pub Arc<dyn Admission>);

impl std::fmt::Debug for AdmissionChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdmissionChain")
    }
}
