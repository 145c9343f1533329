//! Conversion through the Scheme: pairwise functions, the internal hub as a fallback path,
//! `convert`, `convert_to_version` (copying) and `unsafe_convert_to_version` (moving),
//! and typed ⇄ unstructured (R1.12–R1.14).

use super::error::{Error, Result};
use super::object::{Object, downcast};
use super::scheme::{AnyConsumer, ConvertFn, HubFirst, Route, Scheme, TargetPlan, TypedConsumer};
use super::unstructured::{Unstructured, UnstructuredList};
use crate::schema::{GroupVersion, GroupVersionKind, GroupVersioner, INTERNAL_VERSION};
use std::any::{Any, TypeId};
use std::sync::Arc;

fn type_id_of(obj: &dyn Object) -> TypeId {
    (obj as &dyn Any).type_id()
}

fn is_unstructured(obj: &dyn Object) -> bool {
    obj.is::<Unstructured>() || obj.is::<UnstructuredList>()
}

impl Scheme {
    /// Registers a conversion from `A` to `B`. It takes `A` by value so that the moving
    /// conversion moves fields; the copying one clones first (R1.12). Conversions between
    /// two external versions fall back to going through the group's internal (hub) type.
    pub fn add_conversion_func<A: Object, B: Object>(
        &mut self,
        f: impl Fn(A) -> Result<B> + Send + Sync + 'static,
    ) {
        let f = Arc::new(f);
        let key = (TypeId::of::<A>(), TypeId::of::<B>());
        let g = f.clone();
        let erased: ConvertFn = Arc::new(move |input: Box<dyn Object>| {
            Ok(Box::new(g(take::<A>(input)?)?) as Box<dyn Object>)
        });
        let g = f.clone();
        let consumer: TypedConsumer<A> =
            Arc::new(move |a: A| Ok(Box::new(g(a)?) as Box<dyn Object>));
        let first: HubFirst = Arc::new(move |input, second| {
            let second = second
                .downcast_ref::<TypedConsumer<B>>()
                .ok_or_else(|| Error::Conversion("hub route of mismatched types".into()))?;
            second(f(take::<A>(input)?)?)
        });
        self.conversions.insert(key, erased);
        self.consumers.insert(key, Arc::new(consumer));
        self.hub_firsts.insert(key, first);
        self.clear_routes();
    }

    /// The path through the hub of `to`'s group, when both halves are registered.
    fn hub_path(&self, from: TypeId, to: TypeId) -> Option<(HubFirst, AnyConsumer)> {
        let gvks = self.type_to_gvks.get(&to)?;
        gvks.iter().find_map(|gvk| {
            let hub_gvk =
                GroupVersionKind::new(gvk.group.clone(), INTERNAL_VERSION, gvk.kind.clone());
            let hub = self.gvk_to_type.get(&hub_gvk)?;
            let first = self.hub_firsts.get(&(from, *hub))?;
            let second = self.consumers.get(&(*hub, to))?;
            Some((first.clone(), second.clone()))
        })
    }

    /// How `from` converts to `to`: a direct function first, else through the hub.
    fn resolve_route(&self, from: TypeId, to: TypeId) -> Route {
        if let Some(f) = self.conversions.get(&(from, to)) {
            return Route::Direct(f.clone());
        }
        match self.hub_path(from, to) {
            Some((first, second)) => Route::Hub(first, second),
            None => Route::Unknown,
        }
    }

    /// [`Scheme::resolve_route`], cached: registrations are over before conversions run,
    /// so after the first call per pair this is one read-locked lookup.
    fn route(&self, from: TypeId, to: TypeId) -> Route {
        let cached = match self.routes.read() {
            Ok(routes) => routes.get(&(from, to)).cloned(),
            Err(poisoned) => poisoned.into_inner().get(&(from, to)).cloned(),
        };
        if let Some(route) = cached {
            return route;
        }
        let route = self.resolve_route(from, to);
        let mut routes = match self.routes.write() {
            Ok(routes) => routes,
            Err(poisoned) => poisoned.into_inner(),
        };
        routes.insert((from, to), route.clone());
        route
    }

