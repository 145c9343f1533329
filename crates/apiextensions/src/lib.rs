//! CustomResourceDefinitions without HTTP: structural schemas, pruning, defaulting, validation, converters.
