//! `x-kubernetes-validations` (R5.23, R6.19; upstream `schema/cel/validation.go`) evaluated
//! with kube-cel: `self`, `oldSelf` transition rules, `message`, `messageExpression`,
//! `fieldPath` and `reason`, errors worded as kube-apiserver words them.

mod fields;
mod values;

pub use kapi_cel::{EvalError, Expression, Variables};

pub use values::{escape_property_name, parse_go_duration};

use crate::field::{BadValue, ErrorList, ErrorType, FieldError, FieldPath};
use crate::structural::{AdditionalProperties, Structural, ValidationRule};
use kube_cel::KubeCelExt;
use kube_cel::cel::objects::OptionalValue;
use kube_cel::cel::{Context, Program, Value as CelValue};
use serde_json::Value;
use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::sync::Arc;
use values::to_cel_projected;

thread_local! {
    /// One context with every kube-cel function per thread; evaluations use child scopes.
    static BASE: Context<'static> = Context::default().with_all();
}

/// A rule compiled once per CRD load.
#[derive(Debug)]
struct CompiledRule {
    rule: ValidationRule,
    program: Result<Program, String>,
    message_program: Option<Program>,
    uses_old_self: bool,
    field_path: String,
}

/// The rules of one schema node and of the nodes below it that have rules.
#[derive(Debug, Default)]
struct RuleTree {
    rules: Vec<CompiledRule>,
    /// Top-level fields of `self` the rules read (`None`: all of it).
    self_fields: Option<BTreeSet<String>>,
    /// Same for `oldSelf`.
    old_fields: Option<BTreeSet<String>>,
    properties: BTreeMap<String, RuleTree>,
    additional: Option<Box<RuleTree>>,
    items: Option<Box<RuleTree>>,
}

impl RuleTree {
    fn build(s: &Structural) -> Option<Self> {
        let properties: BTreeMap<String, RuleTree> = s
            .properties
            .iter()
            .filter_map(|(k, p)| Self::build(p).map(|t| (k.clone(), t)))
            .collect();
        let additional = match &s.additional_properties {
            Some(AdditionalProperties::Schema(ap)) => Self::build(ap).map(Box::new),
            _ => None,
        };
        let items = s.items.as_deref().and_then(Self::build).map(Box::new);
        let rules: Vec<CompiledRule> = s.validations.iter().map(compile_rule).collect();
        if rules.is_empty() && properties.is_empty() && additional.is_none() && items.is_none() {
            return None;
        }
        let (self_fields, old_fields) = needed_fields(&rules);
        Some(Self {
            rules,
            self_fields,
            old_fields,
            properties,
            additional,
            items,
        })
    }
}

fn needed_fields(rules: &[CompiledRule]) -> (Option<BTreeSet<String>>, Option<BTreeSet<String>>) {
    let mut self_fields = Some(BTreeSet::new());
    let mut old_fields = Some(BTreeSet::new());
    let programs = rules.iter().flat_map(|r| {
        r.program
            .as_ref()
            .ok()
            .into_iter()
            .chain(r.message_program.as_ref())
    });
    for p in programs {
        self_fields = fields::union(self_fields, fields::selected_fields(p.expression(), "self"));
        old_fields = fields::union(
            old_fields,
            fields::selected_fields(p.expression(), "oldSelf"),
        );
    }
    (self_fields, old_fields)
}

fn compile_rule(rule: &ValidationRule) -> CompiledRule {
    let program = Program::compile(&rule.rule).map_err(|e| e.to_string());
    let uses_old_self = program
        .as_ref()
        .is_ok_and(|p| p.references().has_variable("oldSelf"));
    let message_program = (!rule.message_expression.is_empty())
        .then(|| Program::compile(&rule.message_expression).ok())
        .flatten();
    CompiledRule {
        rule: rule.clone(),
        program,
        message_program,
        uses_old_self,
        field_path: normalize_field_path(&rule.field_path),
    }
}

/// `.spec.x['a.b']` → `spec.x[a.b]` (the form upstream appends to the error path).
fn normalize_field_path(p: &str) -> String {
    let trimmed = p.strip_prefix('.').unwrap_or(p);
    trimmed.replace("['", "[").replace("']", "]")
}

