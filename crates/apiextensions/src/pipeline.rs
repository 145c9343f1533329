//! The schema work of a custom resource's requests, in kube-apiserver's order, for one CRD:
//! decode (R4.8), validate (R4.10), encode for storage (R4.11), decode from storage (R4.12).
//! Built once per CRD change; the server wraps HTTP around it.

use crate::coerce::{CoerceError, CoerceOptions, coerce_custom_resource};
use crate::converter::{ConversionError, CrConverter, converter_for_with};
use crate::defaulting::apply_defaults;
use crate::field::ErrorList;
use crate::prune::prune;
use crate::stored_read::ResourceVersionSlot;
use crate::structural::{BuildError, Structural};
use crate::validation::{CustomResourceValidator, ScalePaths};
use crate::webhook::WebhookEnvironment;
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why the pipeline could not handle an object or a CRD.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A version's schema is not structural enough to build (the CRD was not validated).
    #[error("version {version}: {source}")]
    Schema {
        /// The version.
        version: String,
        /// Why.
        source: BuildError,
    },
    /// The object's apiVersion names a version the CRD does not have.
    #[error("no version {0:?} in this CustomResourceDefinition")]
    UnknownVersion(String),
    /// The CRD has no storage version.
    #[error("the CustomResourceDefinition has no storage version")]
    NoStorageVersion,
    /// Metadata or embedded resources are malformed.
    #[error(transparent)]
    Coerce(#[from] CoerceError),
    /// Conversion between versions failed.
    #[error(transparent)]
    Conversion(#[from] ConversionError),
}

/// The compiled schema of one version.
#[derive(Debug)]
pub struct VersionSchema {
    /// The structural schema (a preserve-everything node when the version has none).
    pub structural: Structural,
    /// Its validator (OpenAPI, scale, embedded, list types, CEL).
    pub validator: CustomResourceValidator,
}

/// Everything needed to handle the custom resources of one CRD.
pub struct CustomResourceSchemas {
    group: String,
    preserve_unknown_fields: bool,
    storage_version: String,
    versions: BTreeMap<String, VersionSchema>,
    converter: Arc<dyn CrConverter>,
}

impl std::fmt::Debug for CustomResourceSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomResourceSchemas")
            .field("group", &self.group)
            .field("storage_version", &self.storage_version)
            .field("versions", &self.versions.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

fn version_of(obj: &Value) -> &str {
    let av = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    av.rsplit_once('/').map_or(av, |(_, v)| v)
}

impl CustomResourceSchemas {
    /// Compiles every version's schema and picks the converter of `spec.conversion`.
    pub fn new(crd: &CustomResourceDefinition) -> Result<Self, PipelineError> {
        Self::with_webhooks(crd, Arc::new(WebhookEnvironment::new()))
    }

    /// [`CustomResourceSchemas::new`] whose webhook converter (if the CRD has one) calls
    /// through `webhooks` (service resolvers, client pool, metrics) — the server's, injected.
    pub fn with_webhooks(
        crd: &CustomResourceDefinition,
        webhooks: Arc<WebhookEnvironment>,
    ) -> Result<Self, PipelineError> {
        let mut versions = BTreeMap::new();
        for v in &crd.spec.versions {
            let structural = match v
                .schema
                .as_ref()
                .and_then(|s| s.open_api_v3_schema.as_deref())
            {
                Some(props) => {
                    let json = serde_json::to_value(props).unwrap_or(Value::Null);
                    Structural::from_json(&json).map_err(|source| PipelineError::Schema {
                        version: v.name.clone(),
                        source,
                    })?
                }
                None => Structural {
                    preserve_unknown_fields: true,
                    ..Structural::default()
                },
            };
            let scale = v
                .subresources
                .as_ref()
                .and_then(|s| s.scale.as_ref())
                .map(|s| ScalePaths {
                    spec_replicas_path: s.spec_replicas_path.clone(),
                    status_replicas_path: s.status_replicas_path.clone(),
                });
            let validator = CustomResourceValidator::new(&structural, scale);
            versions.insert(
                v.name.clone(),
                VersionSchema {
                    structural,
                    validator,
                },
            );
        }
        let storage_version = crd
            .spec
            .versions
            .iter()
            .find(|v| v.storage)
            .map(|v| v.name.clone())
            .ok_or(PipelineError::NoStorageVersion)?;
        Ok(Self {
            group: crd.spec.group.clone(),
            preserve_unknown_fields: crd.spec.preserve_unknown_fields,
            storage_version,
            versions,
            converter: converter_for_with(crd, webhooks)?,
        })
    }

    /// The compiled schema of `version`.
    pub fn version(&self, version: &str) -> Result<&VersionSchema, PipelineError> {
        self.versions
            .get(version)
            .ok_or_else(|| PipelineError::UnknownVersion(version.to_string()))
    }

    /// Whether reads convert the same stored object the same way every time (no webhook).
    pub fn converts_deterministically(&self) -> bool {
        self.converter.is_deterministic()
    }

    /// The storage version's name.
    pub fn storage_version(&self) -> &str {
        &self.storage_version
    }

    fn group_version(&self, version: &str) -> String {
        format!("{}/{version}", self.group)
    }

    /// Request decode (R4.8): coerce and prune with the request version's schema, then default
    /// with it. Returns the unknown field paths when `report_unknown` (Warn/Strict).
    pub fn decode_request(
        &self,
        obj: &mut Value,
        version: &str,
        report_unknown: bool,
    ) -> Result<Vec<String>, PipelineError> {
        let v = self.version(version)?;
        let opts = CoerceOptions {
            preserve_unknown_fields: self.preserve_unknown_fields,
            ..CoerceOptions::for_request(report_unknown)
        };
        let unknown = coerce_custom_resource(obj, &v.structural, &opts)?;
        apply_defaults(obj, &v.structural);
        Ok(unknown)
    }

    /// Validation of a create (`old` = `None`) or update in the request version (R4.10).
    pub fn validate(
        &self,
        obj: &Value,
        old: Option<&Value>,
        version: &str,
    ) -> Result<ErrorList, PipelineError> {
        Ok(self.version(version)?.validator.validate(obj, old))
    }

    /// Validation of a write through `/status` in the request version.
    pub fn validate_status(
        &self,
        obj: &Value,
        old: Option<&Value>,
        version: &str,
    ) -> Result<ErrorList, PipelineError> {
        Ok(self.version(version)?.validator.validate_status(obj, old))
    }

    fn prune_to(&self, obj: &mut Value, version: &str) -> Result<(), PipelineError> {
        if !self.preserve_unknown_fields {
            prune(obj, &self.version(version)?.structural, true, false);
        }
        Ok(())
    }

    /// Storage encode (R4.11): convert to the storage version, then prune with its schema.
    /// No defaulting happens here.
    pub async fn to_storage(&self, obj: Value) -> Result<Value, PipelineError> {
        if version_of(&obj) == self.storage_version {
            return Ok(obj);
        }
        let target = self.group_version(&self.storage_version);
        let mut out = crate::converter::convert_one(&*self.converter, obj, &target).await?;
        self.prune_to(&mut out, &self.storage_version)?;
        Ok(out)
    }

    fn decode_stored(&self, obj: &mut Value) -> Result<(), PipelineError> {
        let stored = version_of(obj).to_string();
        let v = self.version(&stored)?;
        let opts = CoerceOptions {
            preserve_unknown_fields: self.preserve_unknown_fields,
            ..CoerceOptions::for_storage()
        };
        coerce_custom_resource(obj, &v.structural, &opts)?;
        apply_defaults(obj, &v.structural);
        Ok(())
    }

    /// Storage decode (R4.12): coerce, prune and default with the stored object's own version,
    /// convert to `version`, prune with its schema. No defaulting in the target version.
    pub async fn from_storage(
        &self,
        mut obj: Value,
        version: &str,
    ) -> Result<Value, PipelineError> {
        self.decode_stored(&mut obj)?;
        if version_of(&obj) == version {
            return Ok(obj);
        }
        let target = self.group_version(version);
        let mut out = crate::converter::convert_one(&*self.converter, obj, &target).await?;
        self.prune_to(&mut out, version)?;
        Ok(out)
    }

    /// When reading `bytes` (a stored object) in `version` would answer exactly those bytes
    /// (as serde_json encodes the result) plus `metadata.resourceVersion`: where that goes.
    /// Proven for objects stored at `version` itself; `None` whenever unsure, and then
    /// [`Self::from_storage`] must run (it does prune and default on read, R4.12).
    pub fn unchanged_read(&self, bytes: &[u8], version: &str) -> Option<ResourceVersionSlot> {
        if self.preserve_unknown_fields {
            return None;
        }
        let schema = &self.versions.get(version)?.structural;
        crate::stored_read::unchanged_read(bytes, schema, &self.group, version)
    }

    /// [`Self::from_storage`] for many objects, converted in one converter call (a list).
    pub async fn list_from_storage(
        &self,
        mut objs: Vec<Value>,
        version: &str,
    ) -> Result<Vec<Value>, PipelineError> {
        for obj in &mut objs {
            self.decode_stored(obj)?;
        }
        let target = self.group_version(version);
        let mut out = self.converter.convert(objs, &target).await?;
        for obj in &mut out {
            self.prune_to(obj, version)?;
        }
        Ok(out)
    }
}
