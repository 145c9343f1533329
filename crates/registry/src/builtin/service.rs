//! Services: validation as kube's `ValidateService` (type, ports, names, protocols, target
//! and node ports, duplicate protocol/port pairs, ExternalName), the fields an update may
//! not change (`clusterIP`), and the allocator of their cluster IPs and node ports
//! ([`ServiceNetwork`]): each cluster IP is an `networking.k8s.io/v1` IPAddress object
//! named by the address (kube 1.33+'s allocator), so a taken address is one that exists and
//! two creates can never hold the same one; a node port is a claim key under
//! `<root>/ranges/servicenodeports/` taken with create-if-absent.

use crate::allocator::{Allocator, Objects, ResourceRef, Taken};
use crate::error::{Error, Result, StatusCause};
use crate::field;
use crate::meta;
use crate::strategy::{
    CreateStrategy, DeleteStrategy, GenericStrategy, NameRule, Strategy, UpdateStrategy,
    name_problems,
};
use kapi_storage::StoreError;
use serde_json::{Value, json};
use std::net::Ipv4Addr;
use std::ops::RangeInclusive;

/// The Service types.
const TYPES: [&str; 4] = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
/// The port protocols.
const PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];
/// Session affinities.
const AFFINITIES: [&str; 2] = ["ClientIP", "None"];

const IP_ADDRESSES: ResourceRef<'static> = ResourceRef {
    group: "networking.k8s.io",
    version: "v1",
    plural: "ipaddresses",
};

/// Where Services take their addresses: kube-apiserver's `--service-cluster-ip-range` and
/// `--service-node-port-range`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceNetwork {
    /// The network address of the cluster IP range.
    pub network: Ipv4Addr,
    /// Its prefix length.
    pub prefix: u8,
    /// The node ports.
    pub node_ports: RangeInclusive<u16>,
}

impl Default for ServiceNetwork {
    /// kube-apiserver's defaults: `10.0.0.0/24` and `30000-32767`.
    fn default() -> Self {
        Self {
            network: Ipv4Addr::new(10, 0, 0, 0),
            prefix: 24,
            node_ports: 30000..=32767,
        }
    }
}

/// A `--service-cluster-ip-range` or `--service-node-port-range` that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NetworkError(pub String);

impl ServiceNetwork {
    /// Parses `10.96.0.0/12` (IPv4; a range of at least 8 addresses) and `30000-32767`.
    pub fn parse(cidr: &str, node_ports: &str) -> std::result::Result<Self, NetworkError> {
        let bad = |what: &str| NetworkError(format!("invalid {what}"));
        let (ip, prefix) = cidr
            .split_once('/')
            .ok_or_else(|| bad("--service-cluster-ip-range (want an IPv4 CIDR)"))?;
        let ip: Ipv4Addr = ip
            .parse()
            .map_err(|_| bad("--service-cluster-ip-range (want an IPv4 CIDR)"))?;
        let prefix: u8 = prefix
            .parse()
            .ok()
            .filter(|p| (1..=29).contains(p))
            .ok_or_else(|| bad("--service-cluster-ip-range prefix (1 to 29)"))?;
        let mask = u32::MAX << (32 - prefix);
        let (lo, hi) = node_ports
            .split_once('-')
            .ok_or_else(|| bad("--service-node-port-range (want lo-hi)"))?;
        let lo: u16 = lo
            .trim()
            .parse()
            .map_err(|_| bad("--service-node-port-range"))?;
        let hi: u16 = hi
            .trim()
            .parse()
            .map_err(|_| bad("--service-node-port-range"))?;
        if lo == 0 || lo > hi {
            return Err(bad("--service-node-port-range"));
        }
        Ok(Self {
            network: Ipv4Addr::from(u32::from(ip) & mask),
            prefix,
            node_ports: lo..=hi,
        })
    }

    /// The range as `a.b.c.d/n`.
    pub fn cidr(&self) -> String {
        format!("{}/{}", self.network, self.prefix)
    }

