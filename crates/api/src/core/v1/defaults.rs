//! core/v1 defaults of the workload types, as pkg/apis/core/v1/defaults.go sets them
//! (`SetDefaults_Pod`, `_PodSpec`, `_Container`, `_Probe`, `_Volume`, `_Service`, …):
//! what a Pod, a pod template or a Service reads back with after a create.

use super::types::*;
use crate::intstr::IntOrString;
use crate::resource::Quantity;
use std::collections::BTreeMap;

/// `SetDefaults_ResourceList`: every quantity rounded up to milli-units (`1n` → `1m`), as
/// the generated defaulters apply it to each ResourceList of core/v1 (container resources,
/// overhead, statuses, claims, volumes, nodes, limit ranges and quotas).
pub fn set_defaults_resource_list(list: &mut BTreeMap<String, Quantity>) {
    for q in list.values_mut() {
        *q = q.round_up_to_milli();
    }
}

/// A ResourceRequirements' limits and requests.
fn default_requirements(r: &mut ResourceRequirements) {
    set_defaults_resource_list(&mut r.limits);
    set_defaults_resource_list(&mut r.requests);
}

/// `Always` for an image without a tag or with `:latest`, else `IfNotPresent`
/// (a digest counts as a tag).
fn image_pull_policy(image: &str) -> &'static str {
    let name = image.rsplit('/').next().unwrap_or(image);
    if image.contains('@') {
        return "IfNotPresent";
    }
    match name.rsplit_once(':') {
        Some((_, "latest")) | None => "Always",
        Some(_) => "IfNotPresent",
    }
}

fn default_probe(p: &mut Option<Probe>) {
    let Some(p) = p else { return };
    if p.timeout_seconds == 0 {
        p.timeout_seconds = 1;
    }
    if p.period_seconds == 0 {
        p.period_seconds = 10;
    }
    if p.success_threshold == 0 {
        p.success_threshold = 1;
    }
    if p.failure_threshold == 0 {
        p.failure_threshold = 3;
    }
    if let Some(g) = &mut p.grpc {
        g.service.get_or_insert_with(String::new);
    }
    if let Some(h) = &mut p.http_get {
        if h.path.is_empty() {
            h.path = "/".into();
        }
        if h.scheme.is_empty() {
            h.scheme = "HTTP".into();
        }
    }
}

fn default_env(env: &mut [EnvVar]) {
    for source in env.iter_mut().filter_map(|e| e.value_from.as_mut()) {
        if let Some(f) = &mut source.field_ref
            && f.api_version.is_empty()
        {
            f.api_version = "v1".into();
        }
        if let Some(k) = &mut source.file_key_ref {
            k.optional.get_or_insert(false);
        }
    }
}

/// `SetDefaults_Container` with its ports, env, probes and lifecycle handlers.
pub fn set_defaults_container(c: &mut Container) {
    if c.termination_message_path.is_empty() {
        c.termination_message_path = "/dev/termination-log".into();
    }
    if c.termination_message_policy.is_empty() {
        c.termination_message_policy = "File".into();
    }
    if c.image_pull_policy.is_empty() {
        c.image_pull_policy = image_pull_policy(&c.image).into();
    }
    for p in &mut c.ports {
        if p.protocol.is_empty() {
            p.protocol = "TCP".into();
        }
    }
    default_env(&mut c.env);
    default_requirements(&mut c.resources);
    default_probe(&mut c.liveness_probe);
    default_probe(&mut c.readiness_probe);
    default_probe(&mut c.startup_probe);
    if let Some(l) = &mut c.lifecycle {
        for h in [&mut l.post_start, &mut l.pre_stop].into_iter().flatten() {
            if let Some(g) = &mut h.http_get {
                if g.path.is_empty() {
                    g.path = "/".into();
                }
                if g.scheme.is_empty() {
                    g.scheme = "HTTP".into();
                }
            }
        }
    }
}

