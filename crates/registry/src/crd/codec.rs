//! The storage codec of a custom resource version: JSON on disk in whatever version the
//! object was written at; reads convert through the CRD's converter and prune/default
//! (R4.12), writes convert to the current storage version (R4.11), request bodies are
//! coerced, pruned and defaulted in the request version (R4.8).

use crate::codec::ObjectCodec;
use crate::error::{Error, StatusCause};
use kapi_apiextensions::{
    CoerceError, ConversionError, CustomResourceSchemas, PipelineError, unknown_field_messages,
};
use serde_json::Value;
use std::sync::Arc;

/// Codec of one served version of a CRD.
pub struct CrCodec {
    schemas: Arc<CustomResourceSchemas>,
    group: String,
    version: String,
    kind: String,
    /// Conversion strategy `None`: objects of versions removed from the CRD are read as the
    /// storage version (only apiVersion would change anyway).
    none_conversion: bool,
    /// The version's `openAPIV3Schema` as published in OpenAPI.
    openapi: Option<Value>,
}

impl CrCodec {
    /// A codec serving `group/version` objects of `kind` through `schemas`.
    pub fn new(
        schemas: Arc<CustomResourceSchemas>,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Self {
        Self {
            schemas,
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            none_conversion: false,
            openapi: None,
        }
    }

    /// Sets the schema published in OpenAPI.
    pub fn with_openapi_schema(mut self, schema: Option<Value>) -> Self {
        self.openapi = schema;
        self
    }

    /// Marks the CRD's conversion strategy as `None`.
    pub fn with_none_conversion(mut self, none: bool) -> Self {
        self.none_conversion = none;
        self
    }

    /// kube-apiserver fails to read an object stored in a version the CRD no longer lists; with
    /// the `None` strategy kapi reads it as the storage version instead (pruned to its schema).
    fn adopt_removed_version(&self, obj: &mut Value) {
        let av = crate::meta::top_str(obj, "apiVersion");
        let version = av.rsplit_once('/').map_or(av, |(_, v)| v);
        if !self.none_conversion || self.schemas.version(version).is_ok() {
            return;
        }
        let storage = format!("{}/{}", self.group, self.schemas.storage_version());
        if let Some(map) = obj.as_object_mut() {
            map.insert("apiVersion".into(), Value::String(storage));
        }
    }

    fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }

    /// Maps a request-side pipeline error: malformed metadata is 400 (R4.8), an invalid
    /// embedded resource 422.
    fn request_error(&self, obj: &Value, e: PipelineError) -> Error {
        match e {
            PipelineError::Coerce(CoerceError::Invalid(fe)) => Error::invalid(
                &self.group,
                &self.kind,
                crate::meta::name(obj),
                super::causes(std::slice::from_ref(&fe)),
            ),
            PipelineError::Coerce(other) => Error::bad_request(format!(
                "{} in version \"{}\" cannot be handled as a {}: {other}",
                self.kind, self.version, self.kind
            )),
            other => Error::internal(other),
        }
    }
}

#[async_trait::async_trait]
impl ObjectCodec for CrCodec {
    fn is_deterministic(&self) -> bool {
        self.schemas.converts_deterministically()
    }

    async fn decode_stored(&self, bytes: &[u8]) -> Result<Value, Error> {
        let mut obj: Value = serde_json::from_slice(bytes)
            .map_err(|e| Error::internal(format!("decoding stored object: {e}")))?;
        self.adopt_removed_version(&mut obj);
        self.schemas
            .from_storage(obj, &self.version)
            .await
            .map_err(pipeline_error)
    }

    async fn decode_stored_many(&self, values: &[&[u8]]) -> Result<Vec<Value>, Error> {
        let mut objs = Vec::with_capacity(values.len());
        for bytes in values {
            let mut obj: Value = serde_json::from_slice(bytes)
                .map_err(|e| Error::internal(format!("decoding stored object: {e}")))?;
            self.adopt_removed_version(&mut obj);
            objs.push(obj);
        }
        let in_version = |o: &Value| {
            let av = crate::meta::top_str(o, "apiVersion");
            av.rsplit_once('/').map_or(av, |(_, v)| v) == self.version
        };
        if objs.iter().all(in_version) {
            // Nothing to convert: the per-object path only coerces/prunes/defaults.
            let mut out = Vec::with_capacity(objs.len());
            for o in objs {
                out.push(
                    self.schemas
                        .from_storage(o, &self.version)
                        .await
                        .map_err(pipeline_error)?,
                );
            }
            return Ok(out);
        }
        // One converter call for the whole page (issue 6: a list costs one webhook call).
        let out = self
            .schemas
            .list_from_storage(objs, &self.version)
            .await
            .map_err(pipeline_error)?;
        if out.len() != values.len() {
            return Err(Error::internal(
                "conversion returned another number of objects",
            ));
        }
        Ok(out)
    }