/// Evaluates every `x-kubernetes-validations` rule of a version's schema.
#[derive(Debug)]
pub struct CelValidator {
    schema: Structural,
    rules: Option<RuleTree>,
}

impl CelValidator {
    /// Compiles the rules of `schema` (compile errors surface when the rule runs).
    pub fn new(schema: &Structural) -> Self {
        Self {
            rules: RuleTree::build(schema),
            schema: schema.clone(),
        }
    }

    /// Whether the schema has any rule.
    pub fn has_rules(&self) -> bool {
        self.rules.is_some()
    }

    /// Validates `obj` (the whole custom resource); `old` is the stored object on update.
    pub fn validate(&self, obj: &Value, old: Option<&Value>) -> ErrorList {
        let mut errs = ErrorList::new();
        if let Some(tree) = &self.rules {
            walk(
                &self.schema,
                tree,
                &FieldPath::root(),
                obj,
                old,
                true,
                &mut errs,
            );
        }
        errs
    }
}

fn walk(
    s: &Structural,
    tree: &RuleTree,
    path: &FieldPath,
    obj: &Value,
    old: Option<&Value>,
    root: bool,
    errs: &mut ErrorList,
) {
    if obj.is_null() {
        return;
    }
    if !tree.rules.is_empty() {
        evaluate_rules(s, tree, path, obj, old, root, errs);
    }
    match obj {
        Value::Object(map) => {
            let correlatable = matches!(
                s.map_type.as_deref(),
                None | Some("granular") | Some("atomic")
            );
            let old_map = old.and_then(Value::as_object).filter(|_| correlatable);
            if let (Some(sub), Some(AdditionalProperties::Schema(ap))) =
                (&tree.additional, &s.additional_properties)
            {
                for (k, v) in map.iter().filter(|(k, _)| !s.properties.contains_key(*k)) {
                    walk(
                        ap,
                        sub,
                        &path.key(k),
                        v,
                        old_map.and_then(|m| m.get(k)),
                        false,
                        errs,
                    );
                }
            }
            for (k, sub) in &tree.properties {
                if let (Some(v), Some(ps)) = (map.get(k), s.properties.get(k)) {
                    walk(
                        ps,
                        sub,
                        &path.child(k),
                        v,
                        old_map.and_then(|m| m.get(k)),
                        false,
                        errs,
                    );
                }
            }
        }
        Value::Array(items) => {
            let (Some(sub), Some(item_schema)) = (&tree.items, s.items.as_deref()) else {
                return;
            };
            let old_items = old.and_then(Value::as_array);
            for (i, v) in items.iter().enumerate() {
                let old_item = correlate_list_item(s, v, old_items);
                walk(item_schema, sub, &path.index(i), v, old_item, false, errs);
            }
        }
        _ => {}
    }
}

/// Only list-type map items correlate with their old selves (by their keys).
fn correlate_list_item<'a>(
    s: &Structural,
    item: &Value,
    old: Option<&'a Vec<Value>>,
) -> Option<&'a Value> {
    if s.list_type.as_deref() != Some("map") || s.list_map_keys.is_empty() {
        return None;
    }
    old?.iter()
        .find(|o| s.list_map_keys.iter().all(|k| o.get(k) == item.get(k)))
}

fn type_value(s: &Structural) -> Value {
    Value::String(s.type_name.clone())
}

fn evaluate_rules(
    s: &Structural,
    tree: &RuleTree,
    path: &FieldPath,
    obj: &Value,
    old: Option<&Value>,
    root: bool,
    errs: &mut ErrorList,
) {
    let self_val = to_cel_projected(obj, Some(s), root, tree.self_fields.as_ref());
    let old_val = old.map(|o| to_cel_projected(o, Some(s), root, tree.old_fields.as_ref()));
    BASE.with(|base| {
        let mut ctx = base.new_inner_scope();
        ctx.add_variable_from_value("self", self_val.clone());
        if let Some(o) = old_val.clone() {
            ctx.add_variable_from_value("oldSelf", o);
        }
        for rule in &tree.rules {
            if rule.rule.rule.is_empty() {
                continue;
            }
            if rule.uses_old_self && rule.rule.optional_old_self {
                // optionalOldSelf: the rule also runs on create, with oldSelf = optional.none().
                let mut octx = base.new_inner_scope();
                octx.add_variable_from_value("self", self_val.clone());
                let opt = old_val
                    .clone()
                    .map_or_else(OptionalValue::none, OptionalValue::of);
                octx.add_variable_from_value("oldSelf", CelValue::Opaque(Arc::new(opt)));
                evaluate_rule(s, rule, &octx, path, obj, errs);
                continue;
            }
            if rule.uses_old_self && old.is_none() {
                continue;
            }
            evaluate_rule(s, rule, &ctx, path, obj, errs);
        }
    });
}

