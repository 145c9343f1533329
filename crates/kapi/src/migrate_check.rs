//! Before `kapi migrate` rewrites a custom resource's objects into its storage version: when
//! the CRD converts by declarative rules, every object is read in each other version still
//! in `status.storedVersions`, taken through the storage version and back by the pipeline
//! the server runs (prune, default, convert by the rules), and each field that does not come
//! back is reported with the step to blame. `kapi migrate` refuses to run on a loss unless
//! told `--allow-data-loss`.

use crate::convert_cr::{lost_fields, served_versions};
use crate::storage_versions::{ClientError, get_json};
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_apiextensions::CustomResourceSchemas;

/// The fields the rules of `resource.group` would lose, one line each (none for a resource
/// that is not a custom resource converted by rules).
pub async fn rules_losses(
    client: &kube::Client,
    resource: &str,
    group: &str,
) -> Result<Vec<String>, ClientError> {
    let path =
        format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{resource}.{group}");
    let crd = match get_json(client, &path).await {
        Ok(v) => v,
        Err(ClientError::Request(kube::Error::Api(s))) if s.code == 404 => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let crd: CustomResourceDefinition = serde_json::from_value(crd)
        .map_err(|e| ClientError::Failed(format!("reading the CRD: {e}")))?;
    let Some(rules) = kapi_apiextensions::crd::conversion_rules::rules_of(&crd) else {
        return Ok(Vec::new());
    };
    let rules = rules.map_err(ClientError::Failed)?;
    let schemas = CustomResourceSchemas::new(&crd)
        .map_err(|e| ClientError::Failed(format!("the CRD's schemas: {e}")))?;
    let storage = schemas.storage_version().to_owned();
    let served = served_versions(&crd);
    let mut lines = Vec::new();
    for old in crd.status.stored_versions.iter().flatten() {
        if *old == storage || !served.contains(&old.as_str()) {
            continue;
        }
        let list = get_json(client, &format!("/apis/{group}/{old}/{resource}")).await?;
        let items = list["items"].as_array().cloned().unwrap_or_default();
        let fail = |e: kapi_apiextensions::PipelineError| ClientError::Failed(e.to_string());
        let there = schemas
            .list_from_storage(items.clone(), &storage)
            .await
            .map_err(fail)?;
        let back = schemas.list_from_storage(there, old).await.map_err(fail)?;
        for (before, after) in items.iter().zip(&back) {
            let mut lost = Vec::new();
            lost_fields(&before["spec"], &after["spec"], ".spec".into(), &mut lost);
            lost_fields(
                &before["status"],
                &after["status"],
                ".status".into(),
                &mut lost,
            );
            let meta = &before["metadata"];
            let name = match meta["namespace"].as_str() {
                Some(ns) => format!("{ns}/{}", meta["name"].as_str().unwrap_or("")),
                None => meta["name"].as_str().unwrap_or("").to_owned(),
            };
            for field in lost {
                let path = field.split(' ').next().unwrap_or("");
                lines.push(format!(
                    "{name}: {old} -> {storage} -> {old}: {field}\n    {}",
                    rules.explain_loss(old, &storage, path)
                ));
            }
        }
    }
    Ok(lines)
}