    /// Converts `input` (moved) into a value of the type `to`; `to_name` names it in the
    /// error.
    fn convert_boxed(
        &self,
        input: Box<dyn Object>,
        to: TypeId,
        to_name: &dyn Fn() -> &'static str,
    ) -> Result<Box<dyn Object>> {
        let from = type_id_of(&*input);
        if from == to {
            return Ok(input);
        }
        run_route(input, &self.route(from, to), to_name)
    }

    /// Converts `input` into `out`'s type and stores it in `out` (R1.13). `target` is needed
    /// only to turn an internal object into Unstructured.
    pub fn convert(
        &self,
        input: &dyn Object,
        out: &mut dyn Object,
        target: Option<&dyn GroupVersioner>,
    ) -> Result<()> {
        let out_unstructured = is_unstructured(out);
        if is_unstructured(input) && out_unstructured {
            let value = input.to_json_value()?;
            return out.decode_json_value(value);
        }
        if out_unstructured {
            return self.convert_typed_to_unstructured(input, out, target);
        }
        let typed = if is_unstructured(input) {
            self.unstructured_to_typed(input)?
        } else {
            input.clone_object()
        };
        let out_name = out.type_name();
        let converted = self.convert_boxed(typed, type_id_of(out), &|| out_name)?;
        out.assign_from(converted)
            .map_err(|o| Error::Conversion(format!("conversion produced a {}", o.type_name())))
    }

    fn convert_typed_to_unstructured(
        &self,
        input: &dyn Object,
        out: &mut dyn Object,
        target: Option<&dyn GroupVersioner>,
    ) -> Result<()> {
        let (gvks, unversioned) = self.object_kinds(input)?;
        let external = if unversioned || gvks[0].version != INTERNAL_VERSION {
            let mut copy = input.clone_object();
            copy.set_group_version_kind(&gvks[0]);
            copy
        } else {
            let target = target.ok_or_else(|| {
                Error::Conversion(format!(
                    "unable to convert the internal object type {} to Unstructured without providing a preferred version to convert to",
                    input.type_name()
                ))
            })?;
            self.unsafe_convert_to_version(input.clone_object(), target)?
        };
        out.decode_json_value(external.to_json_value()?)
    }

    /// The typed object for an Unstructured one, through its GVK.
    fn unstructured_to_typed(&self, input: &dyn Object) -> Result<Box<dyn Object>> {
        let (gvks, _) = self.object_kinds(input)?;
        let mut typed = self.new_object(&gvks[0])?;
        typed.decode_json_value(input.to_json_value()?)?;
        typed.set_group_version_kind(&gvks[0]);
        Ok(typed)
    }

    /// Copies `input` converted to the version `target` picks (R1.14).
    pub fn convert_to_version(
        &self,
        input: &dyn Object,
        target: &dyn GroupVersioner,
    ) -> Result<Box<dyn Object>> {
        self.unsafe_convert_to_version(input.clone_object(), target)
    }

    /// Converts `input` to the version `target` picks, moving instead of copying (R1.14).
    pub fn unsafe_convert_to_version(
        &self,
        input: Box<dyn Object>,
        target: &dyn GroupVersioner,
    ) -> Result<Box<dyn Object>> {
        let input = if is_unstructured(&*input) {
            self.unstructured_to_typed(&*input)?
        } else {
            input
        };
        let from = type_id_of(&*input);
        let gv = target.as_group_version();
        if let Some(gv) = gv
            && let Some(plan) = self.cached_plan(from, gv)
        {
            return self.run_plan(input, &plan);
        }
        let plan = Arc::new(self.plan(&*input, target)?);
        if let Some(gv) = gv {
            self.store_plan(from, gv, plan.clone());
        }
        self.run_plan(input, &plan)
    }