    fn size(&self) -> u32 {
        1u32 << (32 - self.prefix)
    }

    /// Whether `ip` may be a cluster IP: inside the range, not its network or broadcast
    /// address.
    pub fn contains(&self, ip: Ipv4Addr) -> bool {
        let (base, n) = (u32::from(self.network), u32::from(ip));
        n > base && n < base + self.size() - 1
    }

    /// The first address (the `kubernetes` Service's).
    pub fn first(&self) -> Ipv4Addr {
        Ipv4Addr::from(u32::from(self.network) + 1)
    }

    /// The offsets dynamic allocation picks from first: above the static band that kube
    /// keeps for chosen addresses (min(max(16, size/16), 256) addresses), then the rest.
    fn dynamic_offsets(&self) -> (RangeInclusive<u32>, RangeInclusive<u32>) {
        let usable = self.size() - 2;
        let band = (usable / 16).clamp(16, 256).min(usable / 2);
        (band + 1..=usable, 1..=band)
    }
}

/// A Service's strategy: the generic rules, validation, and its allocations.
#[derive(Debug, Clone)]
pub struct ServiceStrategy {
    /// The generic rules (status, names, field labels).
    pub generic: GenericStrategy,
    /// Where its addresses come from.
    pub network: ServiceNetwork,
}

fn spec_str<'a>(svc: &'a Value, key: &str) -> &'a str {
    meta::nested(svc, &["spec", key])
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn ports(svc: &Value) -> Vec<&Value> {
    meta::nested(svc, &["spec", "ports"])
        .and_then(Value::as_array)
        .map(|p| p.iter().collect())
        .unwrap_or_default()
}

fn is_headless(svc: &Value) -> bool {
    spec_str(svc, "clusterIP") == "None"
}

fn wants_node_ports(svc: &Value) -> bool {
    match spec_str(svc, "type") {
        "NodePort" => true,
        "LoadBalancer" => {
            meta::nested(svc, &["spec", "allocateLoadBalancerNodePorts"]).and_then(Value::as_bool)
                != Some(false)
        }
        _ => false,
    }
}

