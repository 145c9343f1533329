//! Rules checked against the versions they convert (their `openAPIV3Schema`s) before they
//! are used: every version named exists, the hub is one of them, each path exists in the
//! schema of the side it belongs to, and no two steps of a version write one field.

use crate::path::{FieldPath, Segment};
use crate::rules::{Rule, Rules};
use serde_json::Value;
use std::collections::BTreeMap;

/// One thing wrong with the rules, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `versions.v1alpha1[0]`, or `hub`.
    pub at: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// Whether `schema` (an openAPIV3Schema) has the field `path`; a schema that preserves
/// unknown fields has every field below it.
fn schema_has(schema: &Value, path: &[Segment]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return true;
    };
    if schema["x-kubernetes-preserve-unknown-fields"] == true {
        return true;
    }
    let next = match first {
        Segment::Field(f) => schema["properties"]
            .get(f)
            .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object())),
        Segment::Each => schema.get("items"),
    };
    next.is_some_and(|n| schema_has(n, rest))
}

/// The schema node at `path`, if the schema says.
fn schema_at<'s>(schema: &'s Value, path: &[Segment]) -> Option<&'s Value> {
    path.iter().try_fold(schema, |node, seg| match seg {
        Segment::Field(f) => node["properties"]
            .get(f)
            .or_else(|| node.get("additionalProperties").filter(|a| a.is_object())),
        Segment::Each => node.get("items"),
    })
}

/// Why a value of JSON type `given` cannot go where `schema` is, if it cannot.
fn type_mismatch(schema: &Value, given: &str) -> Option<String> {
    if schema["x-kubernetes-int-or-string"] == true {
        return (!matches!(given, "integer" | "string")).then(|| "integer or string".to_owned());
    }
    let want = schema["type"].as_str()?;
    let fits = want == given || (want == "number" && given == "integer");
    (!fits).then(|| want.to_owned())
}

