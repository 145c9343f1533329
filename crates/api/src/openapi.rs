//! The generated OpenAPI models (`openapi_models`) parsed, once per process on first use,
//! for the code that reads them as JSON: patch metadata, table column descriptions and
//! the served documents.

use serde_json::Value;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The schema of the definition `name` (`io.k8s.api.apps.v1.Deployment`).
pub fn schema(name: &str) -> Option<&'static Value> {
    static PARSED: OnceLock<HashMap<&'static str, Value>> = OnceLock::new();
    PARSED
        .get_or_init(|| {
            crate::openapi_models::MODELS
                .iter()
                .filter_map(|(name, text)| Some((*name, serde_json::from_str(text).ok()?)))
                .collect()
        })
        .get(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_model_parses() {
        for (name, _) in crate::openapi_models::MODELS {
            assert!(super::schema(name).is_some(), "{name}");
        }
    }
}