/// An IANA service name (`validation.IsValidPortName`): 1–15 lower-case letters, digits and
/// dashes, a letter among them, no dash at either end or twice in a row.
pub(super) fn port_name_problems(name: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if name.len() > 15 {
        out.push("must be no more than 15 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if name.contains("--") {
        out.push("must not contain consecutive hyphens");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        out.push("must contain at least one letter (a-z)");
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not begin or end with a hyphen");
    }
    out
}

fn port_number(value: Option<&Value>) -> Option<i64> {
    value.and_then(Value::as_i64)
}

/// `ValidateService`'s rules over a whole Service.
fn validate_service(svc: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let ty = spec_str(svc, "type");
    if !TYPES.contains(&ty) {
        causes.push(field::not_supported("spec.type", &json!(ty), &TYPES));
    }
    let affinity = spec_str(svc, "sessionAffinity");
    if !AFFINITIES.contains(&affinity) {
        causes.push(field::not_supported(
            "spec.sessionAffinity",
            &json!(affinity),
            &AFFINITIES,
        ));
    }
    let ports = ports(svc);
    if ty == "ExternalName" {
        let name = spec_str(svc, "externalName");
        if name.is_empty() {
            causes.push(field::required("spec.externalName", ""));
        } else {
            for p in name_problems(NameRule::Dns1123Subdomain, name.trim_end_matches('.')) {
                causes.push(field::invalid("spec.externalName", &json!(name), &p));
            }
        }
        let ip = spec_str(svc, "clusterIP");
        if !ip.is_empty() {
            causes.push(field::forbidden(
                "spec.clusterIPs",
                "may not be set for ExternalName services",
            ));
        }
    } else if ports.is_empty() && !is_headless(svc) {
        causes.push(field::required("spec.ports", ""));
    }
    let mut names: Vec<&str> = Vec::new();
    let mut pairs: Vec<(String, i64)> = Vec::new();
    for (i, p) in ports.iter().enumerate() {
        let at = format!("spec.ports[{i}]");
        let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
        if name.is_empty() {
            if ports.len() > 1 {
                causes.push(field::required(&format!("{at}.name"), ""));
            }
        } else {
            for problem in name_problems(NameRule::Dns1123Label, name) {
                causes.push(field::invalid(
                    &format!("{at}.name"),
                    &json!(name),
                    &problem,
                ));
            }
            if names.contains(&name) {
                causes.push(field::duplicate(&format!("{at}.name"), &json!(name)));
            }
            names.push(name);
        }
        let port = port_number(p.get("port")).unwrap_or(0);
        if !(1..=65535).contains(&port) {
            causes.push(field::invalid(
                &format!("{at}.port"),
                &json!(port),
                "must be between 1 and 65535, inclusive",
            ));
        }
        let protocol = p
            .get("protocol")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if protocol.is_empty() {
            causes.push(field::required(&format!("{at}.protocol"), ""));
        } else if !PROTOCOLS.contains(&protocol) {
            causes.push(field::not_supported(
                &format!("{at}.protocol"),
                &json!(protocol),
                &PROTOCOLS,
            ));
        }
        match p.get("targetPort") {
            Some(Value::String(s)) => {
                for problem in port_name_problems(s) {
                    causes.push(field::invalid(
                        &format!("{at}.targetPort"),
                        &json!(s),
                        problem,
                    ));
                }
            }
            Some(Value::Number(n)) => {
                let n = n.as_i64().unwrap_or(0);
                if !(1..=65535).contains(&n) {
                    causes.push(field::invalid(
                        &format!("{at}.targetPort"),
                        &json!(n),
                        "must be between 1 and 65535, inclusive",
                    ));
                }
            }
            _ => {}
        }
        if let Some(np) = port_number(p.get("nodePort")).filter(|n| *n != 0) {
            if !matches!(ty, "NodePort" | "LoadBalancer") {
                causes.push(field::forbidden(
                    &format!("{at}.nodePort"),
                    &format!("may not be used when `type` is '{ty}'"),
                ));
            } else if !(1..=65535).contains(&np) {
                causes.push(field::invalid(
                    &format!("{at}.nodePort"),
                    &json!(np),
                    "must be between 1 and 65535, inclusive",
                ));
            }
        }
        let key = (protocol.to_owned(), port);
        if pairs.contains(&key) {
            // Upstream reports the (protocol, port) key it found twice.
            causes.push(field::duplicate_go(
                &at,
                &format!(
                    "core.ServicePort{{Name:\"\", Protocol:\"{protocol}\", AppProtocol:(*string)(nil), Port:{port}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:0}}"
                ),
            ));
        }
        pairs.push(key);
    }
    causes
}

impl CreateStrategy for ServiceStrategy {
    fn name_rule(&self) -> NameRule {
        NameRule::Dns1035Label
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        validate_service(obj)
    }
}

impl UpdateStrategy for ServiceStrategy {
    fn validate_update(&self, new: &Value, old: &Value, sub: Option<&str>) -> Vec<StatusCause> {
        let mut causes = validate_service(new);
        if sub.is_some() {
            return causes;
        }
        // A cluster IP may go only with the type becoming ExternalName; else it stays.
        let (a, b) = (spec_str(new, "clusterIP"), spec_str(old, "clusterIP"));
        let to_external = spec_str(new, "type") == "ExternalName";
        if !b.is_empty() && !to_external && !a.is_empty() && a != b {
            let ips = meta::nested(new, &["spec", "clusterIPs"]).cloned();
            causes.push(field::invalid(
                "spec.clusterIPs[0]",
                &json!(
                    ips.and_then(|v| v.get(0).cloned())
                        .unwrap_or_else(|| json!(a))
                ),
                "may not change once set",
            ));
        }
        causes
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Option<&str>) {
        if sub.is_some() || spec_str(new, "type") == "ExternalName" {
            return;
        }
        // An update that leaves the cluster IP out keeps the one allocated (kube's
        // `PatchAllocatedValues`), as it keeps allocated node ports.
        if spec_str(new, "clusterIP").is_empty() && !spec_str(old, "clusterIP").is_empty() {
            for key in ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
                if let (Some(v), Some(spec)) = (
                    meta::nested(old, &["spec", key]).cloned(),
                    new.get_mut("spec").and_then(Value::as_object_mut),
                ) {
                    spec.entry(key).or_insert(v);
                }
            }
        }
        if wants_node_ports(new) {
            let held = node_ports_of(old);
            if let Some(ports) = new
                .get_mut("spec")
                .and_then(|s| s.get_mut("ports"))
                .and_then(Value::as_array_mut)
            {
                for p in ports {
                    let key = port_key(p);
                    if port_number(p.get("nodePort")).unwrap_or(0) == 0
                        && let Some((_, np)) = held.iter().find(|(k, _)| *k == key)
                    {
                        p["nodePort"] = json!(np);
                    }
                }
            }
        }
    }
}

