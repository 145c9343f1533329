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
