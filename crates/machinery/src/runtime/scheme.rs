//! The Scheme: which Rust type is which GroupVersionKind, plus defaulting, field-label and
//! conversion functions and version priority (R1.1–R1.19).
//!
//! Registration is generic (`add_known_type::<T>(gvk)`), no reflection. Conversion lives in
//! `scheme_convert.rs`, version priority in `scheme_versions.rs`.

use super::error::{Error, Result};
use super::fast_hash::{FastMap, FastSet};
use super::object::Object;
use super::unstructured::{Unstructured, UnstructuredList};
use crate::schema::{GroupVersion, GroupVersionKind, INTERNAL_VERSION};
use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

type Factory = fn() -> Box<dyn Object>;
pub(super) type DefaultFn = Arc<dyn Fn(&mut dyn Object) + Send + Sync>;
pub(super) type ConvertFn = Arc<dyn Fn(Box<dyn Object>) -> Result<Box<dyn Object>> + Send + Sync>;
/// A conversion taking `A` by value (kept behind `dyn Any` as the second half of hub routes,
/// so that the hub value never needs a box of its own).
pub(super) type TypedConsumer<A> = Arc<dyn Fn(A) -> Result<Box<dyn Object>> + Send + Sync>;
/// A type-erased [`TypedConsumer`].
pub(super) type AnyConsumer = Arc<dyn std::any::Any + Send + Sync>;
/// The first half of a hub route: converts the boxed input to the hub and hands the hub, by
/// value, to the second half (a `TypedConsumer<Hub>` behind `dyn Any`).
pub(super) type HubFirst = Arc<
    dyn Fn(Box<dyn Object>, &(dyn std::any::Any + Send + Sync)) -> Result<Box<dyn Object>>
        + Send
        + Sync,
>;
type FieldLabelFn = Arc<dyn Fn(&str, &str) -> Result<(String, String)> + Send + Sync>;

/// A resolved conversion path between two types (cached in `Scheme::routes`).
#[derive(Clone)]
pub(super) enum Route {
    /// A registered pairwise function.
    Direct(ConvertFn),
    /// Through the group's internal (hub) type: the first half, then the second.
    Hub(HubFirst, AnyConsumer),
    /// No conversion known.
    Unknown,
}

/// What converting one type to one target comes down to (cached in `Scheme::plans`).
pub(super) enum TargetPlan {
    /// The type is already registered as a kind the target accepts: only set the GVK.
    SetKind(GroupVersionKind),
    /// Convert to the type `to` along `route`, then set the GVK.
    Convert {
        gvk: GroupVersionKind,
        to: TypeId,
        route: Route,
    },
}

/// Cached plans per source type: `(target group version, plan)`, scanned linearly.
pub(super) type PlanCache = FastMap<TypeId, Vec<(GroupVersion, Arc<TargetPlan>)>>;

/// A registry of API types keyed by GroupVersionKind.
pub struct Scheme {
    pub(super) name: String,
    pub(super) gvk_to_type: FastMap<GroupVersionKind, TypeId>,
    pub(super) type_to_gvks: FastMap<TypeId, Vec<GroupVersionKind>>,
    pub(super) factories: FastMap<TypeId, (Factory, &'static str)>,
    pub(super) unversioned_types: FastSet<TypeId>,
    unversioned_kinds: FastMap<String, TypeId>,
    defaulters: FastMap<TypeId, DefaultFn>,
    field_label_fns: FastMap<GroupVersionKind, FieldLabelFn>,
    pub(super) conversions: FastMap<(TypeId, TypeId), ConvertFn>,
    /// Per registered `(A, B)`: the function as a `TypedConsumer<A>`.
    pub(super) consumers: FastMap<(TypeId, TypeId), AnyConsumer>,
    /// Per registered `(A, B)`: the function as the first half of a route through `B`.
    pub(super) hub_firsts: FastMap<(TypeId, TypeId), HubFirst>,
    /// How `(from, to)` converts, filled on first use; cleared by every registration.
    pub(super) routes: RwLock<FastMap<(TypeId, TypeId), Route>>,
    /// How a type converts to a group version, filled on first use; cleared with `routes`.
    pub(super) plans: RwLock<PlanCache>,
    pub(super) version_priority: HashMap<String, Vec<String>>,
    pub(super) observed_versions: Vec<GroupVersion>,
}

impl std::fmt::Debug for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheme")
            .field("name", &self.name)
            .field("kinds", &self.gvk_to_type.len())
            .finish()
    }
}

