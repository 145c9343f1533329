//! The rules format: a hub version and, per other version, its steps to the hub.

use crate::path::FieldPath;
use kapi_cel::Expression;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One step as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Step {
    /// Moves a field: `from` (this side's path) becomes `to` (the hub side's); back again
    /// on the way from the hub. Inside lists both paths share everything up to their last `[]`.
    Rename {
        /// The field on this version's side.
        from: String,
        /// The field on the hub's side.
        to: String,
    },
    /// A hub field this version has no room for: on the way from the hub its value is kept
    /// in the object's `conversion.kapi.dev/preserved` annotation, and on the way to the
    /// hub put back, so that a round trip loses nothing.
    Preserve(String),
    /// A hub field this version lacks: set to `value` on the way to the hub when it is
    /// absent, dropped on the way back (unless preserved).
    Default {
        /// The hub field.
        field: String,
        /// Its value.
        value: Value,
    },
    /// Computed fields: `toHub` sets each hub field to its CEL expression over this side's
    /// object (`self`) and removes `fromHub`'s fields; `fromHub` the reverse.
    Compute {
        /// Hub field → expression over this version's object.
        #[serde(rename = "toHub")]
        to_hub: BTreeMap<String, String>,
        /// This version's field → expression over the hub object.
        #[serde(rename = "fromHub")]
        from_hub: BTreeMap<String, String>,
    },
}

/// A compiled step.
#[derive(Debug, Clone)]
pub enum Rule {
    /// See [`Step::Rename`].
    Rename {
        /// This side.
        from: FieldPath,
        /// The hub side.
        to: FieldPath,
    },
    /// See [`Step::Preserve`].
    Preserve(FieldPath),
    /// See [`Step::Default`].
    Default {
        /// The hub field.
        field: FieldPath,
        /// Its value.
        value: Value,
    },
    /// See [`Step::Compute`].
    Compute {
        /// Hub fields and their expressions.
        to_hub: Vec<(FieldPath, Arc<Expression>)>,
        /// This version's fields and their expressions.
        from_hub: Vec<(FieldPath, Arc<Expression>)>,
    },
}