    /// Stored bytes a read would answer unchanged (same version, already pruned, defaulted
    /// and in serde_json's encoding: proven by `unchanged_read`, else `None` and the caller
    /// decodes through `from_storage`), with `resourceVersion` spliced into `metadata`.
    fn stored_json_with_resource_version(&self, bytes: &[u8], rv: i64) -> Option<Vec<u8>> {
        let slot = self.schemas.unchanged_read(bytes, &self.version)?;
        Some(slot.splice(bytes, rv))
    }

    async fn encode_for_storage(&self, obj: &Value) -> Result<Vec<u8>, Error> {
        let stored = self
            .schemas
            .to_storage(obj.clone())
            .await
            .map_err(pipeline_error)?;
        serde_json::to_vec(&stored).map_err(Error::internal)
    }

    fn normalize(&self, mut obj: Value) -> Result<Value, Error> {
        match self.schemas.decode_request(&mut obj, &self.version, false) {
            Ok(_) => Ok(obj),
            Err(e) => Err(self.request_error(&obj, e)),
        }
    }

    fn field_problems(&self, json: &[u8]) -> Vec<String> {
        let Ok((mut obj, dups)) = crate::json_dups::parse_with_duplicates(json) else {
            return Vec::new();
        };
        let mut out: Vec<String> = dups
            .iter()
            .map(|p| format!("duplicate field \"{p}\""))
            .collect();
        if let Ok(unknown) = self.schemas.decode_request(&mut obj, &self.version, true) {
            out.extend(unknown_field_messages(&unknown));
        }
        out
    }

    fn is_stored_current(&self, bytes: &[u8]) -> bool {
        #[derive(serde::Deserialize)]
        struct Head {
            #[serde(rename = "apiVersion", default)]
            api_version: String,
        }
        let storage = format!("{}/{}", self.group, self.schemas.storage_version());
        serde_json::from_slice::<Head>(bytes).is_ok_and(|h| h.api_version == storage)
    }

    fn openapi_schema(&self) -> Option<Value> {
        self.openapi.clone()
    }

    fn check_type(&self, kind: &str, api_version: &str) -> Option<Error> {
        let want = self.api_version();
        if !api_version.is_empty() && api_version != want {
            return Some(Error::bad_request(format!(
                "the API version in the data ({api_version}) does not match the expected API version ({want})"
            )));
        }
        if !kind.is_empty() && kind != self.kind {
            return Some(Error::bad_request(format!(
                "the kind in the data ({kind}) does not match the expected kind ({})",
                self.kind
            )));
        }
        None
    }
}

/// Maps a storage-side pipeline error. A failed conversion webhook answers 500 with the
/// webhook's words and no reason or details (docs/apiextensions.md, Appendix B.1); anything
/// else is an internal error.
fn pipeline_error(e: PipelineError) -> Error {
    match e {
        PipelineError::Conversion(ConversionError::Webhook(w)) => {
            Error::ConversionFailed(w.to_string())
        }
        other => Error::internal(other),
    }
}

/// Causes of a custom-resource validation (OpenAPI, then CEL) in `version`.
pub fn validation_causes(
    schemas: &CustomResourceSchemas,
    obj: &Value,
    old: Option<&Value>,
    version: &str,
    status_only: bool,
) -> Vec<StatusCause> {
    let errs = if status_only {
        schemas.validate_status(obj, old, version)
    } else {
        schemas.validate(obj, old, version)
    };
    match errs {
        Ok(errs) => super::causes(&errs),
        Err(e) => vec![StatusCause {
            reason: "InternalError".into(),
            message: e.to_string(),
            field: String::new(),
        }],
    }
}