/// `SetDefaults_Volume` and the volume sources' modes (0644).
fn set_defaults_volume(v: &mut Volume) {
    const MODE: i32 = 0o644;
    let none = v.host_path.is_none()
        && v.empty_dir.is_none()
        && v.gce_persistent_disk.is_none()
        && v.aws_elastic_block_store.is_none()
        && v.git_repo.is_none()
        && v.secret.is_none()
        && v.nfs.is_none()
        && v.iscsi.is_none()
        && v.glusterfs.is_none()
        && v.persistent_volume_claim.is_none()
        && v.rbd.is_none()
        && v.flex_volume.is_none()
        && v.cinder.is_none()
        && v.cephfs.is_none()
        && v.flocker.is_none()
        && v.downward_api.is_none()
        && v.fc.is_none()
        && v.azure_file.is_none()
        && v.config_map.is_none()
        && v.vsphere_volume.is_none()
        && v.quobyte.is_none()
        && v.azure_disk.is_none()
        && v.photon_persistent_disk.is_none()
        && v.portworx_volume.is_none()
        && v.scale_io.is_none()
        && v.projected.is_none()
        && v.storageos.is_none()
        && v.csi.is_none()
        && v.ephemeral.is_none()
        && v.image.is_none();
    if none {
        v.empty_dir = Some(EmptyDirVolumeSource::default());
    }
    if let Some(s) = &mut v.secret {
        s.default_mode.get_or_insert(MODE);
    }
    if let Some(s) = &mut v.config_map {
        s.default_mode.get_or_insert(MODE);
    }
    if let Some(s) = &mut v.downward_api {
        s.default_mode.get_or_insert(MODE);
        for item in &mut s.items {
            if let Some(f) = &mut item.field_ref
                && f.api_version.is_empty()
            {
                f.api_version = "v1".into();
            }
        }
    }
    if let Some(s) = &mut v.projected {
        s.default_mode.get_or_insert(MODE);
        for src in s.sources.iter_mut().flatten() {
            if let Some(t) = &mut src.service_account_token {
                t.expiration_seconds.get_or_insert(3600);
            }
            if let Some(d) = &mut src.downward_api {
                for item in &mut d.items {
                    if let Some(f) = &mut item.field_ref
                        && f.api_version.is_empty()
                    {
                        f.api_version = "v1".into();
                    }
                }
            }
        }
    }
    super::volume_defaults::set_defaults_volume_sources(v);
}

/// `SetDefaults_PodSpec` (pod templates too) with its containers and volumes.
pub fn set_defaults_pod_spec(s: &mut PodSpec) {
    if s.dns_policy.is_empty() {
        s.dns_policy = "ClusterFirst".into();
    }
    if s.restart_policy.is_empty() {
        s.restart_policy = "Always".into();
    }
    if s.security_context.is_none() {
        s.security_context = Some(PodSecurityContext::default());
    }
    s.termination_grace_period_seconds.get_or_insert(30);
    if s.scheduler_name.is_empty() {
        s.scheduler_name = "default-scheduler".into();
    }
    if s.host_network {
        for c in s
            .containers
            .iter_mut()
            .flatten()
            .chain(&mut s.init_containers)
        {
            for p in &mut c.ports {
                if p.host_port == 0 {
                    p.host_port = p.container_port;
                }
            }
        }
    }
    for c in s
        .containers
        .iter_mut()
        .flatten()
        .chain(&mut s.init_containers)
    {
        set_defaults_container(c);
    }
    for c in &mut s.ephemeral_containers {
        if c.termination_message_path.is_empty() {
            c.termination_message_path = "/dev/termination-log".into();
        }
        if c.termination_message_policy.is_empty() {
            c.termination_message_policy = "File".into();
        }
        if c.image_pull_policy.is_empty() {
            c.image_pull_policy = image_pull_policy(&c.image).into();
        }
        default_env(&mut c.env);
        default_requirements(&mut c.resources);
    }
    for v in &mut s.volumes {
        set_defaults_volume(v);
    }
    set_defaults_resource_list(&mut s.overhead);
    if let Some(r) = &mut s.resources {
        default_requirements(r);
    }
}

/// A pod template: its spec's defaults.
pub fn set_defaults_pod_template_spec(t: &mut PodTemplateSpec) {
    set_defaults_pod_spec(&mut t.spec);
}