fn rule_error_string(rule: &ValidationRule) -> String {
    if rule.message.is_empty() {
        rule.rule.trim().to_string()
    } else {
        rule.message.trim().to_string()
    }
}

fn evaluate_rule(
    s: &Structural,
    rule: &CompiledRule,
    ctx: &Context<'_>,
    path: &FieldPath,
    obj: &Value,
    errs: &mut ErrorList,
) {
    let program = match &rule.program {
        Ok(p) => p,
        Err(e) => {
            errs.push(FieldError::invalid(
                path,
                type_value(s),
                format!("rule compile error: {e}"),
            ));
            return;
        }
    };
    match program.execute(ctx) {
        Ok(CelValue::Bool(true)) => {}
        Ok(CelValue::Bool(false)) => errs.push(failure(s, rule, ctx, path, obj)),
        Ok(other) => errs.push(FieldError::invalid(
            path,
            type_value(s),
            format!(
                "rule returned {other:?}, not a bool, evaluating rule: {}",
                rule_error_string(&rule.rule)
            ),
        )),
        Err(e) => {
            let text = e.to_string();
            let detail = if text.starts_with("No such overload") {
                format!(
                    "'no such overload': call arguments did not match a supported operator, function or macro signature for rule: {}",
                    rule_error_string(&rule.rule)
                )
            } else {
                format!("{text} evaluating rule: {}", rule_error_string(&rule.rule))
            };
            errs.push(FieldError::invalid(path, type_value(s), detail));
        }
    }
}

fn message_from_expression(rule: &CompiledRule, ctx: &Context<'_>) -> Option<String> {
    match rule.message_program.as_ref()?.execute(ctx) {
        Ok(CelValue::String(m))
            if !m.trim().is_empty() && !m.contains(['\n', '\r']) && m.len() <= 5 * 1024 =>
        {
            Some(m.to_string())
        }
        _ => None,
    }
}

fn failure(
    s: &Structural,
    rule: &CompiledRule,
    ctx: &Context<'_>,
    path: &FieldPath,
    obj: &Value,
) -> FieldError {
    let at = if rule.field_path.is_empty() {
        path.clone()
    } else {
        path.child(&rule.field_path)
    };
    let detail = message_from_expression(rule, ctx).unwrap_or_else(|| {
        if rule.rule.message.is_empty() {
            format!("failed rule: {}", rule_error_string(&rule.rule))
        } else {
            rule.rule.message.trim().to_string()
        }
    });
    let omit = matches!(s.type_name.as_str(), "object" | "array");
    let reason = rule.rule.reason.as_deref().and_then(ErrorType::from_reason);
    match reason {
        Some(ErrorType::Forbidden) => FieldError::forbidden(&at, detail),
        Some(ErrorType::Required) => FieldError::required(&at, detail),
        Some(ErrorType::Duplicate) if omit => FieldError {
            error_type: ErrorType::Duplicate,
            field: at,
            bad_value: BadValue::Omit,
            detail: String::new(),
        },
        Some(ErrorType::Duplicate) => FieldError::duplicate(&at, obj.clone()),
        _ if omit => FieldError::invalid_omitted(&at, detail),
        _ => FieldError::invalid(&at, obj.clone(), detail),
    }
}

/// Whether validation errors that stop CEL from running exist (upstream `hasBlockingErr`).
pub fn has_blocking_error(errs: &[FieldError]) -> bool {
    errs.iter().any(|e| {
        matches!(
            e.error_type,
            ErrorType::Required
                | ErrorType::NotSupported
                | ErrorType::TooLong
                | ErrorType::TooMany
                | ErrorType::TypeInvalid
        )
    })
}

/// The error added instead of running CEL when blocking errors exist (R6.19).
pub fn blocked_error() -> FieldError {
    FieldError::invalid(
        &FieldPath::root(),
        Value::Null,
        "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    )
}
