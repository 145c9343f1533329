//! CustomResourceDefinitions without HTTP: structural schemas, pruning, defaulting, validation
//! (OpenAPI and CEL), CRD validation and custom-resource converters.

pub mod field;
pub mod gojson;
pub mod structural;

pub use field::{BadValue, ErrorList, ErrorType, FieldError, FieldPath};
pub use structural::{BuildError, Structural};
pub mod coerce;
pub mod defaulting;
pub mod objectmeta;
pub mod prune;

pub use coerce::{CoerceError, CoerceOptions, coerce_custom_resource};
pub use defaulting::apply_defaults;
pub use prune::prune;
pub mod cel;
pub mod validation;

pub use validation::{CustomResourceValidator, ScalePaths, validate_openapi};
pub mod crd;
pub use crd::{validate_crd, validate_crd_status_update, validate_crd_update};
pub mod converter;
pub use converter::{
    ConversionError, CrConverter, NoneConverter, convert_list, convert_one, converter_for,
    converter_for_with,
};
pub mod webhook;
pub use webhook::{WebhookConverter, WebhookEnvironment, WebhookError};
pub mod status;
pub use status::{invalid_status, unknown_field_messages};
pub mod pipeline;
pub use pipeline::{CustomResourceSchemas, PipelineError, VersionSchema};
pub mod stored_read;
mod stored_scan;
pub use stored_read::ResourceVersionSlot;