/// `SetDefaults_Pod`: the spec's defaults, `enableServiceLinks: true`, and requests
/// copied from limits where a container sets only limits.
pub fn set_defaults_pod(p: &mut Pod) {
    set_defaults_pod_spec(&mut p.spec);
    p.spec.enable_service_links.get_or_insert(true);
    for c in p
        .spec
        .containers
        .iter_mut()
        .flatten()
        .chain(&mut p.spec.init_containers)
    {
        for (name, q) in c.resources.limits.clone() {
            c.resources.requests.entry(name).or_insert(q);
        }
    }
    let status = &mut p.status;
    set_defaults_resource_list(&mut status.allocated_resources);
    if let Some(r) = &mut status.resources {
        default_requirements(r);
    }
    for c in status
        .container_statuses
        .iter_mut()
        .chain(&mut status.init_container_statuses)
        .chain(&mut status.ephemeral_container_statuses)
    {
        set_defaults_resource_list(&mut c.allocated_resources);
        if let Some(r) = &mut c.resources {
            default_requirements(r);
        }
    }
    for claim in &mut status.node_allocatable_resource_claim_statuses {
        if let Some(r) = &mut claim.resources {
            set_defaults_resource_list(r);
        }
    }
}

/// `SetDefaults_Service` (and its ports): type ClusterIP, sessionAffinity None (without a
/// config), protocol TCP, targetPort = port, traffic policies, the ClientIP timeout, and a
/// load balancer's IPs in mode VIP.
pub fn set_defaults_service(s: &mut Service) {
    let spec = &mut s.spec;
    if spec.session_affinity.is_empty() {
        spec.session_affinity = "None".into();
    }
    if spec.r#type.is_empty() {
        spec.r#type = "ClusterIP".into();
    }
    for p in &mut spec.ports {
        if p.protocol.is_empty() {
            p.protocol = "TCP".into();
        }
        if p.target_port == IntOrString::Int(0)
            || p.target_port == IntOrString::String(String::new())
        {
            p.target_port = IntOrString::Int(p.port);
        }
    }
    if spec.session_affinity == "None" {
        spec.session_affinity_config = None;
    }
    if spec.session_affinity == "ClientIP" {
        let cfg = spec
            .session_affinity_config
            .get_or_insert_with(SessionAffinityConfig::default);
        let ip = cfg.client_ip.get_or_insert_with(ClientIPConfig::default);
        ip.timeout_seconds.get_or_insert(10800);
    }
    let external = matches!(spec.r#type.as_str(), "NodePort" | "LoadBalancer");
    if external && spec.external_traffic_policy.is_empty() {
        spec.external_traffic_policy = "Cluster".into();
    }
    if spec.r#type != "ExternalName" && spec.internal_traffic_policy.is_none() {
        spec.internal_traffic_policy = Some("Cluster".into());
    }
    if spec.r#type == "LoadBalancer" {
        spec.allocate_load_balancer_node_ports.get_or_insert(true);
        for ingress in &mut s.status.load_balancer.ingress {
            if !ingress.ip.is_empty() {
                ingress.ip_mode.get_or_insert_with(|| "VIP".into());
            }
        }
    }
}

/// ReplicationControllers: one replica; selector and labels from the template's labels.
pub fn set_defaults_replication_controller(rc: &mut ReplicationController) {
    let labels = rc
        .spec
        .template
        .as_ref()
        .map(|t| t.metadata.labels.clone())
        .unwrap_or_default();
    if rc.spec.selector.is_empty() {
        rc.spec.selector = labels.clone();
    }
    if rc.metadata.labels.is_empty() {
        rc.metadata.labels = labels;
    }
    rc.spec.replicas.get_or_insert(1);
    if let Some(t) = &mut rc.spec.template {
        set_defaults_pod_template_spec(t);
    }
}

/// Endpoints: ports' protocol TCP.
pub fn set_defaults_endpoints(e: &mut Endpoints) {
    for s in &mut e.subsets {
        for p in &mut s.ports {
            if p.protocol.is_empty() {
                p.protocol = "TCP".into();
            }
        }
    }
}

/// `SetDefaults_LimitRangeItem` of each item: a Container item's default limit is its max,
/// its default request its default limit, else its min.
pub fn set_defaults_limit_range(r: &mut LimitRange) {
    for item in r.spec.limits.iter_mut().flatten() {
        for list in [
            &mut item.max,
            &mut item.min,
            &mut item.default,
            &mut item.default_request,
            &mut item.max_limit_request_ratio,
        ] {
            set_defaults_resource_list(list);
        }
        if item.r#type != "Container" {
            continue;
        }
        for (name, q) in &item.max {
            item.default
                .entry(name.clone())
                .or_insert_with(|| q.clone());
        }
        for (name, q) in item.default.iter().chain(&item.min) {
            item.default_request
                .entry(name.clone())
                .or_insert_with(|| q.clone());
        }
    }
}