impl DeleteStrategy for ServiceStrategy {}

impl Strategy for ServiceStrategy {
    fn has_status(&self) -> bool {
        self.generic.has_status()
    }

    fn tracks_generation(&self) -> bool {
        self.generic.tracks_generation()
    }

    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.generic.field_labels(obj)
    }

    fn allocator(&self) -> Option<&dyn Allocator> {
        Some(self)
    }
}

fn port_key(p: &Value) -> (String, i64) {
    (
        p.get("protocol")
            .and_then(Value::as_str)
            .unwrap_or("TCP")
            .to_owned(),
        port_number(p.get("port")).unwrap_or(0),
    )
}

fn node_ports_of(svc: &Value) -> Vec<((String, i64), u16)> {
    ports(svc)
        .into_iter()
        .filter_map(|p| {
            let np = port_number(p.get("nodePort"))?;
            Some((port_key(p), u16::try_from(np).ok().filter(|n| *n != 0)?))
        })
        .collect()
}

fn ip_of(svc: &Value) -> Option<Ipv4Addr> {
    let ip = spec_str(svc, "clusterIP");
    ip.parse().ok()
}

fn invalid_ip(svc: &Value, ip: &str, why: &str) -> Error {
    Error::invalid(
        "",
        "Service",
        meta::name(svc),
        vec![field::invalid(
            "spec.clusterIPs",
            &json!([ip]),
            &format!("failed to allocate IP {ip}: {why}"),
        )],
    )
}

fn invalid_node_port(svc: &Value, i: usize, port: i64, why: &str) -> Error {
    Error::invalid(
        "",
        "Service",
        meta::name(svc),
        vec![field::invalid(
            &format!("spec.ports[{i}].nodePort"),
            &json!(port),
            why,
        )],
    )
}

impl ServiceStrategy {
    fn ip_address(&self, svc: &Value, ip: Ipv4Addr) -> Value {
        json!({
            "apiVersion": "networking.k8s.io/v1",
            "kind": "IPAddress",
            "metadata": {
                "name": ip.to_string(),
                "labels": {
                    "ipaddress.kubernetes.io/ip-family": "IPv4",
                    "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
                }
            },
            "spec": {"parentRef": {
                "group": "",
                "resource": "services",
                "namespace": meta::namespace(svc),
                "name": meta::name(svc),
            }}
        })
    }

