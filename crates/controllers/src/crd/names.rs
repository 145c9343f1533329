//! The naming and establishing half of the CRD controller (apiextensions-apiserver's naming
//! and establishing controllers): whether a CRD's names are free in its group, and the
//! `NamesAccepted` / `Established` conditions and `status.acceptedNames` that say so.

use kapi_api::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames,
};

/// A CRD condition with `status` True or False.
pub fn condition(
    kind: &str,
    ok: bool,
    reason: &str,
    message: &str,
) -> CustomResourceDefinitionCondition {
    CustomResourceDefinitionCondition {
        r#type: kind.into(),
        status: if ok { "True" } else { "False" }.into(),
        reason: reason.into(),
        message: message.into(),
        ..Default::default()
    }
}

fn names_of(n: &CustomResourceDefinitionNames) -> Vec<&str> {
    let mut out = vec![
        n.plural.as_str(),
        n.singular.as_str(),
        n.kind.as_str(),
        n.list_kind.as_str(),
    ];
    out.extend(n.short_names.iter().map(String::as_str));
    out.retain(|s| !s.is_empty());
    out
}

/// Whether the condition `kind` is `status` ("True"/"False").
pub fn has_condition(crd: &CustomResourceDefinition, kind: &str, status: &str) -> bool {
    crd.status
        .conditions
        .iter()
        .flatten()
        .any(|c| c.r#type == kind && c.status == status)
}

/// Whether the CRD's current names are the accepted ones.
fn holds_its_names(crd: &CustomResourceDefinition) -> bool {
    has_condition(crd, "NamesAccepted", "True") && crd.status.accepted_names == crd.spec.names
}

/// Whether the CRD is Established (served).
pub fn established(crd: &CustomResourceDefinition) -> bool {
    has_condition(crd, "Established", "True")
}

/// False when another CRD of the group (`others`) holds one of this CRD's names: one whose
/// names are accepted, or an older one (creation time, then name) not yet accepted. Names
/// once accepted stay accepted.
pub fn accepted(crd: &CustomResourceDefinition, others: &[CustomResourceDefinition]) -> bool {
    if holds_its_names(crd) {
        return true;
    }
    let mine = names_of(&crd.spec.names);
    let overlaps =
        |names: &CustomResourceDefinitionNames| names_of(names).iter().any(|n| mine.contains(n));
    let key =
        |c: &CustomResourceDefinition| (c.metadata.creation_timestamp, c.metadata.name.clone());
    !others.iter().any(|other| {
        other.metadata.name != crd.metadata.name
            && other.spec.group == crd.spec.group
            && (overlaps(&other.status.accepted_names)
                || (!holds_its_names(other)
                    && key(other) < key(crd)
                    && overlaps(&other.spec.names)))
    })
}

/// Whether the status must change to say what `accepted` decided.
pub fn needs_status(crd: &CustomResourceDefinition, accepted: bool) -> bool {
    let want = if accepted { "True" } else { "False" };
    !has_condition(crd, "NamesAccepted", want)
        || (accepted && !established(crd))
        || (accepted && crd.status.accepted_names != crd.spec.names)
}

/// Sets NamesAccepted (and, when accepted, Established and acceptedNames) in `crd.status`.
pub fn set_names_status(crd: &mut CustomResourceDefinition, accepted: bool) {
    let mut conds = crd.status.conditions.clone().unwrap_or_default();
    let names = if accepted {
        crd.status.accepted_names = crd.spec.names.clone();
        condition("NamesAccepted", true, "NoConflicts", "no conflicts found")
    } else {
        let msg = "one or more names conflict with another CustomResourceDefinition";
        condition("NamesAccepted", false, "MultipleNamesNotAllowed", msg)
    };
    set_condition(&mut conds, names);
    if accepted {
        let msg = "the initial names have been accepted";
        set_condition(
            &mut conds,
            condition("Established", true, "InitialNamesAccepted", msg),
        );
    }
    crd.status.conditions = Some(conds);
}

/// Replaces the condition of the same type, keeping its transition time when the status
/// did not change.
pub fn set_condition(
    conds: &mut Vec<CustomResourceDefinitionCondition>,
    mut c: CustomResourceDefinitionCondition,
) {
    match conds.iter_mut().find(|x| x.r#type == c.r#type) {
        Some(existing) => {
            c.last_transition_time = if existing.status == c.status {
                existing.last_transition_time
            } else {
                kapi_api::meta::Time::now()
            };
            *existing = c;
        }
        None => {
            c.last_transition_time = kapi_api::meta::Time::now();
            conds.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(name: &str, plural: &str, kind: &str) -> CustomResourceDefinition {
        let mut c = CustomResourceDefinition::default();
        c.metadata.name = format!("{plural}.example.com");
        c.spec.group = "example.com".into();
        c.spec.names.plural = plural.into();
        c.spec.names.kind = kind.into();
        c.spec.names.singular = name.into();
        c
    }

    #[test]
    fn a_crd_whose_kind_another_accepted_crd_holds_is_not_accepted() {
        let mut first = crd("widget", "widgets", "Widget");
        set_names_status(&mut first, true);
        let second = crd("gadget", "gadgets", "Widget");
        assert!(!accepted(&second, std::slice::from_ref(&first)));
        assert!(accepted(&first, std::slice::from_ref(&second)));
    }

    #[test]
    fn accepted_names_stay_accepted_and_established() {
        let mut c = crd("widget", "widgets", "Widget");
        assert!(needs_status(&c, true));
        set_names_status(&mut c, true);
        assert!(!needs_status(&c, true));
        assert!(established(&c));
        assert!(accepted(&c, &[]));
    }

    #[test]
    fn a_condition_keeps_its_transition_time_while_its_status_holds() {
        let mut conds = Vec::new();
        set_condition(&mut conds, condition("Established", true, "A", "a"));
        let t = conds[0].last_transition_time;
        set_condition(&mut conds, condition("Established", true, "B", "b"));
        assert_eq!(conds.len(), 1);
        assert_eq!(conds[0].last_transition_time, t);
        assert_eq!(conds[0].reason, "B");
    }
}
