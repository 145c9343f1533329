//! Free-standing CEL expressions evaluated over named JSON variables: what admission's
//! `matchConditions`, ValidatingAdmissionPolicy `validations`, `variables` and
//! `auditAnnotations`, and MutatingAdmissionPolicy `mutations` evaluate (`object`,
//! `oldObject`, `request`, `params`, `namespaceObject`, `variables`).
//!
//! Struct literals (`Object{spec: Object.spec{replicas: 1}}`, `JSONPatch{op: "add", …}`)
//! become maps of their fields: the CEL interpreter has no message types, and the JSON
//! these literals stand for is exactly those maps.

use crate::json::{from_json, to_json, type_name};
use kube_cel::KubeCelExt;
use kube_cel::cel::common::ast::{
    EntryExpr, Expr, IdedEntryExpr, IdedExpr, LiteralValue, MapEntryExpr, MapExpr,
};
use kube_cel::cel::objects::{Key, Map as CelMap};
use kube_cel::cel::{Context, Program, Value as CelValue};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

thread_local! {
    /// One context with every kube-cel function per thread; evaluations use child scopes.
    static BASE: Context<'static> = Context::default().with_all();
}

/// A compiled expression, or why its source does not compile.
type Compiled = Result<Arc<Expression>, String>;

/// Compiled expressions by source (admission compiles the same few on every request).
static COMPILED: OnceLock<Mutex<HashMap<String, Compiled>>> = OnceLock::new();
/// The cache is emptied when it grows past this many sources.
const MAX_CACHED: usize = 4096;

/// A CEL expression compiled once.
#[derive(Debug, Clone)]
pub struct Expression {
    source: String,
    ast: IdedExpr,
}

/// Why an expression could not give a value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct EvalError(pub String);

impl Expression {
    /// Parses `source`; the error is worded as upstream's `compilation failed: …`.
    pub fn compile(source: &str) -> Result<Self, String> {
        let program = Program::compile(source).map_err(|e| format!("compilation failed: {e}"))?;
        let mut ast = program.expression().clone();
        structs_to_maps(&mut ast);
        Ok(Self {
            source: source.to_owned(),
            ast,
        })
    }

    /// Like [`Expression::compile`], from a process-wide cache of compiled sources.
    pub fn cached(source: &str) -> Result<Arc<Self>, String> {
        let cache = COMPILED.get_or_init(|| Mutex::new(HashMap::new()));
        if let Ok(map) = cache.lock()
            && let Some(hit) = map.get(source)
        {
            return hit.clone();
        }
        let compiled = Self::compile(source).map(Arc::new);
        if let Ok(mut map) = cache.lock() {
            if map.len() >= MAX_CACHED {
                map.clear();
            }
            map.insert(source.to_owned(), compiled.clone());
        }
        compiled
    }

    /// The source text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the expression names the variable `name` anywhere.
    pub fn references(&self, name: &str) -> bool {
        !self.selections(name).is_empty() || mentions(&self.ast, name)
    }

    /// The field chains the expression selects from the variable `var`, each as long as
    /// it goes (`object.spec.replicas > 1` gives `["spec", "replicas"]` for `object`).
    pub fn selections(&self, var: &str) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        collect_selections(&self.ast, var, false, &mut out);
        out
    }

    /// The JSON type the expression's value surely has (`string`, `integer`, `number`,
    /// `boolean`, `array`, `object`), when its form says it without knowing the variables:
    /// literals, `string(…)`/`int(…)`/`double(…)`/`size(…)`, comparisons and logic, `+` of
    /// a known type, and conditionals whose branches agree. `None` when it cannot tell.
    pub fn result_type(&self) -> Option<&'static str> {
        type_of(&self.ast)
    }

    /// Evaluates with `vars`, giving the result as JSON.
    pub fn evaluate(&self, vars: &Variables) -> Result<Value, EvalError> {
        to_json(&self.evaluate_cel(vars)?).map_err(EvalError)
    }

    /// Evaluates to a bool; another type is an error, worded as upstream's.
    pub fn evaluate_bool(&self, vars: &Variables) -> Result<bool, EvalError> {
        match self.evaluate_cel(vars)? {
            CelValue::Bool(b) => Ok(b),
            other => Err(EvalError(format!(
                "expression returned {}, not a bool",
                type_name(&other)
            ))),
        }
    }

    /// Evaluates to a string; another type is an error.
    pub fn evaluate_string(&self, vars: &Variables) -> Result<String, EvalError> {
        match self.evaluate_cel(vars)? {
            CelValue::String(s) => Ok(s.to_string()),
            other => Err(EvalError(format!(
                "expression returned {}, not a string",
                type_name(&other)
            ))),
        }
    }

    fn evaluate_cel(&self, vars: &Variables) -> Result<CelValue, EvalError> {
        BASE.with(|base| {
            let mut ctx = base.new_inner_scope();
            for (name, value) in &vars.values {
                ctx.add_variable_from_value(name.clone(), value.clone());
            }
            if !vars.named.is_empty() {
                let map: HashMap<Key, CelValue> = vars
                    .named
                    .iter()
                    .map(|(k, v)| (Key::String(Arc::new(k.clone())), v.clone()))
                    .collect();
                ctx.add_variable_from_value("variables", CelValue::Map(CelMap { map: map.into() }));
            }
            CelValue::resolve(&self.ast, &ctx).map_err(|e| EvalError(e.to_string()))
        })
    }
}

