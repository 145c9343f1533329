//! `kapi convert --crd FILE`: offline conversion of custom resources through their CRD's
//! conversion strategy (None, or the Webhook at `clientConfig.url` / `clientConfig.service`).
//!
//! Each object is treated as stored in its own version and read in the output version, as
//! kube-apiserver decodes it (R4.12): coerce, prune and default with its own version's schema,
//! convert (one converter call for all objects), prune with the output version's schema.
//! `--round-trip` converts A→B→A for every pair of served versions and reports each field
//! path whose value does not survive, so a lossy conversion is found before it loses data.

use crate::convert::{
    ConvertArgs, OutputFormat, indent_json, is_list, parse_documents, read_input,
};
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_apiextensions::webhook::{ServiceResolver, StaticServiceResolver};
use kapi_apiextensions::{CustomResourceSchemas, WebhookEnvironment};
use kapi_machinery::serializer::yaml;
use serde_json::{Value, json};
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs `kapi convert --crd …`: prints the converted objects, or the round-trip report.
pub fn run(args: &ConvertArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: starting the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let job = Job::load(args)?;
        if args.round_trip {
            job.round_trip().await
        } else {
            job.convert(args).await.map(|out| (out, true))
        }
    });
    match result {
        Ok((out, clean)) => {
            let mut stdout = std::io::stdout().lock();
            if stdout.write_all(&out).and_then(|_| stdout.flush()).is_err() {
                return ExitCode::FAILURE;
            }
            if clean {
                ExitCode::SUCCESS
            } else {
                eprintln!("error: some fields do not survive a round trip");
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The CRD, its compiled pipeline and the objects to convert.
struct Job {
    crd: CustomResourceDefinition,
    schemas: CustomResourceSchemas,
    objects: Vec<Value>,
    list_in: bool,
    /// The CRD's declarative conversion rules, when it has them (they name what loses a field).
    rules: Option<kapi_conversion::Rules>,
}

/// `n` objects of each served version of `crd`, generated from its schema (a fixed seed:
/// the same objects every run).
fn generated_objects(crd: &CustomResourceDefinition, n: usize) -> Result<Vec<Value>, String> {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut out = Vec::new();
    for v in crd.spec.versions.iter().filter(|v| v.served) {
        let schema = v
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
            .and_then(|s| serde_json::to_value(s).ok())
            .unwrap_or_else(|| json!({"type": "object"}));
        let gvk = kapi_machinery::schema::GroupVersionKind::new(
            &crd.spec.group,
            &v.name,
            &crd.spec.names.kind,
        );
        let namespaced = crd.spec.scope == "Namespaced";
        let strategy = kapi_webhook::testing::object_strategy(&gvk, namespaced, &schema);
        for _ in 0..n {
            let tree = strategy
                .new_tree(&mut runner)
                .map_err(|e| format!("generating {}: {e}", v.name))?;
            out.push(tree.current());
        }
    }
    Ok(out)
}

fn load_crd(path: &str) -> Result<CustomResourceDefinition, String> {
    let input = parse_documents(&read_input(path)?)?;
    let [doc] = input.docs.as_slice() else {
        return Err(format!("{path}: want exactly one CustomResourceDefinition"));
    };
    if doc.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
        return Err(format!("{path}: not a CustomResourceDefinition"));
    }
    serde_json::from_value(doc.clone()).map_err(|e| format!("{path}: {e}"))
}

impl Job {
    fn load(args: &ConvertArgs) -> Result<Self, String> {
        let crd_path = args.crd.as_deref().ok_or("--crd is required")?;
        let crd = load_crd(crd_path)?;
        let resolver =
            StaticServiceResolver::from_flags(args.service_resolver.iter().map(String::as_str))
                .map_err(|e| format!("--service-resolver: {e}"))?;
        let resolver: Arc<dyn ServiceResolver> = Arc::new(resolver);
        let webhooks = Arc::new(WebhookEnvironment::new().add_service_resolver(resolver));
        let schemas = CustomResourceSchemas::with_webhooks(&crd, webhooks)
            .map_err(|e| format!("{crd_path}: {e}"))?;
        let input = parse_documents(&read_input(&args.filename)?)?;
        let list_in = input.docs.len() == 1 && is_list(&input.docs[0]);
        let mut objects = Vec::new();
        for doc in input.docs {
            match doc.get("items").filter(|_| is_list(&doc)) {
                Some(Value::Array(items)) => objects.extend(items.iter().cloned()),
                _ => objects.push(doc),
            }
        }
        for (i, obj) in objects.iter().enumerate() {
            check_object(&crd, obj).map_err(|e| format!("object {}: {e}", i + 1))?;
        }
        objects.extend(generated_objects(&crd, args.generated)?);
        let rules = kapi_apiextensions::crd::conversion_rules::rules_of(&crd)
            .transpose()
            .map_err(|e| format!("{crd_path}: {e}"))?;
        Ok(Job {
            crd,
            schemas,
            objects,
            list_in,
            rules,
        })
    }

    /// The objects read in `version` (R4.12), converted in one call.
    async fn read_as(&self, objects: Vec<Value>, version: &str) -> Result<Vec<Value>, String> {
        self.schemas
            .list_from_storage(objects, version)
            .await
            .map_err(|e| e.to_string())
    }

    async fn convert(&self, args: &ConvertArgs) -> Result<Vec<u8>, String> {
        let wanted = args
            .output_version
            .as_deref()
            .ok_or("--output-version is required")?;
        let version = target_version(&self.crd, wanted)?;
        let out = self.read_as(self.objects.clone(), &version).await?;
        render(&out, args.output, self.list_in)
    }

    /// A→B→A for every ordered pair of served versions; the report and whether it is clean.
    async fn round_trip(&self) -> Result<(Vec<u8>, bool), String> {
        let served = served_versions(&self.crd);
        let mut report = String::new();
        let mut losses = 0usize;
        for a in &served {
            let start = self.read_as(self.objects.clone(), a).await?;
            for b in served.iter().filter(|b| *b != a) {
                let there = self.read_as(start.clone(), b).await?;
                let back = self.read_as(there, a).await?;
                for (obj, (before, after)) in start.iter().zip(&back).enumerate() {
                    let mut lost = Vec::new();
                    lost_fields(before, after, String::new(), &mut lost);
                    for field in lost {
                        losses += 1;
                        report.push_str(&format!(
                            "{} {a} -> {b} -> {a}: {field}\n",
                            object_label(obj, before)
                        ));
                        if let Some(rules) = &self.rules {
                            let path = field.split(' ').next().unwrap_or("");
                            report.push_str(&format!("    {}\n", rules.explain_loss(a, b, path)));
                        }
                    }
                }
            }
        }
        if losses == 0 {
            report.push_str(&format!(
                "every field of {} object(s) survives a round trip between {}\n",
                self.objects.len(),
                served.join(", ")
            ));
        }
        Ok((report.into_bytes(), losses == 0))
    }
}

/// The names of the CRD's served versions, in its order.
pub(crate) fn served_versions(crd: &CustomResourceDefinition) -> Vec<&str> {
    crd.spec
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| v.name.as_str())
        .collect()
}

/// Checks that `obj` is a custom resource of `crd` in one of its versions.
fn check_object(crd: &CustomResourceDefinition, obj: &Value) -> Result<(), String> {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    if kind != crd.spec.names.kind || group != crd.spec.group {
        return Err(format!(
            "{api_version}, Kind={kind} is not a custom resource of {}",
            crd.metadata.name
        ));
    }
    if !crd.spec.versions.iter().any(|v| v.name == version) {
        return Err(format!(
            "{api_version} is not a version of this CustomResourceDefinition"
        ));
    }
    Ok(())
}

/// The version named by `--output-version` (`group/version` or just `version`).
fn target_version(crd: &CustomResourceDefinition, wanted: &str) -> Result<String, String> {
    let (group, version) = wanted.rsplit_once('/').unwrap_or((&crd.spec.group, wanted));
    if group != crd.spec.group || !crd.spec.versions.iter().any(|v| v.name == version) {
        return Err(format!(
            "--output-version {wanted:?} is not a version of group {:?} in this CustomResourceDefinition",
            crd.spec.group
        ));
    }
    Ok(version.to_string())
}

/// `object N (namespace/name)` for the round-trip report.
fn object_label(index: usize, obj: &Value) -> String {
    let meta = &obj["metadata"];
    let name = meta["name"].as_str().unwrap_or("");
    match meta["namespace"].as_str() {
        Some(ns) => format!("object {} ({ns}/{name}):", index + 1),
        None => format!("object {} ({name}):", index + 1),
    }
}

/// Every leaf path of `before` that `after` lacks or holds with another value.
pub(crate) fn lost_fields(before: &Value, after: &Value, path: String, out: &mut Vec<String>) {
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            for (key, value) in b {
                let sub = format!("{path}.{key}");
                match a.get(key) {
                    Some(other) => lost_fields(value, other, sub, out),
                    None => out.push(format!("{sub} lost (was {value})")),
                }
            }
        }
        (Value::Array(b), Value::Array(a)) if a.len() == b.len() => {
            for (i, (x, y)) in b.iter().zip(a).enumerate() {
                lost_fields(x, y, format!("{path}[{i}]"), out);
            }
        }
        _ if before != after => out.push(format!("{path} changed from {before} to {after}")),
        _ => {}
    }
}

