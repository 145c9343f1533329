//! Custom-resource converters (R4.16–R4.19): one object-safe, async trait that converts a
//! batch of unstructured objects to a target version, and the `None` strategy that only
//! rewrites `apiVersion`. The webhook strategy (HTTPS) implements the same trait in
//! [`crate::webhook`].

use async_trait::async_trait;
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;
use std::sync::Arc;

/// Why a conversion failed (the server answers 500 with the text, R4.31).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConversionError {
    /// The target is not one of the CRD's versions.
    #[error("request to convert CR to an invalid group/version: {0}")]
    InvalidTarget(String),
    /// A single object is not in one of the CRD's versions.
    #[error("request to convert CR from an invalid group/version: {0}")]
    InvalidSource(String),
    /// A list item is not in one of the CRD's versions.
    #[error(
        "request to convert CR list failed, list index {index} has invalid group/version: {group_version}"
    )]
    InvalidListItem {
        /// Position in the list.
        index: usize,
        /// Its apiVersion.
        group_version: String,
    },
    /// `spec.conversion.strategy` is not one kapi implements.
    #[error("unknown conversion strategy {0:?}")]
    UnknownStrategy(String),
    /// The conversion webhook failed; the message is kube-apiserver's (R4.30, R4.31).
    #[error(transparent)]
    Webhook(#[from] crate::webhook::WebhookError),
    /// A converter-specific failure (e.g. a webhook's answer), already worded for the client.
    #[error("{0}")]
    Failed(String),
}

/// Converts custom resources between the versions of one CRD.
///
/// Object-safe (`Arc<dyn CrConverter>`) and async, because the webhook strategy calls out
/// over HTTPS. A list converts in one call: pass all its items.
#[async_trait]
pub trait CrConverter: Send + Sync {
    /// Converts every object to `target` (`group/version`), returning them in input order.
    async fn convert(
        &self,
        objects: Vec<Value>,
        target: &str,
    ) -> Result<Vec<Value>, ConversionError>;

    /// Whether the same objects always convert to the same result (true for conversions
    /// computed in-process; a webhook's answers may change while the CRD does not).
    fn is_deterministic(&self) -> bool {
        true
    }
}

/// The group and the versions a converter accepts.
#[derive(Clone, Debug)]
pub struct CrdVersions {
    group: String,
    versions: Vec<String>,
}

impl CrdVersions {
    /// The group and version names of `crd`.
    pub fn of(crd: &CustomResourceDefinition) -> Self {
        Self {
            group: crd.spec.group.clone(),
            versions: crd.spec.versions.iter().map(|v| v.name.clone()).collect(),
        }
    }

    /// From explicit names.
    pub fn new(
        group: impl Into<String>,
        versions: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            group: group.into(),
            versions: versions.into_iter().map(Into::into).collect(),
        }
    }

    /// Whether `group_version` is `group/<one of the versions>`.
    pub fn accepts(&self, group_version: &str) -> bool {
        group_version
            .split_once('/')
            .is_some_and(|(g, v)| g == self.group && self.versions.iter().any(|x| x == v))
    }

    /// The checks every converter makes first: `target` is one of the versions (else
    /// `InvalidTarget`), and so is each object's (else `InvalidListItem` naming the first).
    pub fn check(&self, objects: &[Value], target: &str) -> Result<(), ConversionError> {
        if !self.accepts(target) {
            return Err(ConversionError::InvalidTarget(target.to_string()));
        }
        match objects.iter().position(|o| !self.accepts(api_version(o))) {
            Some(index) => Err(ConversionError::InvalidListItem {
                index,
                group_version: api_version(&objects[index]).to_owned(),
            }),
            None => Ok(()),
        }
    }
}

fn api_version(obj: &Value) -> &str {
    obj.get("apiVersion").and_then(Value::as_str).unwrap_or("")
}

/// The `None` strategy: only `apiVersion` changes; schema differences are absorbed by
/// pruning afterwards (R4.19).
#[derive(Clone, Debug)]
pub struct NoneConverter {
    versions: CrdVersions,
}

impl NoneConverter {
    /// A `None` converter for the CRD's versions.
    pub fn new(versions: CrdVersions) -> Self {
        Self { versions }
    }
}

#[async_trait]
impl CrConverter for NoneConverter {
    async fn convert(
        &self,
        mut objects: Vec<Value>,
        target: &str,
    ) -> Result<Vec<Value>, ConversionError> {
        self.versions.check(&objects, target)?;
        for obj in &mut objects {
            if let Value::Object(map) = obj {
                map.insert("apiVersion".into(), Value::String(target.to_string()));
            }
        }
        Ok(objects)
    }
}