fn factory<T: Object + Default>() -> Box<dyn Object> {
    Box::new(T::default())
}

impl Scheme {
    /// An empty scheme; `name` appears in error messages (R1.1).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            gvk_to_type: FastMap::default(),
            type_to_gvks: FastMap::default(),
            factories: FastMap::default(),
            unversioned_types: FastSet::default(),
            unversioned_kinds: FastMap::default(),
            defaulters: FastMap::default(),
            field_label_fns: FastMap::default(),
            conversions: FastMap::default(),
            consumers: FastMap::default(),
            hub_firsts: FastMap::default(),
            routes: RwLock::default(),
            plans: RwLock::default(),
            version_priority: HashMap::new(),
            observed_versions: Vec::new(),
        }
    }

    /// The scheme's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Registers `T` as `gvk` (R1.3): the version is required; the same GVK for a different
    /// type is an error; the same pair again is a no-op; one type may have many GVKs.
    pub fn add_known_type<T: Object + Default>(&mut self, gvk: GroupVersionKind) -> Result<()> {
        if gvk.version.is_empty() {
            return Err(Error::Scheme(format!(
                "version is required on all types: {gvk}"
            )));
        }
        let id = TypeId::of::<T>();
        let type_name = std::any::type_name::<T>();
        if let Some(existing) = self.gvk_to_type.get(&gvk) {
            if *existing == id {
                return Ok(());
            }
            let old = self.factories.get(existing).map(|f| f.1).unwrap_or("?");
            return Err(Error::Scheme(format!(
                "Double registration of different types for {gvk}: old={old}, new={type_name} in scheme {:?}",
                self.name
            )));
        }
        self.add_observed_version(&gvk.group_version());
        self.clear_routes();
        self.gvk_to_type.insert(gvk.clone(), id);
        self.type_to_gvks.entry(id).or_default().push(gvk);
        self.factories.insert(id, (factory::<T>, type_name));
        Ok(())
    }

    /// Registers `T` as `kind` in `gv` and marks it unversioned (R1.4).
    pub fn add_unversioned_type<T: Object + Default>(
        &mut self,
        gv: &GroupVersion,
        kind: &str,
    ) -> Result<()> {
        let id = TypeId::of::<T>();
        if let Some(existing) = self.unversioned_kinds.get(kind)
            && *existing != id
        {
            return Err(Error::Scheme(format!(
                "{kind}.{gv} has already been registered as unversioned kind {kind:?} - kind name must be unique in scheme {:?}",
                self.name
            )));
        }
        self.add_known_type::<T>(gv.with_kind(kind))?;
        self.unversioned_types.insert(id);
        self.unversioned_kinds.insert(kind.to_string(), id);
        Ok(())
    }

    fn add_observed_version(&mut self, gv: &GroupVersion) {
        if gv.version.is_empty() || gv.version == INTERNAL_VERSION {
            return;
        }
        if !self.observed_versions.contains(gv) {
            self.observed_versions.push(gv.clone());
        }
    }

    /// Forgets the cached conversion routes (a registration may change them).
    pub(super) fn clear_routes(&mut self) {
        match self.routes.get_mut() {
            Ok(routes) => routes.clear(),
            Err(poisoned) => poisoned.into_inner().clear(),
        }
        match self.plans.get_mut() {
            Ok(plans) => plans.clear(),
            Err(poisoned) => poisoned.into_inner().clear(),
        }
    }

    /// A fresh zero value of the type registered as `gvk`, or of the unversioned kind (R1.6).
    pub fn new_object(&self, gvk: &GroupVersionKind) -> Result<Box<dyn Object>> {
        let id = self
            .gvk_to_type
            .get(gvk)
            .or_else(|| self.unversioned_kinds.get(&gvk.kind))
            .ok_or_else(|| self.not_registered_kind(gvk))?;
        let (make, _) = self
            .factories
            .get(id)
            .ok_or_else(|| self.not_registered_kind(gvk))?;
        Ok(make())
    }

    pub(super) fn not_registered_kind(&self, gvk: &GroupVersionKind) -> Error {
        Error::NotRegisteredKind {
            gvk: gvk.clone(),
            scheme: self.name.clone(),
        }
    }

    /// All GVKs `obj` is registered as, and whether it is unversioned (R1.7).
    pub fn object_kinds(&self, obj: &dyn Object) -> Result<(Vec<GroupVersionKind>, bool)> {
        self.object_kinds_ref(obj)
            .map(|(kinds, unversioned)| (kinds.into_owned(), unversioned))
    }

    /// [`Scheme::object_kinds`], borrowing the registered list instead of copying it.
    pub(super) fn object_kinds_ref(
        &self,
        obj: &dyn Object,
    ) -> Result<(Cow<'_, [GroupVersionKind]>, bool)> {
        if obj.is::<Unstructured>() || obj.is::<UnstructuredList>() {
            let gvk = obj.group_version_kind();
            if gvk.kind.is_empty() {
                return Err(Error::MissingKind {
                    data: "unstructured object has no kind".into(),
                });
            }
            if gvk.version.is_empty() {
                return Err(Error::MissingVersion {
                    data: "unstructured object has no version".into(),
                });
            }
            return Ok((Cow::Owned(vec![gvk]), false));
        }
        let id = (obj as &dyn std::any::Any).type_id();
        match self.type_to_gvks.get(&id) {
            Some(gvks) => Ok((
                Cow::Borrowed(gvks.as_slice()),
                self.unversioned_types.contains(&id),
            )),
            None => Err(Error::NotRegisteredType {
                type_name: obj.type_name().to_string(),
                scheme: self.name.clone(),
            }),
        }
    }

    /// True only for an exact GVK registration (R1.8).
    pub fn recognizes(&self, gvk: &GroupVersionKind) -> bool {
        self.gvk_to_type.contains_key(gvk)
    }

    /// `(unversioned, registered)` for `obj`'s type (R1.8).
    pub fn is_unversioned(&self, obj: &dyn Object) -> (bool, bool) {
        let id = (obj as &dyn std::any::Any).type_id();
        (
            self.unversioned_types.contains(&id),
            self.type_to_gvks.contains_key(&id),
        )
    }

    /// The kinds registered in `gv`, with the Rust type names.
    pub fn known_types(&self, gv: &GroupVersion) -> Vec<(String, &'static str)> {
        let mut out: Vec<(String, &'static str)> = self
            .gvk_to_type
            .iter()
            .filter(|(gvk, _)| gvk.group == gv.group && gvk.version == gv.version)
            .map(|(gvk, id)| {
                (
                    gvk.kind.clone(),
                    self.factories.get(id).map(|f| f.1).unwrap_or("?"),
                )
            })
            .collect();
        out.sort();
        out
    }

    /// Every registered GVK.
    pub fn all_known_gvks(&self) -> Vec<GroupVersionKind> {
        let mut out: Vec<GroupVersionKind> = self.gvk_to_type.keys().cloned().collect();
        out.sort();
        out
    }

    /// Registers the defaulting function of `T`; the last registration wins (R1.11).
    pub fn add_type_defaulting_func<T: Object>(
        &mut self,
        f: impl Fn(&mut T) + Send + Sync + 'static,
    ) {
        let erased: DefaultFn = Arc::new(move |obj: &mut dyn Object| {
            if let Some(t) = obj.downcast_mut::<T>() {
                f(t);
            }
        });
        self.defaulters.insert(TypeId::of::<T>(), erased);
    }

    /// Applies the defaulting function of `obj`'s type; a no-op when none (R1.11).
    pub fn default(&self, obj: &mut dyn Object) {
        let id = (&*obj as &dyn std::any::Any).type_id();
        if let Some(f) = self.defaulters.get(&id) {
            f(obj);
        }
    }

    /// Registers the field-label conversion function of `gvk` (R1.16).
    pub fn add_field_label_conversion_func(
        &mut self,
        gvk: GroupVersionKind,
        f: impl Fn(&str, &str) -> Result<(String, String)> + Send + Sync + 'static,
    ) {
        self.field_label_fns.insert(gvk, Arc::new(f));
    }

    /// Converts a field selector label for `gvk`; by default only `metadata.name` and
    /// `metadata.namespace` are known (R1.16).
    pub fn convert_field_label(
        &self,
        gvk: &GroupVersionKind,
        label: &str,
        value: &str,
    ) -> Result<(String, String)> {
        if let Some(f) = self.field_label_fns.get(gvk) {
            return f(label, value);
        }
        default_meta_field_selector(label, value)
    }
}

/// The default field-label conversion: `metadata.name` and `metadata.namespace` only (R1.16).
pub fn default_meta_field_selector(label: &str, value: &str) -> Result<(String, String)> {
    match label {
        "metadata.name" | "metadata.namespace" => Ok((label.to_string(), value.to_string())),
        _ => Err(Error::Conversion(format!(
            "{label:?} is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
        ))),
    }
}