fn render(objects: &[Value], format: OutputFormat, list_in: bool) -> Result<Vec<u8>, String> {
    let as_list = list_in || objects.len() != 1;
    let list = || json!({"kind": "List", "apiVersion": "v1", "metadata": {}, "items": objects});
    let mut out = Vec::new();
    match format {
        OutputFormat::Json => {
            let value = if as_list { list() } else { objects[0].clone() };
            let compact = serde_json::to_vec(&value).map_err(|e| e.to_string())?;
            indent_json(&compact, &mut out);
        }
        OutputFormat::Yaml if list_in => {
            yaml::value_to_yaml(&list(), &mut out).map_err(|e| e.to_string())?;
        }
        OutputFormat::Yaml => {
            for (i, obj) in objects.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b"---\n");
                }
                yaml::value_to_yaml(obj, &mut out).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_fields_reports_missing_and_changed_leaves_with_paths() {
        let before = json!({"spec": {"label": "a", "n": 1, "l": [1, 2]}});
        let after = json!({"spec": {"n": 2, "l": [1, 3], "extra": true}});
        let mut out = Vec::new();
        lost_fields(&before, &after, String::new(), &mut out);
        out.sort();
        assert_eq!(
            out,
            [
                ".spec.l[1] changed from 2 to 3",
                ".spec.label lost (was \"a\")",
                ".spec.n changed from 1 to 2"
            ]
        );
    }
}