    /// What converting `input`'s type to `target` takes (R1.14 steps 2–6).
    fn plan(&self, input: &dyn Object, target: &dyn GroupVersioner) -> Result<TargetPlan> {
        let (kinds, unversioned) = self.object_kinds_ref(input)?;
        let Some(gvk) = target.kind_for_group_version_kinds(&kinds) else {
            if unversioned {
                return Ok(TargetPlan::SetKind(kinds[0].clone()));
            }
            return Err(Error::NotRegisteredTypeForTarget {
                type_name: input.type_name().to_string(),
                target: target.identifier(),
                scheme: self.name.clone(),
            });
        };
        if kinds.contains(&gvk) || unversioned {
            return Ok(TargetPlan::SetKind(gvk));
        }
        let to = *self
            .gvk_to_type
            .get(&gvk)
            .ok_or_else(|| self.not_registered_kind(&gvk))?;
        let route = self.route(type_id_of(input), to);
        Ok(TargetPlan::Convert { gvk, to, route })
    }

    fn run_plan(&self, input: Box<dyn Object>, plan: &TargetPlan) -> Result<Box<dyn Object>> {
        match plan {
            TargetPlan::SetKind(gvk) => Ok(set_target_kind(input, gvk)),
            TargetPlan::Convert { gvk, to, route } => {
                let out = if type_id_of(&*input) == *to {
                    input
                } else {
                    let out_name = || self.factories.get(to).map_or("?", |f| f.1);
                    run_route(input, route, &out_name)?
                };
                Ok(set_target_kind(out, gvk))
            }
        }
    }

    fn cached_plan(&self, from: TypeId, gv: &GroupVersion) -> Option<Arc<TargetPlan>> {
        let plans = match self.plans.read() {
            Ok(plans) => plans,
            Err(poisoned) => poisoned.into_inner(),
        };
        plans
            .get(&from)?
            .iter()
            .find(|(g, _)| g == gv)
            .map(|(_, plan)| plan.clone())
    }

    fn store_plan(&self, from: TypeId, gv: &GroupVersion, plan: Arc<TargetPlan>) {
        let mut plans = match self.plans.write() {
            Ok(plans) => plans,
            Err(poisoned) => poisoned.into_inner(),
        };
        let list = plans.entry(from).or_default();
        if !list.iter().any(|(g, _)| g == gv) {
            list.push((gv.clone(), plan));
        }
    }

    /// The Unstructured form of a typed object, with its GVK set (the first registered
    /// kind when the object carries none).
    pub fn to_unstructured(&self, obj: &dyn Object) -> Result<Unstructured> {
        let mut u = Unstructured::from_value(obj.to_json_value()?)?;
        if obj.kind().is_empty()
            && let Ok((gvks, _)) = self.object_kinds(obj)
            && gvks[0].version != INTERNAL_VERSION
        {
            u.set_group_version_kind(&gvks[0]);
        }
        Ok(u)
    }

    /// The typed object registered for an Unstructured object's GVK.
    pub fn from_unstructured(&self, u: &dyn Object) -> Result<Box<dyn Object>> {
        self.unstructured_to_typed(u)
    }
}

/// The boxed input of a conversion function, moved out of its box.
fn take<A: Object>(input: Box<dyn Object>) -> Result<A> {
    downcast::<A>(input)
        .map(|a| *a)
        .map_err(|o| Error::Conversion(format!("conversion function got a {}", o.type_name())))
}

/// Runs a resolved route on `input`; `to_name` names the target type in the error.
fn run_route(
    input: Box<dyn Object>,
    route: &Route,
    to_name: &dyn Fn() -> &'static str,
) -> Result<Box<dyn Object>> {
    match route {
        Route::Direct(f) => f(input),
        Route::Hub(first, second) => first(input, &**second),
        Route::Unknown => Err(Error::Conversion(format!(
            "converting ({}) to ({}): unknown conversion",
            input.type_name(),
            to_name()
        ))),
    }
}

/// Sets the GVK after conversion; the internal version clears it (R1.14 step 7).
fn set_target_kind(mut obj: Box<dyn Object>, gvk: &GroupVersionKind) -> Box<dyn Object> {
    if gvk.version == INTERNAL_VERSION {
        obj.set_api_version_and_kind(String::new(), String::new());
    } else {
        obj.set_group_version_kind(gvk);
    }
    obj
}
