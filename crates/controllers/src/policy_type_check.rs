//! The type check of a ValidatingAdmissionPolicy, as upstream reports it in
//! `status.typeChecking`: each validation's `expression` and `messageExpression` is checked
//! against the schema of every kind its `matchConstraints` name (up to 10, wildcards and
//! subresources skipped), and a field of `object` or `oldObject` the schema does not declare
//! is a warning in cel-go's words (`apps/v1, Kind=Deployment: ERROR: <input>:1:13:
//! undefined field 'replicsa'` with the source line and a caret).
//!
//! kapi's CEL has no static types, so the check covers what most mistakes are: fields that
//! do not exist. Maps (labels, annotations, `additionalProperties`) take any key, and
//! fields under `x-kubernetes-preserve-unknown-fields` are not judged.

use kapi_apiextensions::cel::Expression;
use kapi_registry::entry::RegistryTable;
use kapi_registry::field_schema::{Node, Shape};
use serde_json::{Value, json};

/// At most this many kinds are checked (upstream's limit).
const MAX_KINDS: usize = 10;

/// A kind the policy matches, with its schema.
struct Checked<'s> {
    /// `apps/v1, Kind=Deployment` (`/v1, Kind=Pod` for the core group).
    gvk: String,
    root: Node<'s>,
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The first field of `chain` that `root` does not declare, with the chain up to it.
fn undefined_field(root: Node<'_>, chain: &[String]) -> Option<usize> {
    let mut node = root;
    for (i, field) in chain.iter().enumerate() {
        match node.shape() {
            Shape::Struct { .. } => {
                if !node.declares(field) {
                    return Some(i);
                }
            }
            Shape::Map { .. } => {}
            _ => return None,
        }
        node = node.field(field);
    }
    None
}

/// cel-go's error text for an undefined field of `var.chain[..=at]` in `source`.
fn undefined_message(source: &str, var: &str, chain: &[String], at: usize) -> String {
    let text = format!("{var}.{}", chain[..=at].join("."));
    let column = source
        .find(&text)
        .map_or(0, |start| start + text.len() - chain[at].len());
    let line = source.lines().next().unwrap_or("");
    format!(
        "ERROR: <input>:1:{}: undefined field '{}'\n | {line}\n | {}^",
        column + 1,
        chain[at],
        ".".repeat(column)
    )
}

/// The warnings of one expression against every checked kind.
fn check_expression(source: &str, kinds: &[Checked<'_>]) -> Option<String> {
    let expr = Expression::compile(source).ok()?;
    let mut out = String::new();
    for kind in kinds {
        let mut issues = Vec::new();
        for var in ["object", "oldObject"] {
            for chain in expr.selections(var) {
                if let Some(at) = undefined_field(kind.root, &chain) {
                    let m = undefined_message(source, var, &chain, at);
                    if !issues.contains(&m) {
                        issues.push(m);
                    }
                }
            }
        }
        if !issues.is_empty() {
            out.push_str(&format!("{}: {}\n", kind.gvk, issues.join("\n")));
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The kinds the policy's `matchConstraints.resourceRules` name, sorted, at most 10.
fn matched_kinds<'t>(spec: &Value, table: &'t RegistryTable) -> Vec<Checked<'t>> {
    let mut found: Vec<(String, String, String, Node<'t>)> = Vec::new();
    for rule in spec["matchConstraints"]["resourceRules"]
        .as_array()
        .into_iter()
        .flatten()
    {
        for group in strings(&rule["apiGroups"]) {
            for version in strings(&rule["apiVersions"]) {
                for resource in strings(&rule["resources"]) {
                    if [group, version, resource].contains(&"*") || resource.contains('/') {
                        continue;
                    }
                    let Some(entry) = table.get(group, version, resource) else {
                        continue;
                    };
                    let kind = entry.names.kind.clone();
                    if found
                        .iter()
                        .any(|(g, v, k, _)| g == group && v == version && *k == kind)
                    {
                        continue;
                    }
                    let node = entry.kind_fields().node();
                    found.push((group.to_owned(), version.to_owned(), kind, node));
                }
            }
        }
    }
    found.sort_by(|a, b| (&a.0, &a.1, &a.2).cmp(&(&b.0, &b.1, &b.2)));
    found.truncate(MAX_KINDS);
    found
        .into_iter()
        .map(|(g, v, k, root)| Checked {
            gvk: format!("{g}/{v}, Kind={k}"),
            root,
        })
        .collect()
}

/// The `status.typeChecking` of a policy: `{}` when nothing was found, else the
/// `expressionWarnings` with the field each is about.
pub fn type_checking(policy: &Value, table: &RegistryTable) -> Value {
    let spec = &policy["spec"];
    let kinds = matched_kinds(spec, table);
    let mut warnings = Vec::new();
    for (i, v) in spec["validations"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for field in ["expression", "messageExpression"] {
            let Some(source) = v[field].as_str().filter(|s| !s.is_empty()) else {
                continue;
            };
            if let Some(warning) = check_expression(source, &kinds) {
                warnings.push(json!({
                    "fieldRef": format!("spec.validations[{i}].{field}"),
                    "warning": warning,
                }));
            }
        }
    }
    if warnings.is_empty() {
        json!({})
    } else {
        json!({"expressionWarnings": warnings})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undefined_field_is_worded_as_cel_go_words_it() {
        let chain = vec!["spec".to_owned(), "replicsa".to_owned()];
        assert_eq!(
            undefined_message("object.spec.replicsa > 1", "object", &chain, 1),
            "ERROR: <input>:1:13: undefined field 'replicsa'\n | object.spec.replicsa > 1\n | ............^"
        );
    }
}
