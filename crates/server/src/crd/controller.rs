//! Follows the CRDs in storage (a list, then a watch from its revision) and keeps the
//! registry in step: sets NamesAccepted/Established, swaps in a CRD's entries when it is
//! Established, removes them when it goes, and on deletion removes every object before
//! releasing the CRD's cleanup finalizer. It reads the store, never process memory, so every
//! kapi process on one etcd serves the same CRDs (conflicting status writes lose the CAS
//! race harmlessly and the next event settles them).

use crate::state::ApiState;
use futures::StreamExt;
use kapi_api::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames,
};
use kapi_registry::crd::CLEANUP_FINALIZER;
use kapi_registry::meta;
use kapi_storage::{Event, KeyValue, RangeRequest, StoreError, WatchRequest, WatchResponse};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Starts the CRD controller: the CRDs already stored are served when this returns (so a
/// restarted kapi serves its custom resources from its first request); the watch then runs
/// until shutdown, re-listing after errors.
pub async fn start_crd_controller(state: Arc<ApiState>) -> Option<tokio::task::JoinHandle<()>> {
    let crd_prefix = state
        .registry
        .snapshot()
        .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")?
        .storage_prefix
        .clone();
    let root = crd_prefix
        .strip_suffix("/apiextensions.k8s.io/customresourcedefinitions")?
        .to_owned();
    let mut ctl = Controller {
        state,
        root,
        prefix: format!("{crd_prefix}/"),
        known: BTreeMap::new(),
    };
    let mut synced = match ctl.sync().await {
        Ok(rev) => Some(rev),
        Err(e) => {
            tracing::warn!(error = %e, "listing CRDs failed; retrying in the background");
            None
        }
    };
    Some(tokio::spawn(async move {
        loop {
            let revision = match synced.take() {
                Some(rev) => Ok(rev),
                None => ctl.sync().await,
            };
            let result = match revision {
                Ok(rev) => ctl.watch_from(rev).await,
                Err(e) => Err(e),
            };
            if let Err(e) = result {
                tracing::warn!(error = %e, "CRD controller restarting");
            }
            if *ctl.state.shutdown.borrow() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }))
}

struct Controller {
    state: Arc<ApiState>,
    root: String,
    prefix: String,
    /// The CRDs seen, by name.
    known: BTreeMap<String, CustomResourceDefinition>,
}

fn condition(
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

impl Controller {
    /// Lists the CRDs and brings the registry in line; returns the list's revision.
    async fn sync(&mut self) -> Result<i64, StoreError> {
        let store = self.state.store.clone();
        let listed = store
            .range(RangeRequest::prefix(self.prefix.as_bytes()))
            .await?;
        let mut seen = BTreeMap::new();
        for kv in &listed.kvs {
            if let Some(crd) = self.on_put(kv).await {
                seen.insert(crd.metadata.name.clone(), crd);
            }
        }
        for (name, gone) in std::mem::take(&mut self.known) {
            if !seen.contains_key(&name) {
                self.state
                    .registry
                    .remove_resource(&gone.spec.group, &gone.spec.names.plural);
            }
        }
        self.known = seen;
        Ok(listed.revision)
    }

    /// Follows CRD changes after `revision` until shutdown or an error.
    async fn watch_from(&mut self, revision: i64) -> Result<(), StoreError> {
        let request = WatchRequest::prefix(self.prefix.as_bytes())
            .from_revision(revision + 1)
            .with_prev_kv();
        let mut watch = self.state.store.watch(request).await?;
        let mut shutdown = self.state.shutdown.clone();
        loop {
            let next = tokio::select! {
                n = watch.next() => n,
                _ = shutdown.changed() => return Ok(()),
            };
            let Some(resp) = next else { return Ok(()) };
            let WatchResponse::Events(events) = resp? else {
                continue;
            };
            for event in events {
                self.on_event(event).await;
            }
        }
    }

    async fn on_event(&mut self, event: Event) {
        match event {
            Event::Put { kv, .. } => {
                if let Some(crd) = self.on_put(&kv).await {
                    self.known.insert(crd.metadata.name.clone(), crd);
                }
            }
            Event::Delete { key, .. } => {
                let name =
                    String::from_utf8_lossy(&key[self.prefix.len().min(key.len())..]).into_owned();
                if let Some(crd) = self.known.remove(&name) {
                    self.state
                        .registry
                        .remove_resource(&crd.spec.group, &crd.spec.names.plural);
                }
            }
        }
    }

    /// Handles a created or changed CRD; returns it when it stays known.
    async fn on_put(&mut self, kv: &KeyValue) -> Option<CustomResourceDefinition> {
        let mut crd: CustomResourceDefinition = match serde_json::from_slice(&kv.value) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "unreadable CRD in storage");
                return None;
            }
        };
        // Defaulted names (singular, listKind) are what gets accepted and compared.
        kapi_api::apiextensions::v1::set_defaults(&mut crd);
        if crd.metadata.deletion_timestamp.is_some() {
            self.state
                .registry
                .remove_resource(&crd.spec.group, &crd.spec.names.plural);
            self.clean_up(&crd, kv).await;
            return Some(crd);
        }
        let accepted = self.names_accepted(&crd);
        if self.needs_status(&crd, accepted) {
            self.write_status(&crd, kv, accepted).await;
        }
        if established(&crd) {
            match kapi_registry::crd::entries_for_crd(&self.root, &crd, self.state.webhooks.clone())
            {
                Ok(entries) => self.state.registry.replace_resource(
                    &crd.spec.group,
                    &crd.spec.names.plural,
                    entries,
                ),
                Err(e) => tracing::warn!(crd = %crd.metadata.name, error = %e, "CRD not served"),
            }
        }
        Some(crd)
    }

    /// False when another CRD of the group holds one of this CRD's names: one whose names are
    /// accepted, or an older one (creation time, then name) not yet accepted. Names once
    /// accepted stay accepted.
    fn names_accepted(&self, crd: &CustomResourceDefinition) -> bool {
        if holds_its_names(crd) {
            return true;
        }
        let mine = names_of(&crd.spec.names);
        let overlaps = |names: &CustomResourceDefinitionNames| {
            names_of(names).iter().any(|n| mine.contains(n))
        };
        let key =
            |c: &CustomResourceDefinition| (c.metadata.creation_timestamp, c.metadata.name.clone());
        !self.known.values().any(|other| {
            other.metadata.name != crd.metadata.name
                && other.spec.group == crd.spec.group
                && (overlaps(&other.status.accepted_names)
                    || (!holds_its_names(other)
                        && key(other) < key(crd)
                        && overlaps(&other.spec.names)))
        })
    }

    fn needs_status(&self, crd: &CustomResourceDefinition, accepted: bool) -> bool {
        let has = |kind: &str, status: &str| {
            crd.status
                .conditions
                .iter()
                .flatten()
                .any(|c| c.r#type == kind && c.status == status)
        };
        let want = if accepted { "True" } else { "False" };
        !has("NamesAccepted", want)
            || (accepted && !has("Established", "True"))
            || (accepted && crd.status.accepted_names != crd.spec.names)
    }

    async fn write_status(&self, crd: &CustomResourceDefinition, kv: &KeyValue, accepted: bool) {
        let mut conds = crd.status.conditions.clone().unwrap_or_default();
        let mut accepted_names = crd.status.accepted_names.clone();
        let names = if accepted {
            accepted_names = crd.spec.names.clone();
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
        // Edit the stored JSON rather than re-encoding the typed CRD, so nothing else changes.
        let Ok(mut value) = serde_json::from_slice::<Value>(&kv.value) else {
            return;
        };
        let (Ok(conds), Ok(names)) = (
            serde_json::to_value(&conds),
            serde_json::to_value(&accepted_names),
        ) else {
            return;
        };
        if let Some(map) = value.as_object_mut() {
            let status = map.entry("status").or_insert_with(|| json!({}));
            if let Some(s) = status.as_object_mut() {
                s.insert("conditions".into(), conds);
                s.insert("acceptedNames".into(), names);
            }
        }
        let Ok(bytes) = serde_json::to_vec(&value) else {
            return;
        };
        if let Err(e) = self
            .state
            .store
            .update(&kv.key, bytes, kv.mod_revision)
            .await
        {
            tracing::debug!(error = %e, "CRD status write lost a race; the next event retries");
        }
    }

    /// Deletes every object of the CRD, then drops the cleanup finalizer (and the CRD when it
    /// was the last one).
    async fn clean_up(&self, crd: &CustomResourceDefinition, kv: &KeyValue) {
        if !crd
            .metadata
            .finalizers
            .iter()
            .any(|f| f == CLEANUP_FINALIZER)
        {
            return;
        }
        let prefix = format!(
            "{}/{}/{}/",
            self.root, crd.spec.group, crd.spec.names.plural
        );
        let store = &self.state.store;
        let Ok(objects) = store.range(RangeRequest::prefix(prefix.as_bytes())).await else {
            return;
        };
        for obj in objects.kvs {
            if let Err(e) = store.delete(&obj.key, None).await
                && !e.is_not_found()
            {
                tracing::warn!(error = %e, "deleting a custom resource of a deleted CRD");
                return;
            }
        }
        let Ok(mut value) = serde_json::from_slice::<Value>(&kv.value) else {
            return;
        };
        let rest: Vec<String> = meta::finalizers(&value)
            .into_iter()
            .filter(|f| f != CLEANUP_FINALIZER)
            .collect();
        let result = if rest.is_empty() {
            store
                .delete(&kv.key, Some(kv.mod_revision))
                .await
                .map(|_| ())
        } else {
            meta::set_meta(&mut value, "finalizers", Some(json!(rest)));
            match serde_json::to_vec(&value) {
                Ok(bytes) => store
                    .update(&kv.key, bytes, kv.mod_revision)
                    .await
                    .map(|_| ()),
                Err(_) => Ok(()),
            }
        };
        if let Err(e) = result {
            tracing::debug!(error = %e, "CRD finalizer removal lost a race");
        }
    }
}

/// Whether the CRD's current names are the accepted ones.
fn holds_its_names(crd: &CustomResourceDefinition) -> bool {
    crd.status
        .conditions
        .iter()
        .flatten()
        .any(|c| c.r#type == "NamesAccepted" && c.status == "True")
        && crd.status.accepted_names == crd.spec.names
}

fn established(crd: &CustomResourceDefinition) -> bool {
    crd.status
        .conditions
        .iter()
        .flatten()
        .any(|c| c.r#type == "Established" && c.status == "True")
}

/// Replaces the condition of the same type, keeping its transition time when the status
/// did not change.
fn set_condition(
    conds: &mut Vec<CustomResourceDefinitionCondition>,
    mut c: CustomResourceDefinitionCondition,
) {
    match conds.iter_mut().find(|x| x.r#type == c.r#type) {
        Some(existing) => {
            if existing.status == c.status {
                c.last_transition_time = existing.last_transition_time;
            } else {
                c.last_transition_time = now();
            }
            *existing = c;
        }
        None => {
            c.last_transition_time = now();
            conds.push(c);
        }
    }
}

fn now() -> kapi_api::meta::Time {
    kapi_api::meta::Time::now()
}