    /// Takes `ip` by creating its IPAddress; false when it is taken.
    async fn claim_ip(&self, objects: &dyn Objects, svc: &Value, ip: Ipv4Addr) -> Result<bool> {
        match objects
            .create_object(IP_ADDRESSES, None, self.ip_address(svc, ip))
            .await
        {
            Ok(_) => Ok(true),
            Err(Error::AlreadyExists { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// A free address of the range, chosen at random (the upper band first); under dry
    /// run one that is free now.
    async fn allocate_ip(
        &self,
        objects: &dyn Objects,
        svc: &Value,
        dry_run: bool,
    ) -> Result<Ipv4Addr> {
        let base = u32::from(self.network.network);
        let (upper, lower) = self.network.dynamic_offsets();
        for band in [upper, lower] {
            let len = band.end() - band.start() + 1;
            let start = random_below(len);
            for i in 0..len {
                let ip = Ipv4Addr::from(base + band.start() + (start + i) % len);
                let free = if dry_run {
                    objects
                        .get_object(IP_ADDRESSES, None, &ip.to_string())
                        .await?
                        .is_none()
                } else {
                    self.claim_ip(objects, svc, ip).await?
                };
                if free {
                    return Ok(ip);
                }
            }
        }
        Err(Error::invalid(
            "",
            "Service",
            meta::name(svc),
            vec![field::invalid(
                "spec.clusterIPs",
                &json!([]),
                &format!(
                    "failed to allocate IP: range is full (the range of valid IPs is {})",
                    self.network.cidr()
                ),
            )],
        ))
    }

    fn node_port_key(&self, objects: &dyn Objects, port: u16) -> String {
        format!("{}/ranges/servicenodeports/{port}", objects.storage_root())
    }

    /// Takes node port `port` for `svc`; false when another holds it.
    async fn claim_node_port(
        &self,
        objects: &dyn Objects,
        svc: &Value,
        port: u16,
        dry_run: bool,
    ) -> Result<bool> {
        let key = self.node_port_key(objects, port);
        if dry_run {
            let held = objects.store().get(key.as_bytes(), None).await?;
            return Ok(held.is_none());
        }
        let claim = json!({"namespace": meta::namespace(svc), "name": meta::name(svc)});
        match objects
            .store()
            .create(key.as_bytes(), claim.to_string().into_bytes())
            .await
        {
            Ok(_) => Ok(true),
            Err(StoreError::AlreadyExists { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    async fn allocate_node_port(
        &self,
        objects: &dyn Objects,
        svc: &Value,
        dry_run: bool,
    ) -> Result<u16> {
        let (lo, hi) = (
            *self.network.node_ports.start(),
            *self.network.node_ports.end(),
        );
        let len = u32::from(hi - lo) + 1;
        let start = random_below(len);
        for i in 0..len {
            let port = lo + ((start + i) % len) as u16;
            if self.claim_node_port(objects, svc, port, dry_run).await? {
                return Ok(port);
            }
        }
        Err(Error::invalid(
            "",
            "Service",
            meta::name(svc),
            vec![field::invalid(
                "spec.ports[0].nodePort",
                &json!(0),
                "range is full",
            )],
        ))
    }

    async fn take(
        &self,
        objects: &dyn Objects,
        svc: &mut Value,
        old: Option<&Value>,
        dry_run: bool,
        taken: &mut Taken,
    ) -> Result<()> {
        let ty = spec_str(svc, "type").to_owned();
        if ty != "ExternalName" {
            let held = old.and_then(ip_of);
            let asked = spec_str(svc, "clusterIP").to_owned();
            if asked == "None" {
                set_ips(svc, None);
            } else if asked.is_empty()
                || Some(asked.as_str()) == held.map(|h| h.to_string()).as_deref()
            {
                let ip = match held {
                    Some(ip) => ip,
                    None => {
                        let ip = self.allocate_ip(objects, svc, dry_run).await?;
                        if !dry_run {
                            taken.0.push(format!("ip/{ip}"));
                        }
                        ip
                    }
                };
                set_ips(svc, Some(ip));
            } else {
                let ip: Ipv4Addr = asked
                    .parse()
                    .map_err(|_| invalid_ip(svc, &asked, "must be a valid IP address"))?;
                if !self.network.contains(ip) {
                    let why = format!(
                        "the provided IP ({ip}) is not in the valid range. The range of valid IPs is {}",
                        self.network.cidr()
                    );
                    return Err(invalid_ip(svc, &asked, &why));
                }
                let free = if dry_run {
                    objects
                        .get_object(IP_ADDRESSES, None, &asked)
                        .await?
                        .is_none()
                } else {
                    self.claim_ip(objects, svc, ip).await?
                };
                if !free {
                    return Err(invalid_ip(svc, &asked, "provided IP is already allocated"));
                }
                if !dry_run {
                    taken.0.push(format!("ip/{ip}"));
                }
                set_ips(svc, Some(ip));
            }
        }
        if !wants_node_ports(svc) {
            return Ok(());
        }
        let held: Vec<u16> = old
            .map(node_ports_of)
            .unwrap_or_default()
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        let n = ports(svc).len();
        for i in 0..n {
            let asked = port_number(
                meta::nested(svc, &["spec", "ports"])
                    .and_then(|p| p.get(i))
                    .and_then(|p| p.get("nodePort")),
            )
            .unwrap_or(0);
            let port = if asked == 0 {
                let p = self.allocate_node_port(objects, svc, dry_run).await?;
                if !dry_run {
                    taken.0.push(format!("port/{p}"));
                }
                p
            } else {
                let p = u16::try_from(asked).unwrap_or(0);
                if held.contains(&p) {
                    continue;
                }
                if !self.network.node_ports.contains(&p) {
                    let (lo, hi) = (
                        self.network.node_ports.start(),
                        self.network.node_ports.end(),
                    );
                    let why = format!(
                        "provided port is not in the valid range. The range of valid ports is {lo}-{hi}"
                    );
                    return Err(invalid_node_port(svc, i, asked, &why));
                }
                if !self.claim_node_port(objects, svc, p, dry_run).await? {
                    return Err(invalid_node_port(
                        svc,
                        i,
                        asked,
                        "provided port is already allocated",
                    ));
                }
                if !dry_run {
                    taken.0.push(format!("port/{p}"));
                }
                p
            };
            svc["spec"]["ports"][i]["nodePort"] = json!(port);
        }
        Ok(())
    }

    async fn give(&self, objects: &dyn Objects, what: &str) {
        let result = if let Some(ip) = what.strip_prefix("ip/") {
            objects.delete_object(IP_ADDRESSES, None, ip).await
        } else if let Some(port) = what.strip_prefix("port/") {
            let key = format!("{}/ranges/servicenodeports/{port}", objects.storage_root());
            match objects.store().delete(key.as_bytes(), None).await {
                Ok(_) | Err(StoreError::NotFound { .. }) => Ok(()),
                Err(e) => Err(e.into()),
            }
        } else {
            Ok(())
        };
        if let Err(e) = result {
            tracing::warn!(what, error = %e, "could not release a service allocation");
        }
    }
}

/// A random number below `n` (0 when the system source fails: the scan still finds a
/// free slot, from the start).
fn random_below(n: u32) -> u32 {
    use ring::rand::SecureRandom;
    let mut b = [0u8; 4];
    match ring::rand::SystemRandom::new().fill(&mut b) {
        Ok(()) => u32::from_le_bytes(b) % n.max(1),
        Err(_) => 0,
    }
}

/// Writes the cluster IP (or headless `None`) with its families, single-stack IPv4.
fn set_ips(svc: &mut Value, ip: Option<Ipv4Addr>) {
    let text = ip.map(|i| i.to_string()).unwrap_or_else(|| "None".into());
    let Some(spec) = svc.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    spec.insert("clusterIP".into(), json!(text));
    spec.insert("clusterIPs".into(), json!([text]));
    let headless_without_selector = ip.is_none()
        && spec
            .get("selector")
            .and_then(Value::as_object)
            .is_none_or(|s| s.is_empty());
    if !headless_without_selector || !spec.contains_key("ipFamilies") {
        spec.insert("ipFamilies".into(), json!(["IPv4"]));
    }
    spec.entry("ipFamilyPolicy").or_insert(json!("SingleStack"));
}

#[async_trait::async_trait]
impl Allocator for ServiceStrategy {
    async fn allocate(
        &self,
        objects: &dyn Objects,
        obj: &mut Value,
        old: Option<&Value>,
        dry_run: bool,
    ) -> Result<Taken> {
        let mut taken = Taken::default();
        if let Err(e) = self.take(objects, obj, old, dry_run, &mut taken).await {
            self.give_back(objects, &taken).await;
            return Err(e);
        }
        Ok(taken)
    }

    async fn give_back(&self, objects: &dyn Objects, taken: &Taken) {
        for what in &taken.0 {
            self.give(objects, what).await;
        }
    }

    async fn release(&self, objects: &dyn Objects, old: &Value, new: Option<&Value>) {
        if let Some(ip) = ip_of(old)
            && new.and_then(ip_of) != Some(ip)
        {
            self.give(objects, &format!("ip/{ip}")).await;
        }
        let kept: Vec<u16> = new
            .filter(|n| wants_node_ports(n))
            .map(node_ports_of)
            .unwrap_or_default()
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        for (_, port) in node_ports_of(old) {
            if !kept.contains(&port) {
                self.give(objects, &format!("port/{port}")).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svc(ports: Value) -> Value {
        json!({"metadata": {"name": "s"}, "spec": {"type": "ClusterIP", "sessionAffinity": "None", "ports": ports}})
    }

    #[test]
    fn a_duplicate_protocol_and_port_is_refused() {
        let causes = validate_service(&svc(json!([
            {"name": "a", "port": 80, "protocol": "TCP", "targetPort": 8080},
            {"name": "b", "port": 80, "protocol": "TCP", "targetPort": 8081},
        ])));
        assert_eq!(causes.len(), 1, "{causes:?}");
        assert_eq!(causes[0].field, "spec.ports[1]");
        assert_eq!(causes[0].reason, "FieldValueDuplicate");
    }

    #[test]
    fn several_ports_each_need_a_name() {
        let causes = validate_service(&svc(json!([
            {"port": 80, "protocol": "TCP"}, {"port": 81, "protocol": "TCP"}
        ])));
        let fields: Vec<&str> = causes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["spec.ports[0].name", "spec.ports[1].name"]);
    }

    #[test]
    fn a_port_out_of_range_and_an_unknown_protocol_are_invalid() {
        let causes = validate_service(&svc(json!([{"port": 70000, "protocol": "HTTP"}])));
        assert_eq!(
            causes[0].message,
            "Invalid value: 70000: must be between 1 and 65535, inclusive"
        );
        assert_eq!(
            causes[1].message,
            "Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\""
        );
    }

    #[test]
    fn a_cluster_ip_service_needs_ports_and_a_headless_one_does_not() {
        let causes = validate_service(&svc(json!([])));
        assert_eq!(causes[0].field, "spec.ports");
        let mut headless = svc(json!([]));
        headless["spec"]["clusterIP"] = json!("None");
        assert!(validate_service(&headless).is_empty());
    }

    #[test]
    fn the_default_range_skips_network_and_broadcast_and_keeps_a_static_band() {
        let net = ServiceNetwork::default();
        assert!(!net.contains(Ipv4Addr::new(10, 0, 0, 0)));
        assert!(!net.contains(Ipv4Addr::new(10, 0, 0, 255)));
        assert!(net.contains(Ipv4Addr::new(10, 0, 0, 254)));
        assert_eq!(net.first(), Ipv4Addr::new(10, 0, 0, 1));
        let (upper, lower) = net.dynamic_offsets();
        assert_eq!((*upper.start(), *upper.end()), (17, 254));
        assert_eq!((*lower.start(), *lower.end()), (1, 16));
    }

    #[test]
    fn ranges_parse_as_kube_apiservers_flags() {
        let net = ServiceNetwork::parse("10.96.3.7/12", "30000-30010").unwrap();
        assert_eq!(net.cidr(), "10.96.0.0/12");
        assert_eq!(net.node_ports, 30000..=30010);
        assert!(ServiceNetwork::parse("10.96.0.0", "30000-32767").is_err());
        assert!(ServiceNetwork::parse("10.96.0.0/12", "32767-30000").is_err());
    }
}