/// Converts one object; a bad source version is reported as for a single object (R4.17).
pub async fn convert_one(
    converter: &dyn CrConverter,
    obj: Value,
    target: &str,
) -> Result<Value, ConversionError> {
    match converter.convert(vec![obj], target).await {
        Ok(mut v) => v
            .pop()
            .ok_or_else(|| ConversionError::Failed("converter returned no object".into())),
        Err(ConversionError::InvalidListItem { group_version, .. }) => {
            Err(ConversionError::InvalidSource(group_version))
        }
        Err(e) => Err(e),
    }
}

/// Converts a list object (`{"apiVersion", "kind", "items": […]}`) in one call and sets the
/// list's own apiVersion to the target (R4.28).
pub async fn convert_list(
    converter: &dyn CrConverter,
    mut list: Value,
    target: &str,
) -> Result<Value, ConversionError> {
    let items = match list.get_mut("items").map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let converted = converter.convert(items, target).await?;
    if let Value::Object(map) = &mut list {
        map.insert("items".into(), Value::Array(converted));
        map.insert("apiVersion".into(), Value::String(target.to_string()));
    }
    Ok(list)
}

/// Converts with a CRD's declarative rules (kapi-conversion), in-process: the objects keep
/// their metadata but for annotations (where preserved fields travel), as the webhook
/// converter's answers must.
#[derive(Clone, Debug)]
pub struct RulesConverter {
    versions: CrdVersions,
    kind: String,
    rules: Arc<kapi_conversion::Rules>,
}

impl RulesConverter {
    /// A converter of the CRD's versions by `rules`.
    pub fn new(crd: &CustomResourceDefinition, rules: kapi_conversion::Rules) -> Self {
        Self {
            versions: CrdVersions::of(crd),
            kind: crd.spec.names.kind.clone(),
            rules: Arc::new(rules),
        }
    }
}

#[async_trait]
impl CrConverter for RulesConverter {
    async fn convert(
        &self,
        mut objects: Vec<Value>,
        target: &str,
    ) -> Result<Vec<Value>, ConversionError> {
        self.versions.check(&objects, target)?;
        let version = target.rsplit_once('/').map_or(target, |(_, v)| v);
        for obj in &mut objects {
            let from = api_version(obj).to_owned();
            if from == target {
                continue;
            }
            let converted = self.rules.convert_owned(obj.take(), version).map_err(|e| {
                ConversionError::Failed(format!(
                    "conversion rules for {from}, Kind={} failed: {e}",
                    self.kind
                ))
            })?;
            *obj = converted;
        }
        Ok(objects)
    }
}

/// The converter `spec.conversion.strategy` asks for (R4.16); a missing conversion means `None`.
/// A CRD with declarative rules (the `conversion.kapi.dev/rules` annotation) converts by
/// them in-process, whatever its strategy: on a real cluster the same CRD's strategy names
/// the webhook that serves the rules.
/// A `Webhook` converter gets an environment of its own (default resolution, its own client
/// pool and metrics); servers inject theirs with [`converter_for_with`].
pub fn converter_for(
    crd: &CustomResourceDefinition,
) -> Result<Arc<dyn CrConverter>, ConversionError> {
    converter_for_with(crd, Arc::new(crate::webhook::WebhookEnvironment::new()))
}

/// [`converter_for`] with an explicit webhook environment (resolvers, client pool, metrics).
pub fn converter_for_with(
    crd: &CustomResourceDefinition,
    env: Arc<crate::webhook::WebhookEnvironment>,
) -> Result<Arc<dyn CrConverter>, ConversionError> {
    if let Some(rules) = crate::crd::conversion_rules::rules_of(crd) {
        let rules = rules.map_err(ConversionError::Failed)?;
        return Ok(Arc::new(RulesConverter::new(crd, rules)));
    }
    let strategy = crd
        .spec
        .conversion
        .as_ref()
        .map_or("None", |c| c.strategy.as_str());
    match strategy {
        "None" => Ok(Arc::new(NoneConverter::new(CrdVersions::of(crd)))),
        "Webhook" => Ok(Arc::new(crate::webhook::WebhookConverter::new(crd, env))),
        other => Err(ConversionError::UnknownStrategy(other.to_string())),
    }
}