impl Rule {
    /// A short name for messages: `rename spec.label`.
    pub fn describe(&self) -> String {
        match self {
            Rule::Rename { from, to } => format!("rename {from} to {to}"),
            Rule::Preserve(p) => format!("preserve {p}"),
            Rule::Default { field, .. } => format!("default {field}"),
            Rule::Compute { to_hub, .. } => format!(
                "compute {}",
                to_hub
                    .iter()
                    .map(|(p, _)| p.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// The rules as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    hub: String,
    #[serde(default)]
    versions: BTreeMap<String, Vec<Step>>,
}

/// Why rules cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RulesError(pub String);

/// The compiled rules of one CRD.
#[derive(Debug, Clone)]
pub struct Rules {
    pub(crate) hub: String,
    pub(crate) versions: BTreeMap<String, Vec<Rule>>,
}

fn compile_map(
    map: &BTreeMap<String, String>,
    at: &str,
) -> Result<Vec<(FieldPath, Arc<Expression>)>, RulesError> {
    map.iter()
        .map(|(path, source)| {
            let p = FieldPath::parse(path).map_err(|e| RulesError(format!("{at}: {e}")))?;
            if p.has_lists() {
                return Err(RulesError(format!(
                    "{at}: {path}: a computed field may not be inside a list (compute the whole list)"
                )));
            }
            let e = Expression::cached(source)
                .map_err(|e| RulesError(format!("{at}: {path}: {e}")))?;
            Ok((p, e))
        })
        .collect()
}

fn compile(step: &Step, at: &str) -> Result<Rule, RulesError> {
    let path = |p: &str| FieldPath::parse(p).map_err(|e| RulesError(format!("{at}: {e}")));
    Ok(match step {
        Step::Rename { from, to } => {
            let (from, to) = (path(from)?, path(to)?);
            let same_lists = match (from.split_at_last_list(), to.split_at_last_list()) {
                (None, None) => true,
                (Some((a, _)), Some((b, _))) => a == b,
                _ => false,
            };
            if !same_lists {
                return Err(RulesError(format!(
                    "{at}: rename {from} to {to}: inside a list both paths must be the same up to their last []"
                )));
            }
            Rule::Rename { from, to }
        }
        Step::Preserve(p) => {
            let p = path(p)?;
            if p.has_lists() {
                return Err(RulesError(format!(
                    "{at}: preserve {p}: a preserved field may not be inside a list (preserve the list)"
                )));
            }
            Rule::Preserve(p)
        }
        Step::Default { field, value } => Rule::Default {
            field: path(field)?,
            value: value.clone(),
        },
        Step::Compute { to_hub, from_hub } => Rule::Compute {
            to_hub: compile_map(to_hub, &format!("{at}: compute toHub"))?,
            from_hub: compile_map(from_hub, &format!("{at}: compute fromHub"))?,
        },
    })
}

impl Rules {
    /// Reads rules written in YAML or JSON, compiling paths and expressions.
    pub fn parse(text: &str) -> Result<Self, RulesError> {
        let doc: Document = serde_saphyr::from_str(text)
            .map_err(|e| RulesError(format!("the rules do not parse: {e}")))?;
        if doc.versions.contains_key(&doc.hub) {
            return Err(RulesError(format!(
                "versions.{}: the hub converts to itself; it has no steps",
                doc.hub
            )));
        }
        let mut versions = BTreeMap::new();
        for (version, steps) in &doc.versions {
            let rules = steps
                .iter()
                .enumerate()
                .map(|(i, s)| compile(s, &format!("versions.{version}[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            versions.insert(version.clone(), rules);
        }
        Ok(Self {
            hub: doc.hub,
            versions,
        })
    }

    /// The rules in a CRD's [`crate::RULES_ANNOTATION`], if it has one.
    pub fn of_crd(crd: &Value) -> Option<Result<Self, RulesError>> {
        let text = crd["metadata"]["annotations"][crate::RULES_ANNOTATION].as_str()?;
        Some(Self::parse(text))
    }

    /// The rules of the CustomResourceDefinition in a manifest (YAML or JSON, the first
    /// CRD of several documents).
    pub fn from_crd_manifest(text: &str) -> Result<Self, RulesError> {
        let docs: Vec<Value> = serde_saphyr::from_multiple(text)
            .map_err(|e| RulesError(format!("the manifest does not parse: {e}")))?;
        let crd = docs
            .iter()
            .find(|d| d["kind"] == "CustomResourceDefinition")
            .ok_or_else(|| RulesError("the manifest has no CustomResourceDefinition".into()))?;
        Self::of_crd(crd).unwrap_or_else(|| {
            Err(RulesError(format!(
                "the CustomResourceDefinition has no {} annotation",
                crate::RULES_ANNOTATION
            )))
        })
    }

    /// The hub version.
    pub fn hub(&self) -> &str {
        &self.hub
    }

    /// The steps of `version` to the hub (none for the hub or a version without steps).
    pub fn steps(&self, version: &str) -> &[Rule] {
        self.versions.get(version).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_from_yaml() {
        let r = Rules::parse(
            "hub: v1beta1\nversions:\n  v1alpha1:\n    - rename: {from: spec.label, to: spec.displayName}\n    - preserve: spec.priority\n",
        )
        .unwrap();
        assert_eq!(r.hub(), "v1beta1");
        assert_eq!(r.steps("v1alpha1").len(), 2);
        assert_eq!(
            r.steps("v1alpha1")[0].describe(),
            "rename spec.label to spec.displayName"
        );
    }

    #[test]
    fn an_expression_that_does_not_compile_is_refused_with_where_it_is() {
        let e = Rules::parse(
            "hub: v2\nversions:\n  v1:\n    - compute: {toHub: {spec.a: 'self.spec.b +'}, fromHub: {}}\n",
        )
        .unwrap_err();
        assert!(
            e.0.starts_with("versions.v1[0]: compute toHub: spec.a: compilation failed"),
            "{e}"
        );
    }

    #[test]
    fn a_rename_that_leaves_its_list_is_refused() {
        let e = Rules::parse(
            "hub: v2\nversions:\n  v1:\n    - rename: {from: 'spec.ports[].name', to: spec.names}\n",
        )
        .unwrap_err();
        assert!(
            e.0.contains("inside a list both paths must be the same up to their last []"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_step_is_refused() {
        assert!(Rules::parse("hub: v2\nversions:\n  v1:\n    - copy: spec.a\n").is_err());
    }
}