/// The variables of one evaluation: plain ones (`object`, `request`…) and the named
/// results under `variables`.
#[derive(Debug, Clone, Default)]
pub struct Variables {
    values: Vec<(String, CelValue)>,
    named: Vec<(String, CelValue)>,
}

impl Variables {
    /// No variables.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds `name` to a JSON value (JSON null stays null).
    pub fn set(&mut self, name: &str, value: &Value) {
        let v = from_json(value);
        self.values.retain(|(n, _)| n != name);
        self.values.push((name.to_owned(), v));
    }

    /// Evaluates `expr` and binds its result as `variables.<name>`; an error leaves the
    /// name unbound (expressions using it then fail) and is returned.
    pub fn define(&mut self, name: &str, expr: &Expression) -> Result<(), EvalError> {
        let v = expr.evaluate_cel(self)?;
        self.named.retain(|(n, _)| n != name);
        self.named.push((name.to_owned(), v));
        Ok(())
    }
}

/// See [`Expression::result_type`].
fn type_of(e: &IdedExpr) -> Option<&'static str> {
    match &e.expr {
        Expr::Literal(l) => match l {
            LiteralValue::Boolean(_) => Some("boolean"),
            LiteralValue::Int(_) | LiteralValue::UInt(_) => Some("integer"),
            LiteralValue::Double(_) => Some("number"),
            LiteralValue::String(_) => Some("string"),
            LiteralValue::Bytes(_) | LiteralValue::Null => None,
        },
        Expr::List(_) => Some("array"),
        Expr::Map(_) | Expr::Struct(_) => Some("object"),
        Expr::Call(call) => match call.func_name.as_str() {
            "string" => Some("string"),
            "int" | "uint" | "size" => Some("integer"),
            "double" => Some("number"),
            "_==_" | "_!=_" | "_<_" | "_<=_" | "_>_" | "_>=_" | "_&&_" | "_||_" | "!_" | "@in"
            | "has" | "startsWith" | "endsWith" | "contains" | "matches" => Some("boolean"),
            "_+_" => {
                let types: Vec<_> = call.args.iter().map(type_of).collect();
                types.iter().find_map(|t| *t).filter(|t| {
                    matches!(*t, "string" | "array") || types.iter().all(|x| x == &Some(*t))
                })
            }
            "_?_:_" => {
                let (a, b) = (
                    call.args.get(1).and_then(type_of),
                    call.args.get(2).and_then(type_of),
                );
                a.filter(|t| Some(*t) == b)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The direct sub-expressions of `e`.
fn children(e: &IdedExpr) -> Vec<&IdedExpr> {
    match &e.expr {
        Expr::Select(sel) => vec![&sel.operand],
        Expr::Call(call) => call
            .target
            .as_deref()
            .into_iter()
            .chain(call.args.iter())
            .collect(),
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => m
            .entries
            .iter()
            .flat_map(|en| match &en.expr {
                EntryExpr::MapEntry(me) => vec![&me.key, &me.value],
                EntryExpr::StructField(sf) => vec![&sf.value],
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether the identifier `name` appears in `e`.
fn mentions(e: &IdedExpr, name: &str) -> bool {
    matches!(&e.expr, Expr::Ident(n) if n == name)
        || children(e).into_iter().any(|c| mentions(c, name))
}

/// The chain of fields of a select expression rooted at the identifier `var`.
fn chain_of(e: &IdedExpr, var: &str) -> Option<Vec<String>> {
    match &e.expr {
        Expr::Ident(name) if name == var => Some(Vec::new()),
        Expr::Select(sel) => {
            let mut chain = chain_of(&sel.operand, var)?;
            chain.push(sel.field.clone());
            Some(chain)
        }
        _ => None,
    }
}

fn collect_selections(e: &IdedExpr, var: &str, in_select: bool, out: &mut Vec<Vec<String>>) {
    let is_select = matches!(e.expr, Expr::Select(_));
    if is_select
        && !in_select
        && let Some(chain) = chain_of(e, var)
    {
        out.push(chain);
    }
    for c in children(e) {
        collect_selections(c, var, is_select, out);
    }
}

/// Rewrites every struct literal into a map literal of its fields.
fn structs_to_maps(e: &mut IdedExpr) {
    if let Expr::Struct(s) = &mut e.expr {
        let entries = std::mem::take(&mut s.entries)
            .into_iter()
            .map(|en| match en.expr {
                EntryExpr::StructField(f) => IdedEntryExpr {
                    id: en.id,
                    expr: EntryExpr::MapEntry(MapEntryExpr {
                        key: IdedExpr {
                            id: en.id,
                            expr: Expr::Literal(LiteralValue::String(f.field.as_str().into())),
                        },
                        value: f.value,
                        optional: f.optional,
                    }),
                },
                other => IdedEntryExpr {
                    id: en.id,
                    expr: other,
                },
            })
            .collect();
        e.expr = Expr::Map(MapExpr { entries });
    }
    match &mut e.expr {
        Expr::Select(sel) => structs_to_maps(&mut sel.operand),
        Expr::Call(call) => {
            if let Some(t) = call.target.as_deref_mut() {
                structs_to_maps(t);
            }
            call.args.iter_mut().for_each(structs_to_maps);
        }
        Expr::Comprehension(c) => {
            for x in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                structs_to_maps(x);
            }
        }
        Expr::List(l) => l.elements.iter_mut().for_each(structs_to_maps),
        Expr::Map(m) => {
            for en in &mut m.entries {
                match &mut en.expr {
                    EntryExpr::MapEntry(me) => {
                        structs_to_maps(&mut me.key);
                        structs_to_maps(&mut me.value);
                    }
                    EntryExpr::StructField(sf) => structs_to_maps(&mut sf.value),
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars(object: Value) -> Variables {
        let mut v = Variables::new();
        v.set("object", &object);
        v
    }

    #[test]
    fn an_expression_reads_the_object() {
        let e = Expression::compile("object.spec.replicas <= 5").unwrap();
        assert!(
            e.evaluate_bool(&vars(json!({"spec": {"replicas": 3}})))
                .unwrap()
        );
        assert!(
            !e.evaluate_bool(&vars(json!({"spec": {"replicas": 7}})))
                .unwrap()
        );
    }

    #[test]
    fn a_syntax_error_is_a_compilation_failure() {
        let err = Expression::compile("object.spec.replicas <=").unwrap_err();
        assert!(err.starts_with("compilation failed: "), "{err}");
    }

    #[test]
    fn a_missing_field_is_an_evaluation_error() {
        let e = Expression::compile("object.spec.replicas > 1").unwrap();
        let err = e.evaluate_bool(&vars(json!({"spec": {}}))).unwrap_err();
        assert!(err.0.contains("replicas"), "{err}");
    }

    #[test]
    fn a_non_bool_result_is_an_error_for_a_condition() {
        let e = Expression::compile("object.spec").unwrap();
        let err = e.evaluate_bool(&vars(json!({"spec": {}}))).unwrap_err();
        assert_eq!(err.0, "expression returned map, not a bool");
    }

    #[test]
    fn struct_literals_evaluate_to_maps_of_their_fields() {
        let e = Expression::compile(
            r#"Object{spec: Object.spec{replicas: object.spec.replicas + 1, paused: false}}"#,
        )
        .unwrap();
        let got = e.evaluate(&vars(json!({"spec": {"replicas": 2}}))).unwrap();
        assert_eq!(got, json!({"spec": {"replicas": 3, "paused": false}}));
        let patch = Expression::compile(r#"[JSONPatch{op: "add", path: "/a", value: 1}]"#).unwrap();
        assert_eq!(
            patch.evaluate(&Variables::new()).unwrap(),
            json!([{"op": "add", "path": "/a", "value": 1}])
        );
    }

    #[test]
    fn named_variables_are_read_under_variables() {
        let mut v = vars(json!({"metadata": {"name": "web"}}));
        v.define(
            "name",
            &Expression::compile("object.metadata.name").unwrap(),
        )
        .unwrap();
        let e = Expression::compile("variables.name == 'web'").unwrap();
        assert!(e.evaluate_bool(&v).unwrap());
    }

    #[test]
    fn selections_are_the_longest_field_chains_of_a_variable() {
        let e = Expression::compile(
            "object.spec.replicas > 1 && has(object.metadata.labels) && oldObject.spec.x == 1 && object.spec.containers.all(c, c.image != '')",
        )
        .unwrap();
        assert_eq!(
            e.selections("object"),
            vec![
                vec!["spec".to_owned(), "replicas".to_owned()],
                vec!["metadata".to_owned(), "labels".to_owned()],
                vec!["spec".to_owned(), "containers".to_owned()],
            ]
        );
    }

    #[test]
    fn the_result_type_is_known_from_the_expressions_form() {
        let t = |s: &str| Expression::compile(s).unwrap().result_type();
        assert_eq!(t("'a' + self.spec.x"), Some("string"));
        assert_eq!(t("size(self.spec.items)"), Some("integer"));
        assert_eq!(t("self.spec.a > 1 ? 'big' : 'small'"), Some("string"));
        assert_eq!(t("self.spec.a > 1"), Some("boolean"));
        assert_eq!(t("self.spec.a"), None);
        assert_eq!(t("self.spec.a > 1 ? 1 : 'x'"), None);
    }

    #[test]
    fn references_tell_which_variables_an_expression_reads() {
        let e = Expression::compile("params.max > object.spec.replicas").unwrap();
        assert!(e.references("params"));
        assert!(e.references("object"));
        assert!(!e.references("oldObject"));
    }
}
