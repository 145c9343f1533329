//! Golden kube-apiserver responses recorded in `testdata/golden/` at the repository root
//! (custom-resource ones under its `crd/` folder).

use std::path::{Path, PathBuf};

/// Where golden file `name` lives: `testdata/golden/NAME`, else `testdata/golden/crd/NAME`.
pub fn golden_path(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/golden");
    let top = root.join(name);
    if top.exists() {
        top
    } else {
        root.join("crd").join(name)
    }
}

/// Golden file `name` parsed as JSON (panics naming the file when it is missing).
pub fn golden(name: &str) -> serde_json::Value {
    let path = golden_path(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_finds_custom_resource_files_under_crd() {
        assert_eq!(
            golden("crd-create.json")["kind"],
            "CustomResourceDefinition"
        );
    }
}