impl Rules {
    /// What is wrong with these rules for a CRD whose versions have these schemas
    /// (version → openAPIV3Schema; a version without a schema has every field).
    pub fn check(&self, schemas: &BTreeMap<String, Option<Value>>) -> Vec<Problem> {
        let mut problems = Vec::new();
        if !schemas.contains_key(&self.hub) {
            problems.push(Problem {
                at: "hub".into(),
                message: format!("{:?} is not a version of the CRD", self.hub),
            });
        }
        let hub_schema = schemas.get(&self.hub).cloned().flatten();
        for (version, rules) in &self.versions {
            let Some(own) = schemas.get(version) else {
                problems.push(Problem {
                    at: format!("versions.{version}"),
                    message: format!("{version:?} is not a version of the CRD"),
                });
                continue;
            };
            let mut written: BTreeMap<String, usize> = BTreeMap::new();
            for (i, rule) in rules.iter().enumerate() {
                let at = format!("versions.{version}[{i}]");
                let mut need = |side: &Option<Value>, side_name: &str, p: &FieldPath| {
                    if let Some(s) = side
                        && !schema_has(s, p.segments())
                    {
                        problems.push(Problem {
                            at: at.clone(),
                            message: format!("{p} is not a field of {side_name}'s schema"),
                        });
                    }
                };
                let hub_name = self.hub.clone();
                let mut writes: Vec<String> = Vec::new();
                match rule {
                    Rule::Rename { from, to } => {
                        need(own, version, from);
                        need(&hub_schema, &hub_name, to);
                        writes.push(to.to_string());
                    }
                    Rule::Preserve(p) => need(&hub_schema, &hub_name, p),
                    Rule::Default { field, .. } => need(&hub_schema, &hub_name, field),
                    Rule::Compute { to_hub, from_hub } => {
                        for (p, _) in to_hub {
                            need(&hub_schema, &hub_name, p);
                            writes.push(p.to_string());
                        }
                        for (p, _) in from_hub {
                            need(own, version, p);
                        }
                        let sides = [
                            ("toHub", to_hub, &hub_schema, hub_name.as_str()),
                            ("fromHub", from_hub, own, version.as_str()),
                        ];
                        for (way, fields, schema, side) in sides {
                            for (p, expr) in fields {
                                let found =
                                    schema.as_ref().and_then(|s| schema_at(s, p.segments()));
                                if let (Some(node), Some(given)) = (found, expr.result_type())
                                    && let Some(want) = type_mismatch(node, given)
                                {
                                    problems.push(Problem {
                                        at: at.clone(),
                                        message: format!(
                                            "compute {way} {p} gives {} {given}; {side}'s schema says {want}",
                                            if given.starts_with(['a', 'i', 'o']) { "an" } else { "a" }
                                        ),
                                    });
                                }
                            }
                        }
                    }
                }
                for w in writes {
                    if let Some(first) = written.insert(w.clone(), i) {
                        problems.push(Problem {
                            at: at.clone(),
                            message: format!(
                                "{w} is already written by versions.{version}[{first}]"
                            ),
                        });
                    }
                }
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schemas() -> BTreeMap<String, Option<Value>> {
        let spec = |props: Value| {
            Some(
                json!({"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}),
            )
        };
        BTreeMap::from([
            ("v1".to_owned(), spec(json!({"label": {"type": "string"}}))),
            (
                "v2".to_owned(),
                spec(json!({"displayName": {"type": "string"}})),
            ),
        ])
    }

    #[test]
    fn a_path_the_schema_lacks_is_a_problem() {
        let r = Rules::parse(
            "hub: v2\nversions:\n  v1:\n    - rename: {from: spec.lable, to: spec.displayName}\n",
        )
        .unwrap();
        assert_eq!(
            r.check(&schemas()),
            vec![Problem {
                at: "versions.v1[0]".into(),
                message: "spec.lable is not a field of v1's schema".into()
            }]
        );
    }

    #[test]
    fn two_steps_writing_one_field_is_a_problem() {
        let r = Rules::parse("hub: v2\nversions:\n  v1:\n    - rename: {from: spec.label, to: spec.displayName}\n    - compute: {toHub: {spec.displayName: \"'x'\"}, fromHub: {}}\n").unwrap();
        let p = r.check(&schemas());
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(
            p[0].message,
            "spec.displayName is already written by versions.v1[0]"
        );
    }

    #[test]
    fn a_computation_of_the_wrong_type_is_a_problem() {
        let r = Rules::parse("hub: v2\nversions:\n  v1:\n    - compute: {toHub: {spec.displayName: 'size(self.spec.label)'}, fromHub: {}}\n").unwrap();
        assert_eq!(
            r.check(&schemas())[0].message,
            "compute toHub spec.displayName gives an integer; v2's schema says string"
        );
    }

    #[test]
    fn a_hub_that_is_not_a_version_is_a_problem() {
        let r = Rules::parse("hub: v9\n").unwrap();
        assert_eq!(
            r.check(&schemas())[0].to_string(),
            "hub: \"v9\" is not a version of the CRD"
        );
    }

    #[test]
    fn good_rules_have_no_problems() {
        let r = Rules::parse(
            "hub: v2\nversions:\n  v1:\n    - rename: {from: spec.label, to: spec.displayName}\n",
        )
        .unwrap();
        assert!(r.check(&schemas()).is_empty());
    }
}

/// `spec.ports[0].name` → `spec.ports[].name` (leading dots dropped).
fn normalize(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut chars = path.trim_start_matches('.').chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '[' {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
        }
    }
    out
}

/// Whether `field` is `rule_path` or below it.
fn covers(rule_path: &str, field: &str) -> bool {
    field == rule_path
        || field.starts_with(&format!("{rule_path}."))
        || field.starts_with(&format!("{rule_path}["))
}

impl Rules {
    /// The step of `version` that takes `field` on its own side (`to_hub`) or on the hub's.
    fn step_touching(&self, version: &str, field: &str, hub_side: bool) -> Option<(usize, &Rule)> {
        self.steps(version).iter().enumerate().find(|(_, rule)| {
            let paths: Vec<String> = match (rule, hub_side) {
                (Rule::Rename { from, .. }, false) => vec![from.to_string()],
                (Rule::Rename { to, .. }, true) => vec![to.to_string()],
                (Rule::Compute { from_hub, .. }, false) => {
                    from_hub.iter().map(|(p, _)| p.to_string()).collect()
                }
                (Rule::Compute { to_hub, .. }, true) => {
                    to_hub.iter().map(|(p, _)| p.to_string()).collect()
                }
                (Rule::Preserve(p), true) => vec![p.to_string()],
                (Rule::Default { field, .. }, true) => vec![field.to_string()],
                _ => Vec::new(),
            };
            paths.iter().any(|p| covers(p, field))
        })
    }

    /// Which rule is to blame when `field` of version `a` does not survive `a → b → a`.
    pub fn explain_loss(&self, a: &str, b: &str, field: &str) -> String {
        let field = normalize(field);
        let hub = self.hub.as_str();
        if a != hub {
            return match self.step_touching(a, &field, false) {
                None => format!(
                    "no step of {a} carries {field} to the hub {hub}: add a rename (or a compute) to a field of {hub}"
                ),
                Some((i, rule)) => format!(
                    "versions.{a}[{i}] ({}) takes {field} to the hub; the way back through {b} does not bring it",
                    rule.describe()
                ),
            };
        }
        match self.step_touching(b, &field, true) {
            None => format!(
                "no step of {b} keeps the hub's {field}: rename it to a field of {b}, or preserve it"
            ),
            Some((i, rule)) => format!(
                "versions.{b}[{i}] ({}) does not bring {field} back",
                rule.describe()
            ),
        }
    }
}

#[cfg(test)]
mod loss_tests {
    use super::*;

    #[test]
    fn a_field_no_step_carries_is_blamed_on_the_missing_step() {
        let r = Rules::parse("hub: v2\nversions:\n  v1: []\n").unwrap();
        assert_eq!(
            r.explain_loss("v1", "v2", ".spec.label"),
            "no step of v1 carries spec.label to the hub v2: add a rename (or a compute) to a field of v2"
        );
        assert_eq!(
            r.explain_loss("v2", "v1", ".spec.ports[3].name"),
            "no step of v1 keeps the hub's spec.ports[].name: rename it to a field of v1, or preserve it"
        );
    }

    #[test]
    fn a_step_that_takes_a_field_is_named() {
        let r = Rules::parse("hub: v2\nversions:\n  v1:\n    - compute: {toHub: {spec.b: 'self.spec.a'}, fromHub: {spec.a: \"'x'\"}}\n").unwrap();
        assert_eq!(
            r.explain_loss("v1", "v2", ".spec.a"),
            "versions.v1[0] (compute spec.b) takes spec.a to the hub; the way back through v2 does not bring it"
        );
    }
}
