//! The REST store (kube's `registry.Store` behind `rest.Storage`): every verb over one
//! [`ResourceEntry`], without HTTP. Create prepares and validates through the entry's
//! strategy and stores with create-if-absent; every change of an existing object — PUT,
//! PATCH, apply, `/status`, `/scale`, a finalizer removed — goes through one
//! guaranteed-update loop ([`RestStore::update`]): read, let the caller compute the new
//! object from the current one ([`UpdatedObjectInfo`]), check the resourceVersion, prepare,
//! validate, compare-and-swap, and on a lost race read again and recompute. Delete honours
//! preconditions, finalizers, propagation and grace periods; delete_collection deletes what
//! a selector keeps, one object at a time; list ([`list`]) reads pages at one revision, or
//! from the watch cache.

pub mod admission;
pub mod list;
pub mod namespace;
pub mod options;

use crate::allocator::{Objects, ResourceRef, Taken};
use crate::cache::WatchCaches;
use crate::entry::{RegistryTable, ResourceEntry};
use crate::error::{Error, Result, StatusCause, store_error};
use crate::managed_fields;
use crate::meta;
use crate::strategy::{validate_labels_and_annotations, validate_name};
use kapi_storage::{KeyValue, Store, StoreError};
use options::{DeleteOptions, Propagation};
use serde_json::{Value, json};

/// Attempts of the guaranteed-update loop before a lost race is reported as a 409.
const MAX_ATTEMPTS: usize = 64;

/// Server-owned metadata a client may not set on create (R8.11).
const SYSTEM_FIELDS: [&str; 7] = [
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "selfLink",
    "resourceVersion",
    "generation",
];

/// An object as stored, with the revision it was read at.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The object in the entry's version, `metadata.resourceVersion` set.
    pub object: Value,
    /// Its `mod_revision`.
    pub revision: i64,
}

/// A check of the final object of a write that depends on who writes (RBAC's escalation
/// and bind checks); its error refuses the write.
#[derive(Clone)]
pub struct WriteGuard(pub std::sync::Arc<GuardFn>);

/// The function of a [`WriteGuard`].
pub type GuardFn = dyn Fn(&Value) -> Result<()> + Send + Sync;

impl std::fmt::Debug for WriteGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WriteGuard")
    }
}

/// Who writes, and how (the parts of a request the store needs).
#[derive(Debug, Clone, Default)]
pub struct WriteContext {
    /// Namespace from the URL (`None` for cluster-scoped requests).
    pub namespace: Option<String>,
    /// Subresource (`status`, `scale`, `finalize`), if any.
    pub subresource: Option<String>,
    /// Field manager recorded in managedFields.
    pub manager: String,
    /// Validate and answer, store nothing.
    pub dry_run: bool,
    /// Checks the validated object before it is stored.
    pub guard: Option<WriteGuard>,
    /// The admission chain the write passes (mutating, then validating).
    pub admission: Option<admission::AdmissionChain>,
}

/// The caller's half of an update (kube's `rest.UpdatedObjectInfo`): the new object,
/// computed from the current one. Called again with the fresh object after a lost race.
pub trait UpdatedObjectInfo: Send {
    /// The object to store, given the stored one (`None` when it does not exist and the
    /// update may create it).
    fn updated_object(&mut self, current: Option<&Value>) -> Result<Value>;

    /// Whether a missing object is created (apply, and kinds with `AllowCreateOnUpdate`).
    fn allow_create(&self) -> bool {
        false
    }

    /// Whether the store records this write as an `Update` in managedFields (apply
    /// records its own `Apply` entry while computing the object).
    fn records_update(&self) -> bool {
        true
    }
}

/// An update given as a closure (PUT bodies, patches, views).
pub struct UpdateFn<F> {
    f: F,
    create: bool,
    record: bool,
}

impl<F> UpdateFn<F>
where
    F: FnMut(Option<&Value>) -> Result<Value> + Send,
{
    /// An update that does not create and records an `Update` entry.
    pub fn new(f: F) -> Self {
        Self {
            f,
            create: false,
            record: true,
        }
    }

    /// Creates the object when it is missing (server-side apply).
    pub fn creating(mut self) -> Self {
        self.create = true;
        self
    }

    /// Leaves managedFields to the closure (server-side apply).
    pub fn without_update_record(mut self) -> Self {
        self.record = false;
        self
    }
}

impl<F> UpdatedObjectInfo for UpdateFn<F>
where
    F: FnMut(Option<&Value>) -> Result<Value> + Send,
{
    fn updated_object(&mut self, current: Option<&Value>) -> Result<Value> {
        (self.f)(current)
    }

    fn allow_create(&self) -> bool {
        self.create
    }

    fn records_update(&self) -> bool {
        self.record
    }
}

