//! Which built-in resources answer a DELETE with the deleted object instead of a Status:
//! those whose REST storage in kube-apiserver sets `ReturnDeletedObject: true`
//! (pkg/registry/*/*/storage/storage.go). The test holds the table to the `delete`
//! operations of kube-apiserver 1.36.2's OpenAPI documents, whose 200 response names the kind
//! or `meta.v1.Status`.

/// (group, resource) of every built-in resource whose DELETE answers the object.
const RETURNS_DELETED_OBJECT: &[(&str, &str)] = &[
    ("", "persistentvolumeclaims"),
    ("", "persistentvolumes"),
    ("", "pods"),
    ("", "podtemplates"),
    ("", "resourcequotas"),
    ("", "serviceaccounts"),
    ("", "services"),
    ("resource.k8s.io", "deviceclasses"),
    ("resource.k8s.io", "resourceclaims"),
    ("resource.k8s.io", "resourceclaimtemplates"),
    ("resource.k8s.io", "resourceslices"),
    ("storage.k8s.io", "csidrivers"),
    ("storage.k8s.io", "csinodes"),
    ("storage.k8s.io", "storageclasses"),
    ("storage.k8s.io", "volumeattachments"),
    ("storage.k8s.io", "volumeattributesclasses"),
];

/// Whether a DELETE of `group`/`resource` that removes the object answers the object as it
/// was (kube's `ReturnDeletedObject`); others answer a Status of kind Success.
pub fn returns_deleted_object(group: &str, resource: &str) -> bool {
    RETURNS_DELETED_OBJECT.contains(&(group, resource))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::RESOURCES;
    use serde_json::Value;
    use std::collections::BTreeSet;
    use std::path::Path;

    const STATUS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";

    /// (group, resource) of a path like `/apis/G/V/namespaces/{namespace}/R/{name}`.
    fn group_resource(path: &str) -> Option<(String, String)> {
        let rest = path.strip_suffix("/{name}")?;
        let (group, rest) = match rest.strip_prefix("/api/v1/") {
            Some(rest) => ("", rest),
            None => {
                let rest = rest.strip_prefix("/apis/")?;
                let (group, rest) = rest.split_once('/')?;
                (group, rest.split_once('/')?.1)
            }
        };
        let resource = rest.rsplit('/').next()?;
        Some((group.to_owned(), resource.to_owned()))
    }

    /// For every `delete` of one object in kube-apiserver 1.36.2's OpenAPI documents:
    /// whether its 200 answer is the object (true) or a Status (false).
    fn golden_delete_answers() -> Vec<((String, String), bool)> {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/golden/openapi-v3-1.36");
        let mut answers = Vec::new();
        for file in std::fs::read_dir(&dir).unwrap() {
            let doc: Value =
                serde_json::from_slice(&std::fs::read(file.unwrap().path()).unwrap()).unwrap();
            let paths = doc["paths"].as_object().cloned().unwrap_or_default();
            for (path, ops) in paths {
                let op = &ops["delete"];
                if op["x-kubernetes-action"] != "delete" {
                    continue;
                }
                let schema = &op["responses"]["200"]["content"]["application/json"]["schema"];
                let answer = schema["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
                let key = group_resource(&path).unwrap_or_else(|| panic!("{path}"));
                answers.push((key, answer != STATUS));
            }
        }
        answers
    }

    #[test]
    fn the_resources_answering_the_deleted_object_are_kube_apiservers() {
        let answers = golden_delete_answers();
        assert!(answers.len() > 50, "{} delete operations", answers.len());
        let golden: BTreeSet<_> = answers
            .iter()
            .filter(|(_, object)| *object)
            .map(|(key, _)| key.clone())
            .collect();
        let ours: BTreeSet<_> = RESOURCES
            .iter()
            .filter(|r| returns_deleted_object(r.group, r.plural))
            .map(|r| (r.group.to_owned(), r.plural.to_owned()))
            .collect();
        assert_eq!(ours, golden);
        let table: BTreeSet<_> = RETURNS_DELETED_OBJECT
            .iter()
            .map(|(g, r)| (g.to_string(), r.to_string()))
            .collect();
        assert_eq!(
            table, golden,
            "the table names a resource kapi does not serve"
        );
    }

    #[test]
    fn every_golden_delete_is_of_a_resource_kapi_serves() {
        for ((group, resource), _) in golden_delete_answers() {
            assert!(
                RESOURCES
                    .iter()
                    .any(|r| r.group == group && r.plural == resource),
                "{group}/{resource}"
            );
        }
    }
}
