//! The field sets field selectors match against (`fieldSelector=`), per kind, as the
//! registries in pkg/registry/core/*/strategy.go build them: `metadata.name`, plus
//! `metadata.namespace` for namespaced kinds, plus the kind's own fields (R1.16 lists the
//! accepted labels; these are their values).

use crate::apiextensions::v1::CustomResourceDefinition;
use crate::core::v1::{Event, Namespace, Secret};
use kapi_machinery::runtime::Object;
use std::collections::BTreeMap;

/// A field set: label → value.
pub type Fields = BTreeMap<&'static str, String>;

fn meta_fields(obj: &dyn Object, namespaced: bool) -> Fields {
    let mut fields = Fields::new();
    if let Some(meta) = obj.object_meta() {
        fields.insert("metadata.name", meta.name.clone());
        if namespaced {
            fields.insert("metadata.namespace", meta.namespace.clone());
        }
    }
    fields
}

/// The selectable fields of a built-in object; metadata only for kinds without own fields.
pub fn selectable_fields(obj: &dyn Object) -> Fields {
    if let Some(ns) = obj.downcast_ref::<Namespace>() {
        let mut fields = meta_fields(obj, false);
        fields.insert("status.phase", ns.status.phase.clone());
        return fields;
    }
    if obj.is::<CustomResourceDefinition>() {
        return meta_fields(obj, false);
    }
    let mut fields = meta_fields(obj, true);
    if let Some(secret) = obj.downcast_ref::<Secret>() {
        fields.insert("type", secret.r#type.clone());
    } else if let Some(event) = obj.downcast_ref::<Event>() {
        add_event_fields(event, &mut fields);
    }
    fields
}

fn add_event_fields(event: &Event, fields: &mut Fields) {
    let o = &event.involved_object;
    fields.insert("involvedObject.kind", o.kind.clone());
    fields.insert("involvedObject.namespace", o.namespace.clone());
    fields.insert("involvedObject.name", o.name.clone());
    fields.insert("involvedObject.uid", o.uid.clone());
    fields.insert("involvedObject.apiVersion", o.api_version.clone());
    fields.insert("involvedObject.resourceVersion", o.resource_version.clone());
    fields.insert("involvedObject.fieldPath", o.field_path.clone());
    fields.insert("reason", event.reason.clone());
    fields.insert("reportingComponent", event.reporting_component.clone());
    // Events from the newer API carry only the reporting controller.
    let source = if event.source.component.is_empty() {
        &event.reporting_component
    } else {
        &event.source.component
    };
    fields.insert("source", source.clone());
    fields.insert("type", event.r#type.clone());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::v1::ConfigMap;

    #[test]
    fn namespace_fields_have_name_and_phase_but_no_namespace() {
        let mut ns = Namespace::default();
        ns.metadata.name = "a".into();
        ns.status.phase = "Active".into();
        let fields = selectable_fields(&ns);
        assert_eq!(
            fields.keys().copied().collect::<Vec<_>>(),
            ["metadata.name", "status.phase"]
        );
    }

    #[test]
    fn secret_fields_include_the_type() {
        let secret = Secret {
            r#type: "Opaque".into(),
            ..Default::default()
        };
        assert_eq!(selectable_fields(&secret)["type"], "Opaque");
        assert!(selectable_fields(&secret).contains_key("metadata.namespace"));
    }

    #[test]
    fn event_source_falls_back_to_the_reporting_controller() {
        let mut event = Event {
            reporting_component: "kubelet".into(),
            ..Default::default()
        };
        assert_eq!(selectable_fields(&event)["source"], "kubelet");
        event.source.component = "scheduler".into();
        assert_eq!(selectable_fields(&event)["source"], "scheduler");
    }

    #[test]
    fn other_kinds_have_metadata_fields_only() {
        let cm = ConfigMap::default();
        let keys: Vec<_> = selectable_fields(&cm).keys().copied().collect();
        assert_eq!(keys, ["metadata.name", "metadata.namespace"]);
    }
}