/// What an update did.
#[derive(Debug, Clone, PartialEq)]
pub struct Updated {
    /// The object after the write (or as it would be, under dryRun).
    pub object: Value,
    /// Whether the update created it.
    pub created: bool,
}

/// What a delete did.
#[derive(Debug, Clone, PartialEq)]
pub enum Deleted {
    /// The object is gone; this is how it was.
    Removed(Value),
    /// The object is being deleted (finalizers or a grace period pending): this is it now.
    /// `accepted` is true when the reply is 202 (`orphanDependents=false`, R8.23).
    Pending {
        /// The object with its deletionTimestamp.
        object: Value,
        /// Answer 202 instead of 200.
        accepted: bool,
    },
}

/// What a delete of a collection did.
#[derive(Debug, Clone, PartialEq)]
pub struct DeletedCollection {
    /// Each object deleted (as it was) or being deleted (as it is now), in key order.
    pub items: Vec<Value>,
    /// The revision the collection was read at.
    pub revision: i64,
    /// How many of them are still there, being deleted (finalizers or grace pending).
    pub pending: usize,
}

/// The REST store of one entry, over one store and the registry snapshot of the request.
#[derive(Clone, Copy)]
pub struct RestStore<'a> {
    /// The key-value store.
    pub store: &'a dyn Store,
    /// The registry snapshot (namespaces are looked up in it).
    pub table: &'a RegistryTable,
    /// The resource.
    pub entry: &'a ResourceEntry,
    /// The server's watch caches, when it has them: a create's namespace is looked up there
    /// before the store.
    pub caches: Option<&'a WatchCaches>,
}

impl<'a> RestStore<'a> {
    /// The REST store of `entry`.
    pub fn new(store: &'a dyn Store, table: &'a RegistryTable, entry: &'a ResourceEntry) -> Self {
        Self {
            store,
            table,
            entry,
            caches: None,
        }
    }

    /// The same store, reading what it may from `caches`.
    pub fn with_caches(mut self, caches: &'a WatchCaches) -> Self {
        self.caches = Some(caches);
        self
    }

    fn group(&self) -> &str {
        &self.entry.group
    }

    fn resource(&self) -> &str {
        &self.entry.names.plural
    }

