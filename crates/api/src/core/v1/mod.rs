//! core/v1: Namespace, ConfigMap, Secret, Event and their lists.

mod config_map;
mod event;
mod namespace;
mod register;
mod secret;

pub use config_map::{ConfigMap, ConfigMapList};
pub use event::{Event, EventList, EventSeries, EventSource, ObjectReference};
pub use namespace::{Namespace, NamespaceCondition, NamespaceList, NamespaceSpec, NamespaceStatus};
pub use register::{
    GROUP_VERSION, LABEL_METADATA_NAME, NAMESPACE_ACTIVE, add_to_scheme, set_defaults_namespace,
    set_defaults_secret,
};
pub use secret::{SECRET_TYPE_OPAQUE, Secret, SecretList};