/// `SetDefaults_NodeStatus`: allocatable is the capacity when not given; both rounded
/// up to milli-units.
pub fn set_defaults_node(n: &mut Node) {
    if n.status.allocatable.is_empty() {
        n.status.allocatable = n.status.capacity.clone();
    }
    set_defaults_resource_list(&mut n.status.capacity);
    set_defaults_resource_list(&mut n.status.allocatable);
}

/// A ResourceQuota's hard limits and its status, rounded up to milli-units.
pub fn set_defaults_resource_quota(q: &mut ResourceQuota) {
    set_defaults_resource_list(&mut q.spec.hard);
    set_defaults_resource_list(&mut q.status.hard);
    set_defaults_resource_list(&mut q.status.used);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_pull_policy_follows_the_tag() {
        assert_eq!(image_pull_policy("busybox"), "Always");
        assert_eq!(image_pull_policy("busybox:latest"), "Always");
        assert_eq!(image_pull_policy("busybox:1.36"), "IfNotPresent");
        assert_eq!(image_pull_policy("localhost:5000/app"), "Always");
        assert_eq!(image_pull_policy("app@sha256:abc"), "IfNotPresent");
    }

    /// `SetDefaults_ResourceList` over a Pod: container limits and requests (the copied
    /// requests too), pod overhead and container statuses are rounded up to milli-units.
    #[test]
    fn a_pods_resource_lists_are_rounded_up_to_milli_units() {
        let mut pod: Pod = serde_json::from_value(serde_json::json!({
            "spec": {"containers": [{"name": "app", "image": "nginx",
                "resources": {"limits": {"cpu": "100n", "memory": "1Gi"}, "requests": {"cpu": "1500u"}}}],
                "overhead": {"cpu": "1u"}},
            "status": {"containerStatuses": [{"name": "app", "allocatedResources": {"cpu": "0.0001"}}]}
        }))
        .unwrap();
        set_defaults_pod(&mut pod);
        let c = &pod.spec.containers.as_ref().unwrap()[0];
        let text = |l: &BTreeMap<String, Quantity>, k: &str| l[k].as_str().to_owned();
        assert_eq!(text(&c.resources.limits, "cpu"), "1m");
        assert_eq!(text(&c.resources.limits, "memory"), "1Gi");
        assert_eq!(text(&c.resources.requests, "cpu"), "2m");
        assert_eq!(text(&c.resources.requests, "memory"), "1Gi");
        assert_eq!(text(&pod.spec.overhead, "cpu"), "1m");
        let status = &pod.status.container_statuses[0];
        assert_eq!(text(&status.allocated_resources, "cpu"), "1m");
    }

    /// The same rounding of a LimitRange's items, a ResourceQuota and a Node.
    #[test]
    fn limit_ranges_quotas_and_nodes_are_rounded_up_to_milli_units() {
        let mut lr: LimitRange = serde_json::from_value(serde_json::json!({"spec": {"limits": [
            {"type": "Pod", "max": {"cpu": "1n"}}]}}))
        .unwrap();
        set_defaults_limit_range(&mut lr);
        assert_eq!(lr.spec.limits.unwrap()[0].max["cpu"].as_str(), "1m");
        let mut q: ResourceQuota = serde_json::from_value(serde_json::json!({
            "spec": {"hard": {"cpu": "10u"}}, "status": {"used": {"cpu": "-10u"}}}))
        .unwrap();
        set_defaults_resource_quota(&mut q);
        assert_eq!(q.spec.hard["cpu"].as_str(), "1m");
        assert_eq!(q.status.used["cpu"].as_str(), "-1m");
        let mut n: Node =
            serde_json::from_value(serde_json::json!({"status": {"capacity": {"cpu": "1500u"}}}))
                .unwrap();
        set_defaults_node(&mut n);
        assert_eq!(n.status.allocatable["cpu"].as_str(), "2m");
    }
}