    /// What admission is told about a write of this entry's resource.
    fn admission_request<'r>(
        &'r self,
        w: &'r WriteContext,
        operation: admission::Operation,
        name: &'r str,
        old: Option<&'r Value>,
    ) -> admission::AdmissionRequest<'r> {
        admission::AdmissionRequest {
            operation,
            group: &self.entry.group,
            version: &self.entry.version,
            resource: &self.entry.names.plural,
            kind: &self.entry.names.kind,
            subresource: w.subresource.as_deref(),
            namespace: w.namespace.as_deref(),
            name,
            old,
            dry_run: w.dry_run,
        }
    }

    /// Mutating admission of `obj`, when the write has a chain.
    async fn admit_mutation(
        &self,
        w: &WriteContext,
        operation: admission::Operation,
        old: Option<&Value>,
        obj: &mut Value,
    ) -> Result<()> {
        let Some(chain) = &w.admission else {
            return Ok(());
        };
        let name = meta::name(obj).to_owned();
        let request = self.admission_request(w, operation, &name, old);
        chain.0.mutate(&request, obj).await
    }

    /// Validating admission of `obj`, when the write has a chain.
    async fn admit_validation(
        &self,
        w: &WriteContext,
        operation: admission::Operation,
        old: Option<&Value>,
        obj: &Value,
    ) -> Result<()> {
        let Some(chain) = &w.admission else {
            return Ok(());
        };
        let request = self.admission_request(w, operation, meta::name(obj), old);
        chain.0.validate(&request, obj).await
    }

    /// Admission of a delete of `obj`, when the write has a chain: mutating (which may only
    /// refuse), then validating, both with `obj` as the old object (upstream's
    /// `AdmissionToValidateObjectDeleteFunc`).
    async fn admit_delete(&self, w: &WriteContext, obj: &Value) -> Result<()> {
        let Some(chain) = &w.admission else {
            return Ok(());
        };
        let request =
            self.admission_request(w, admission::Operation::Delete, meta::name(obj), Some(obj));
        chain.0.mutate_delete(&request).await?;
        chain.0.validate(&request, obj).await
    }

    /// Maps a store error for the object `name`.
    pub fn store_error(&self, e: StoreError, name: &str) -> Error {
        store_error(e, self.group(), self.resource(), name)
    }

    /// NotFound for `name`.
    pub fn not_found(&self, name: &str) -> Error {
        Error::not_found(self.group(), self.resource(), name)
    }

    /// Decodes a stored key-value into an object with its resourceVersion.
    pub async fn decode(&self, kv: &KeyValue) -> Result<Value> {
        let mut obj = self.entry.codec.decode_stored(&kv.value).await?;
        meta::set_meta(
            &mut obj,
            "resourceVersion",
            Some(Value::String(kv.mod_revision.to_string())),
        );
        Ok(obj)
    }

    /// Reads one object; `None` when it does not exist.
    pub async fn get(&self, namespace: Option<&str>, name: &str) -> Result<Option<Stored>> {
        Ok(self.read(namespace, name).await?.map(|(stored, _)| stored))
    }

    /// Reads one object with the bytes it is stored as (an update that changes nothing
    /// asks them whether they are in the current storage version).
    async fn read(&self, namespace: Option<&str>, name: &str) -> Result<Option<(Stored, Vec<u8>)>> {
        let key = self.entry.key(namespace, name);
        let kv = self
            .store
            .get(key.as_bytes(), None)
            .await
            .map_err(|e| self.store_error(e, name))?;
        match kv {
            Some(kv) => {
                let stored = Stored {
                    object: self.decode(&kv).await?,
                    revision: kv.mod_revision,
                };
                Ok(Some((stored, kv.value)))
            }
            None => Ok(None),
        }
    }

    /// Reads one object, or NotFound.
    pub async fn get_existing(&self, namespace: Option<&str>, name: &str) -> Result<Stored> {
        self.get(namespace, name)
            .await?
            .ok_or_else(|| self.not_found(name))
    }

    /// The namespace in the body must match the URL (R8.12); it is filled in when absent
    /// and dropped for cluster-scoped kinds.
    pub fn reconcile_namespace(&self, namespace: Option<&str>, obj: &mut Value) -> Result<()> {
        if !self.entry.namespaced() {
            meta::set_meta(obj, "namespace", None);
            return Ok(());
        }
        let url_ns = namespace.unwrap_or("");
        let body_ns = meta::namespace(obj);
        if !body_ns.is_empty() && body_ns != url_ns {
            return Err(Error::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
        meta::set_meta(obj, "namespace", Some(json!(url_ns)));
        Ok(())
    }

    fn invalid(&self, obj: &Value, causes: Vec<StatusCause>) -> Error {
        Error::invalid(
            self.group(),
            &self.entry.names.kind,
            meta::name(obj),
            causes,
        )
    }

    /// Validation of a new object: name, labels and annotations, then the strategy's rules.
    pub fn validate_create(&self, obj: &Value) -> Result<()> {
        let mut causes = validate_name(self.entry.strategy.name_rule(), obj);
        causes.extend(validate_labels_and_annotations(obj));
        causes.extend(self.entry.strategy.validate(obj));
        if causes.is_empty() {
            Ok(())
        } else {
            Err(self.invalid(obj, causes))
        }
    }

    /// Validation of an update (also through a subresource): name, labels and annotations,
    /// then the strategy's rules, which may compare with the stored `old` (CEL transition
    /// rules, immutable fields).
    pub fn validate_update(&self, obj: &Value, old: &Value, sub: Option<&str>) -> Result<()> {
        let mut causes = validate_name(self.entry.strategy.name_rule(), obj);
        causes.extend(validate_labels_and_annotations(obj));
        causes.extend(self.entry.strategy.validate_update(obj, old, sub));
        if causes.is_empty() {
            Ok(())
        } else {
            Err(self.invalid(obj, causes))
        }
    }

    /// Sets uid, creationTimestamp and generation; runs the strategy's create preparation.
    pub fn prepare_create(&self, obj: &mut Value) {
        for f in SYSTEM_FIELDS {
            meta::set_meta(obj, f, None);
        }
        meta::set_meta(obj, "uid", Some(json!(meta::new_uid())));
        meta::set_meta(obj, "creationTimestamp", Some(json!(meta::now_rfc3339())));
        let strategy = &self.entry.strategy;
        if strategy.tracks_generation() {
            meta::set_meta(obj, "generation", Some(json!(1)));
        }
        if strategy.has_status()
            && let Some(map) = obj.as_object_mut()
        {
            map.remove("status");
        }
        strategy.prepare_for_create(obj);
    }

    /// Carries server-owned fields from `old` into `new` and applies the status rules of the
    /// main resource or the `status` subresource (R8.14, R8.16).
    pub fn prepare_update(&self, new: &mut Value, old: &Value, sub: Option<&str>) {
        let strategy = &self.entry.strategy;
        if let Some(s) = sub
            && s != "status"
            && strategy.prepare_subresource_update(s, new, old)
        {
            return;
        }
        if sub == Some("status") {
            let status = new.get("status").cloned();
            let managed = meta::meta(new)
                .and_then(|m| m.get("managedFields"))
                .cloned();
            let mut merged = old.clone();
            if let Some(map) = merged.as_object_mut() {
                match status {
                    Some(s) => map.insert("status".into(), s),
                    None => map.remove("status"),
                };
            }
            if managed.is_some() {
                meta::set_meta(&mut merged, "managedFields", managed);
            }
            *new = merged;
            strategy.prepare_for_update(new, old, Some("status"));
            return;
        }
        for f in [
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
        ] {
            let v = meta::meta(old).and_then(|m| m.get(f)).cloned();
            meta::set_meta(new, f, v);
        }
        if strategy.has_status()
            && let Some(map) = new.as_object_mut()
        {
            match old.get("status") {
                Some(s) => map.insert("status".into(), s.clone()),
                None => map.remove("status"),
            };
        }
        if strategy.tracks_generation() && new.get("spec") != old.get("spec") {
            let g = meta::nested(old, &["metadata", "generation"])
                .and_then(Value::as_i64)
                .unwrap_or(0);
            meta::set_meta(new, "generation", Some(json!(g + 1)));
        }
        strategy.prepare_for_update(new, old, None);
    }

    /// Records the write in managedFields as an `Update` by the request's manager.
    pub fn record_update(&self, w: &WriteContext, new: &mut Value, old: Option<&Value>) {
        let api_version = self.entry.api_version();
        let writer = managed_fields::Writer {
            manager: &w.manager,
            api_version: &api_version,
            subresource: w.subresource.as_deref().unwrap_or(""),
        };
        managed_fields::record_update(new, old, &writer, self.entry.kind_fields());
    }

    /// POST: prepares, validates and stores a new object (generateName retried on a name
    /// clash); returns it as stored (or as it would be, under dryRun).
    pub async fn create(&self, w: &WriteContext, mut obj: Value) -> Result<Value> {
        self.reconcile_namespace(w.namespace.as_deref(), &mut obj)?;
        self.admit_mutation(w, admission::Operation::Create, None, &mut obj)
            .await?;
        self.reconcile_namespace(w.namespace.as_deref(), &mut obj)?;
        self.prepare_create(&mut obj);
        self.record_update(w, &mut obj, None);
        self.store_new(w, obj).await
    }

    /// Stores an object that [`RestStore::prepare_create`] prepared.
    async fn store_new(&self, w: &WriteContext, mut obj: Value) -> Result<Value> {
        if let Some(message) = self.entry.strategy.create_refusal() {
            return Err(Error::MethodNotSupported {
                group: self.group().to_owned(),
                resource: self.resource().to_owned(),
                message,
            });
        }
        let Some(allocator) = self.entry.strategy.allocator() else {
            return self.store_prepared(w, obj).await;
        };
        let taken = allocator.allocate(self, &mut obj, None, w.dry_run).await?;
        let stored = self.store_prepared(w, obj).await;
        if stored.is_err() {
            allocator.give_back(self, &taken).await;
        }
        stored
    }

    /// Validates and stores a prepared new object, retrying generated names.
    async fn store_prepared(&self, w: &WriteContext, mut obj: Value) -> Result<Value> {
        let generate = meta::meta_str(&obj, "generateName").to_owned();
        let generated = meta::name(&obj).is_empty() && !generate.is_empty();
        for _attempt in 0..8 {
            if generated {
                let name = format!("{generate}{}", meta::random_suffix(5));
                meta::set_meta(&mut obj, "name", Some(json!(name)));
            }
            self.validate_create(&obj)?;
            if let Some(guard) = &w.guard {
                (guard.0)(&obj)?;
            }
            self.admit_validation(w, admission::Operation::Create, None, &obj)
                .await?;
            let name = meta::name(&obj).to_owned();
            if let Some(ns) = w.namespace.as_deref() {
                namespace::admit_create(self, ns, &name).await?;
            }
            if w.dry_run {
                return Ok(obj);
            }
            let key = self.entry.key(w.namespace.as_deref(), &name);
            let bytes = self.entry.codec.encode_for_storage(&obj).await?;
            match self.store.create(key.as_bytes(), bytes).await {
                Ok(kv) => return self.decode(&kv).await,
                Err(StoreError::AlreadyExists { .. }) if generated => continue,
                Err(e) => return Err(self.store_error(e, &name)),
            }
        }
        Err(Error::already_exists(
            self.group(),
            self.resource(),
            meta::name(&obj),
        ))
    }

    /// The one guaranteed-update loop under PUT, PATCH, apply, `/status` and `/scale`: the
    /// new object is computed from the stored one by `info`, checked (name, namespace,
    /// resourceVersion, R8.13), prepared, validated and written with compare-and-swap; a
    /// lost race reads again and recomputes, so only a resourceVersion the request named
    /// ends in 409.
    pub async fn update(
        &self,
        w: &WriteContext,
        name: &str,
        info: &mut dyn UpdatedObjectInfo,
    ) -> Result<Updated> {
        let ns = w.namespace.as_deref();
        let sub = w.subresource.as_deref();
        for _attempt in 0..MAX_ATTEMPTS {
            let Some((current, bytes)) = self.read(ns, name).await? else {
                if !(info.allow_create() || self.entry.strategy.allow_create_on_update()) {
                    return Err(self.not_found(name));
                }
                let mut obj = info.updated_object(None)?;
                self.reconcile_namespace(ns, &mut obj)?;
                self.check_name(&obj, name)?;
                self.admit_mutation(w, admission::Operation::Create, None, &mut obj)
                    .await?;
                self.reconcile_namespace(ns, &mut obj)?;
                self.check_name(&obj, name)?;
                self.prepare_create(&mut obj);
                if info.records_update() {
                    self.record_update(w, &mut obj, None);
                }
                match self.store_new(w, obj).await {
                    Err(Error::AlreadyExists { .. }) => continue,
                    other => {
                        return other.map(|object| Updated {
                            object,
                            created: true,
                        });
                    }
                }
            };
            let old = &current.object;
            let mut new = info.updated_object(Some(old))?;
            self.reconcile_namespace(ns, &mut new)?;
            self.check_name(&new, name)?;
            self.check_resource_version(&new, &current)?;
            self.check_uid(&new, old)?;
            self.admit_mutation(w, admission::Operation::Update, Some(old), &mut new)
                .await?;
            self.reconcile_namespace(ns, &mut new)?;
            self.check_name(&new, name)?;
            self.prepare_update(&mut new, old, sub);
            if info.records_update() {
                self.record_update(w, &mut new, Some(old));
            }
            self.validate_update(&new, old, sub)?;
            if let Some(guard) = &w.guard {
                (guard.0)(&new)?;
            }
            self.admit_validation(w, admission::Operation::Update, Some(old), &new)
                .await?;
            let allocator = self.entry.strategy.allocator();
            let taken = match allocator {
                Some(a) => a.allocate(self, &mut new, Some(old), w.dry_run).await?,
                None => Taken::default(),
            };
            let written = self.store_update(w, name, new, &current, &bytes).await;
            if let Ok(Some(object)) = written {
                return Ok(Updated {
                    object,
                    created: false,
                });
            }
            if let Some(a) = allocator {
                a.give_back(self, &taken).await;
            }
            written?;
        }
        Err(Error::conflict_modified(
            self.group(),
            self.resource(),
            name,
        ))
    }

    fn check_name(&self, obj: &Value, name: &str) -> Result<()> {
        let body_name = meta::name(obj);
        if body_name != name {
            return Err(Error::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        Ok(())
    }

    /// A resourceVersion in the new object is a precondition; none at all is refused for
    /// kinds without unconditional updates (custom resources, R8.13).
    fn check_resource_version(&self, new: &Value, current: &Stored) -> Result<()> {
        let rv = meta::resource_version(new);
        if rv.is_empty() {
            if self.entry.strategy.allow_unconditional_update() {
                return Ok(());
            }
            return Err(Error::invalid(
                self.group(),
                self.resource(),
                meta::name(new),
                vec![StatusCause {
                    reason: "FieldValueInvalid".into(),
                    message: "Invalid value: 0: must be specified for an update".into(),
                    field: "metadata.resourceVersion".into(),
                }],
            ));
        }
        if rv != current.revision.to_string() {
            return Err(Error::conflict_modified(
                self.group(),
                self.resource(),
                meta::name(new),
            ));
        }
        Ok(())
    }

    /// `metadata.uid` may be left out of an update, not changed (R8.14).
    fn check_uid(&self, new: &Value, old: &Value) -> Result<()> {
        let uid = meta::meta_str(new, "uid");
        if uid.is_empty() || uid == meta::meta_str(old, "uid") {
            return Ok(());
        }
        Err(self.invalid(
            new,
            vec![StatusCause {
                reason: "FieldValueInvalid".into(),
                message: format!(
                    "Invalid value: {}: field is immutable",
                    Value::String(uid.to_owned())
                ),
                field: "metadata.uid".into(),
            }],
        ))
    }

    /// Writes `new` over `current` with compare-and-swap; `Ok(None)` when another write
    /// came first. A no-op update writes nothing (unless the stored bytes are in an older
    /// storage version); an object being deleted whose finalizers are gone is deleted
    /// instead (R8.24).
    async fn store_update(
        &self,
        w: &WriteContext,
        name: &str,
        mut new: Value,
        current: &Stored,
        stored_bytes: &[u8],
    ) -> Result<Option<Value>> {
        let key = self.entry.key(w.namespace.as_deref(), name);
        let mut old_cmp = current.object.clone();
        meta::set_meta(&mut old_cmp, "resourceVersion", None);
        meta::set_meta(&mut new, "resourceVersion", None);
        if new == old_cmp && self.entry.codec.is_stored_current(stored_bytes) {
            return Ok(Some(current.object.clone()));
        }
        if w.dry_run {
            meta::set_meta(
                &mut new,
                "resourceVersion",
                Some(json!(current.revision.to_string())),
            );
            return Ok(Some(new));
        }
        let deleting = !meta::meta_str(&new, "deletionTimestamp").is_empty();
        if deleting
            && meta::finalizers(&new).is_empty()
            && !self.grace_pending(&new)
            && !self.entry.strategy.blocks_deletion(&new)
        {
            return match self
                .store
                .delete(key.as_bytes(), Some(current.revision))
                .await
            {
                Ok(resp) => {
                    self.released(&current.object, None).await;
                    let mut gone = self.decode(&resp.prev).await?;
                    meta::set_meta(
                        &mut gone,
                        "resourceVersion",
                        Some(json!(resp.revision.to_string())),
                    );
                    Ok(Some(gone))
                }
                Err(StoreError::Conflict { .. }) => Ok(None),
                Err(e) => Err(self.store_error(e, name)),
            };
        }
        let bytes = self.entry.codec.encode_for_storage(&new).await?;
        match self
            .store
            .update(key.as_bytes(), bytes, current.revision)
            .await
        {
            Ok(kv) => {
                self.released(&current.object, Some(&new)).await;
                self.decode(&kv).await.map(Some)
            }
            Err(StoreError::Conflict { .. }) => Ok(None),
            Err(e) => Err(self.store_error(e, name)),
        }
    }

    /// Tells the entry's allocator what `old` held that `new` (None: gone) no longer does.
    async fn released(&self, old: &Value, new: Option<&Value>) {
        if let Some(allocator) = self.entry.strategy.allocator() {
            allocator.release(self, old, new).await;
        }
    }

    /// The storage root (`/registry`) above this entry's prefix.
    pub fn storage_root(&self) -> &str {
        let prefix = &self.entry.storage_prefix;
        let own = if self.group().is_empty() {
            format!("/{}", self.resource())
        } else {
            format!("/{}/{}", self.group(), self.resource())
        };
        prefix.strip_suffix(own.as_str()).unwrap_or(prefix)
    }

    /// The REST store of another resource of the same registry snapshot.
    fn other(&self, r: ResourceRef<'_>) -> Result<RestStore<'a>> {
        let entry = self
            .table
            .get(r.group, r.version, r.plural)
            .ok_or_else(|| Error::internal(format!("{}.{} is not served", r.plural, r.group)))?;
        Ok(RestStore::new(self.store, self.table, entry))
    }

    /// Whether a graceful deletion still waits for its grace period (kinds with one).
    fn grace_pending(&self, obj: &Value) -> bool {
        meta::nested(obj, &["metadata", "deletionGracePeriodSeconds"])
            .and_then(Value::as_i64)
            .is_some_and(|g| g > 0)
    }

    /// DELETE of one object: preconditions (409), then — by finalizers, propagation policy,
    /// the kind's grace period and namespace finalization — either marks it as being deleted
    /// or removes it, with compare-and-swap and the same retry as updates (R8.22–R8.24).
    pub async fn delete(
        &self,
        w: &WriteContext,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted> {
        let ns = w.namespace.as_deref();
        let w = &WriteContext {
            dry_run: w.dry_run || opts.dry_run,
            ..w.clone()
        };
        for _attempt in 0..MAX_ATTEMPTS {
            let (current, bytes) = self
                .read(ns, name)
                .await?
                .ok_or_else(|| self.not_found(name))?;
            namespace::admit_delete(self.entry, name)?;
            self.check_preconditions(opts, &current.object, name)?;
            self.admit_delete(w, &current.object).await?;
            let strategy = &self.entry.strategy;
            let finalizer = match opts.propagation {
                Some(Propagation::Foreground) => Some("foregroundDeletion"),
                Some(Propagation::Orphan) => Some("orphan"),
                _ if opts.orphan_dependents == Some(true) => Some("orphan"),
                _ => strategy.delete_finalizer(),
            };
            let grace = strategy.grace_period_seconds(&current.object, opts.grace_period_seconds);
            let pending = strategy.on_delete_finalizes_content()
                || !meta::finalizers(&current.object).is_empty()
                || finalizer.is_some()
                || grace.is_some_and(|g| g > 0);
            if pending {
                let accepted = opts.orphan_dependents == Some(false)
                    && !strategy.on_delete_finalizes_content();
                let marked = self.mark_deleting(&current, finalizer, grace.unwrap_or(0));
                if let Some(object) = self.store_update(w, name, marked, &current, &bytes).await? {
                    if meta::meta_str(&object, "deletionTimestamp").is_empty() {
                        // Nothing pending after all (a no-op mark): it is gone.
                        return Ok(Deleted::Removed(object));
                    }
                    return Ok(Deleted::Pending { object, accepted });
                }
                continue;
            }
            if w.dry_run {
                return Ok(Deleted::Removed(current.object));
            }
            let key = self.entry.key(ns, name);
            match self
                .store
                .delete(key.as_bytes(), Some(current.revision))
                .await
            {
                Ok(gone) => {
                    self.released(&current.object, None).await;
                    // As etcd3's store decodes it: the last state at the deletion's revision.
                    let mut object = current.object;
                    let revision = json!(gone.revision.to_string());
                    meta::set_meta(&mut object, "resourceVersion", Some(revision));
                    return Ok(Deleted::Removed(object));
                }
                Err(StoreError::Conflict { .. }) => continue,
                Err(e) => return Err(self.store_error(e, name)),
            }
        }
        Err(Error::conflict_modified(
            self.group(),
            self.resource(),
            name,
        ))
    }

    /// DELETE of a collection (kube's `DeleteCollection`): every object under `w.namespace`
    /// (every namespace when `None`) that `selected` keeps, each deleted as a single delete
    /// would be; one gone or changed meanwhile is skipped. Without `selected` nothing is
    /// decoded up front (the names come from the keys). The objects deleted or now being
    /// deleted, and the revision the collection was read at.
    pub async fn delete_collection(
        &self,
        w: &WriteContext,
        opts: &DeleteOptions,
        selected: Option<&(dyn Fn(&Value) -> bool + Send + Sync)>,
    ) -> Result<DeletedCollection> {
        let prefix = self.entry.collection_prefix(w.namespace.as_deref());
        let listed = self
            .store
            .range(kapi_storage::RangeRequest::prefix(prefix.as_bytes()))
            .await?;
        // (namespace, name, revision as listed) of each object to delete.
        let mut targets: Vec<(Option<String>, String, i64)> = Vec::new();
        match selected {
            None => {
                let all = self.entry.collection_prefix(None);
                for kv in &listed.kvs {
                    let Some(path) = std::str::from_utf8(&kv.key)
                        .ok()
                        .and_then(|k| k.strip_prefix(&all))
                    else {
                        continue;
                    };
                    let (ns, name) = match path.split_once('/') {
                        Some((ns, name)) if self.entry.namespaced() => {
                            (Some(ns.to_owned()), name.to_owned())
                        }
                        _ => (None, path.to_owned()),
                    };
                    targets.push((ns, name, kv.mod_revision));
                }
            }
            Some(keep) => {
                let values: Vec<&[u8]> = listed.kvs.iter().map(|kv| kv.value.as_slice()).collect();
                let decoded = self.entry.codec.decode_stored_many(&values).await?;
                for (obj, kv) in decoded.iter().zip(&listed.kvs) {
                    if keep(obj) {
                        let ns = meta::namespace(obj);
                        let ns = (self.entry.namespaced() && !ns.is_empty()).then(|| ns.to_owned());
                        targets.push((ns, meta::name(obj).to_owned(), kv.mod_revision));
                    }
                }
            }
        }
        let mut items = Vec::with_capacity(targets.len());
        let mut pending = 0;
        for (namespace, name, listed_revision) in targets {
            let one = WriteContext {
                namespace,
                ..w.clone()
            };
            match self.delete(&one, &name, opts).await {
                // As kube's DeleteCollection answers: the objects as listed, not at the
                // revision of their deletion.
                Ok(Deleted::Removed(mut obj)) => {
                    let rv = json!(listed_revision.to_string());
                    meta::set_meta(&mut obj, "resourceVersion", Some(rv));
                    items.push(obj);
                }
                Ok(Deleted::Pending { object, .. }) => {
                    pending += 1;
                    items.push(object);
                }
                Err(Error::NotFound { .. } | Error::Conflict { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(DeletedCollection {
            items,
            revision: listed.revision,
            pending,
        })
    }

    fn check_preconditions(&self, opts: &DeleteOptions, obj: &Value, name: &str) -> Result<()> {
        let fail = |what: &str, want: &str, have: &str| {
            Error::conflict(
                self.group(),
                self.resource(),
                name,
                &format!(
                    "Precondition failed: {what} in precondition: {want}, {what} in object meta: {have}"
                ),
            )
        };
        if let Some(uid) = &opts.precondition_uid
            && uid != meta::meta_str(obj, "uid")
        {
            return Err(fail("UID", uid, meta::meta_str(obj, "uid")));
        }
        if let Some(rv) = &opts.precondition_resource_version
            && rv != meta::resource_version(obj)
        {
            return Err(fail("ResourceVersion", rv, meta::resource_version(obj)));
        }
        Ok(())
    }

    /// The object marked as being deleted: deletionTimestamp and deletionGracePeriodSeconds
    /// (an object already waiting for a longer grace period has both brought forward, as
    /// only a shorter period may be asked for), generation bumped, the propagation
    /// finalizer added.
    fn mark_deleting(&self, current: &Stored, finalizer: Option<&str>, grace: i64) -> Value {
        let mut obj = current.object.clone();
        let pending_grace =
            meta::nested(&obj, &["metadata", "deletionGracePeriodSeconds"]).and_then(Value::as_i64);
        let deleting_at =
            chrono::DateTime::parse_from_rfc3339(meta::meta_str(&obj, "deletionTimestamp"));
        if let (Some(pending), Ok(at)) = (pending_grace, deleting_at)
            && grace < pending
        {
            let at = at + chrono::Duration::seconds(grace - pending);
            meta::set_meta(
                &mut obj,
                "deletionTimestamp",
                Some(json!(
                    at.to_utc()
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                )),
            );
            meta::set_meta(&mut obj, "deletionGracePeriodSeconds", Some(json!(grace)));
        }
        if meta::meta_str(&obj, "deletionTimestamp").is_empty() {
            let at = chrono::Utc::now() + chrono::Duration::seconds(grace);
            meta::set_meta(
                &mut obj,
                "deletionTimestamp",
                Some(json!(at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))),
            );
            meta::set_meta(&mut obj, "deletionGracePeriodSeconds", Some(json!(grace)));
            if self.entry.strategy.tracks_generation() {
                let g = meta::nested(&obj, &["metadata", "generation"])
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                meta::set_meta(&mut obj, "generation", Some(json!(g + 1)));
            }
        }
        if let Some(f) = finalizer {
            let mut fs = meta::finalizers(&obj);
            if !fs.iter().any(|x| x == f) {
                fs.push(f.to_owned());
                meta::set_meta(&mut obj, "finalizers", Some(json!(fs)));
            }
        }
        if self.entry.strategy.on_delete_finalizes_content()
            && let Some(map) = obj.as_object_mut()
        {
            map.insert("status".into(), json!({"phase": "Terminating"}));
        }
        obj
    }
}

/// The server's own writes of other objects (a Service's IPAddresses), through their REST
/// stores.
#[async_trait::async_trait]
impl Objects for RestStore<'_> {
    async fn create_object(
        &self,
        resource: ResourceRef<'_>,
        namespace: Option<&str>,
        obj: Value,
    ) -> Result<Value> {
        let w = WriteContext {
            namespace: namespace.map(str::to_owned),
            manager: "kube-apiserver".into(),
            ..WriteContext::default()
        };
        self.other(resource)?.create(&w, obj).await
    }

    async fn get_object(
        &self,
        resource: ResourceRef<'_>,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Option<Value>> {
        let rest = self.other(resource)?;
        Ok(rest.get(namespace, name).await?.map(|s| s.object))
    }

    async fn delete_object(
        &self,
        resource: ResourceRef<'_>,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<()> {
        let w = WriteContext {
            namespace: namespace.map(str::to_owned),
            manager: "kube-apiserver".into(),
            ..WriteContext::default()
        };
        match self
            .other(resource)?
            .delete(&w, name, &DeleteOptions::default())
            .await
        {
            Ok(_) | Err(Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn store(&self) -> &dyn Store {
        self.store
    }

    fn storage_root(&self) -> &str {
        RestStore::storage_root(self)
    }
}
