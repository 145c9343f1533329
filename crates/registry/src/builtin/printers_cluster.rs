//! Table columns of the core, networking, RBAC, storage, scheduling, admission and
//! flow-control kinds, as kube-apiserver 1.36's printers define them (the wide columns are
//! always sent; kubectl hides priority 1 without `-o wide`).

use super::printers::{doc, int_at, str_at};
use super::printers_apps::selector_cell;
use crate::meta::{self, nested};
use crate::table::{Column, ColumnTable, age_column, human_duration, name_column};
use serde_json::Value;

fn text(o: &Value, path: &[&str]) -> Value {
    Value::from(str_at(o, path).unwrap_or_default())
}

fn text_or(o: &Value, path: &[&str], absent: &str) -> Value {
    Value::from(str_at(o, path).unwrap_or(absent))
}

fn array<'a>(o: &'a Value, path: &[&str]) -> &'a [Value] {
    nested(o, path)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn count(o: &Value, path: &[&str]) -> Value {
    Value::from(array(o, path).len())
}

fn flag(o: &Value, path: &[&str], absent: bool) -> Value {
    Value::from(nested(o, path).and_then(Value::as_bool).unwrap_or(absent))
}

fn deleting(o: &Value) -> bool {
    nested(o, &["metadata", "deletionTimestamp"]).is_some_and(|t| !t.is_null())
}

fn annotation<'a>(o: &'a Value, key: &str) -> Option<&'a str> {
    nested(o, &["metadata", "annotations", key]).and_then(Value::as_str)
}

/// Up to three items joined by `,`, then ` + N more...` (upstream's `listWithMoreString`),
/// `empty` when there are none.
fn first_three(items: Vec<String>, empty: &str) -> String {
    let total = items.len();
    let shown = items.into_iter().take(3).collect::<Vec<_>>().join(",");
    if total > 3 {
        format!("{shown} + {} more...", total - 3)
    } else if shown.is_empty() {
        empty.to_owned()
    } else {
        shown
    }
}

/// ServiceAccounts: Name, Secrets, Age.
pub fn serviceaccounts() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Secrets",
            "string",
            doc("io.k8s.api.core.v1.ServiceAccount", "secrets"),
            |o| count(o, &["secrets"]),
        ),
        age_column(),
    ])
}

fn host_port(ip: &str, port: &Value) -> String {
    if ip.contains(':') {
        format!("[{ip}]:{port}")
    } else {
        format!("{ip}:{port}")
    }
}

/// printEndpoints' list: each address with each port of its subset, three at most.
fn endpoints_cell(o: &Value) -> Value {
    let subsets = array(o, &["subsets"]);
    if subsets.is_empty() {
        return Value::from("<none>");
    }
    let mut shown = Vec::new();
    let mut total = 0;
    for subset in subsets {
        let addresses = array(subset, &["addresses"]);
        let ports = array(subset, &["ports"]);
        let ips = addresses
            .iter()
            .map(|a| a["ip"].as_str().unwrap_or_default());
        if ports.is_empty() {
            total += addresses.len();
            shown.extend(
                ips.take(3usize.saturating_sub(shown.len()))
                    .map(str::to_owned),
            );
            continue;
        }
        for port in ports {
            total += addresses.len();
            for ip in ips.clone() {
                if shown.len() == 3 {
                    break;
                }
                shown.push(host_port(ip, &port["port"]));
            }
        }
    }
    let list = shown.join(",");
    Value::from(if total > 3 {
        format!("{list} + {} more...", total - 3)
    } else {
        list
    })
}

/// Endpoints: Name, Endpoints, Age.
pub fn endpoints() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Endpoints",
            "string",
            doc("io.k8s.api.core.v1.Endpoints", "subsets"),
            endpoints_cell,
        ),
        age_column(),
    ])
}

fn node_status(o: &Value) -> Value {
    let ready = array(o, &["status", "conditions"])
        .iter()
        .rev()
        .find(|c| c["type"] == "Ready");
    let mut status = match ready {
        Some(c) if c["status"] == "True" => "Ready",
        Some(_) => "NotReady",
        None => "Unknown",
    }
    .to_owned();
    if nested(o, &["spec", "unschedulable"]) == Some(&Value::Bool(true)) {
        status.push_str(",SchedulingDisabled");
    }
    Value::from(status)
}

fn node_roles(o: &Value) -> Value {
    let mut roles: Vec<&str> = nested(o, &["metadata", "labels"])
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
            Some(role) if !role.is_empty() => Some(role),
            Some(_) => None,
            None if k == "kubernetes.io/role" => v.as_str().filter(|r| !r.is_empty()),
            None => None,
        })
        .collect();
    roles.sort_unstable();
    roles.dedup();
    Value::from(if roles.is_empty() {
        "<none>".to_owned()
    } else {
        roles.join(",")
    })
}

fn node_address(o: &Value, kind: &str) -> Value {
    let address = array(o, &["status", "addresses"])
        .iter()
        .find(|a| a["type"] == kind)
        .and_then(|a| a["address"].as_str());
    Value::from(address.unwrap_or("<none>"))
}

fn node_kernel(o: &Value) -> Value {
    let kernel = str_at(o, &["status", "nodeInfo", "kernelVersion"]).unwrap_or("<unknown>");
    Value::from(match str_at(o, &["status", "nodeInfo", "architecture"]) {
        Some(arch) => format!("{kernel} ({arch})"),
        None => kernel.to_owned(),
    })
}

/// Nodes: Name, Status, Roles, Age, Version, Internal-IP, External-IP, OS-Image,
/// Kernel-Version, Container-Runtime.
pub fn nodes() -> ColumnTable {
    const INFO: &str = "io.k8s.api.core.v1.NodeSystemInfo";
    const STATUS: &str = "io.k8s.api.core.v1.NodeStatus";
    ColumnTable(vec![
        name_column(),
        Column::new("Status", "string", "The status of the node", node_status),
        Column::new("Roles", "string", "The roles of the node", node_roles),
        age_column(),
        Column::new("Version", "string", doc(INFO, "kubeletVersion"), |o| {
            text(o, &["status", "nodeInfo", "kubeletVersion"])
        }),
        Column::new("Internal-IP", "string", doc(STATUS, "addresses"), |o| {
            node_address(o, "InternalIP")
        })
        .wide(),
        Column::new("External-IP", "string", doc(STATUS, "addresses"), |o| {
            node_address(o, "ExternalIP")
        })
        .wide(),
        Column::new("OS-Image", "string", doc(INFO, "osImage"), |o| {
            text_or(o, &["status", "nodeInfo", "osImage"], "<unknown>")
        })
        .wide(),
        Column::new(
            "Kernel-Version",
            "string",
            doc(INFO, "kernelVersion"),
            node_kernel,
        )
        .wide(),
        Column::new(
            "Container-Runtime",
            "string",
            doc(INFO, "containerRuntimeVersion"),
            |o| {
                text_or(
                    o,
                    &["status", "nodeInfo", "containerRuntimeVersion"],
                    "<unknown>",
                )
            },
        )
        .wide(),
    ])
}

/// `GetAccessModesAsString`: RWO, ROX, RWX, RWOP in that order, each once.
fn access_modes(modes: &[Value]) -> Value {
    let short = [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ];
    let present: Vec<&str> = short
        .iter()
        .filter(|(mode, _)| modes.iter().any(|m| m == mode))
        .map(|(_, s)| *s)
        .collect();
    Value::from(present.join(","))
}

fn phase_of(o: &Value) -> Value {
    if deleting(o) {
        Value::from("Terminating")
    } else {
        text(o, &["status", "phase"])
    }
}

fn storage_class_of(o: &Value) -> Value {
    match annotation(o, "volume.beta.kubernetes.io/storage-class") {
        Some(class) => Value::from(class),
        None => text(o, &["spec", "storageClassName"]),
    }
}

fn storage_quantity(o: &Value, path: &[&str]) -> Value {
    Value::from(
        nested(o, path)
            .and_then(Value::as_str)
            .unwrap_or("0")
            .to_owned(),
    )
}

/// PersistentVolumes: Name, Capacity, Access Modes, Reclaim Policy, Status, Claim,
/// StorageClass, VolumeAttributesClass, Reason, Age, VolumeMode.
pub fn persistentvolumes() -> ColumnTable {
    const SPEC: &str = "io.k8s.api.core.v1.PersistentVolumeSpec";
    const STATUS: &str = "io.k8s.api.core.v1.PersistentVolumeStatus";
    ColumnTable(vec![
        name_column(),
        Column::new("Capacity", "string", doc(SPEC, "capacity"), |o| {
            storage_quantity(o, &["spec", "capacity", "storage"])
        }),
        Column::new("Access Modes", "string", doc(SPEC, "accessModes"), |o| {
            access_modes(array(o, &["spec", "accessModes"]))
        }),
        Column::new(
            "Reclaim Policy",
            "string",
            doc(SPEC, "persistentVolumeReclaimPolicy"),
            |o| text(o, &["spec", "persistentVolumeReclaimPolicy"]),
        ),
        Column::new("Status", "string", doc(STATUS, "phase"), phase_of),
        Column::new("Claim", "string", doc(SPEC, "claimRef"), |o| {
            Value::from(match nested(o, &["spec", "claimRef"]) {
                Some(r) if r.is_object() => format!(
                    "{}/{}",
                    r["namespace"].as_str().unwrap_or_default(),
                    r["name"].as_str().unwrap_or_default()
                ),
                _ => String::new(),
            })
        }),
        Column::new(
            "StorageClass",
            "string",
            "StorageClass of the pv",
            storage_class_of,
        ),
        Column::new(
            "VolumeAttributesClass",
            "string",
            "VolumeAttributesClass of the pv",
            |o| text_or(o, &["spec", "volumeAttributesClassName"], "<unset>"),
        ),
        Column::new("Reason", "string", doc(STATUS, "reason"), |o| {
            text(o, &["status", "reason"])
        }),
        age_column(),
        Column::new("VolumeMode", "string", doc(SPEC, "volumeMode"), |o| {
            text_or(o, &["spec", "volumeMode"], "<unset>")
        })
        .wide(),
    ])
}

/// PersistentVolumeClaims: Name, Status, Volume, Capacity, Access Modes, StorageClass,
/// VolumeAttributesClass, Age, VolumeMode.
pub fn persistentvolumeclaims() -> ColumnTable {
    const SPEC: &str = "io.k8s.api.core.v1.PersistentVolumeClaimSpec";
    const STATUS: &str = "io.k8s.api.core.v1.PersistentVolumeClaimStatus";
    ColumnTable(vec![
        name_column(),
        Column::new("Status", "string", doc(STATUS, "phase"), phase_of),
        Column::new("Volume", "string", doc(SPEC, "volumeName"), |o| {
            text(o, &["spec", "volumeName"])
        }),
        Column::new(
            "Capacity",
            "string",
            doc(STATUS, "capacity"),
            |o| match str_at(o, &["spec", "volumeName"]) {
                Some(_) => storage_quantity(o, &["status", "capacity", "storage"]),
                None => Value::from(""),
            },
        ),
        Column::new(
            "Access Modes",
            "string",
            doc(STATUS, "accessModes"),
            |o| match str_at(o, &["spec", "volumeName"]) {
                Some(_) => access_modes(array(o, &["status", "accessModes"])),
                None => Value::from(""),
            },
        ),
        Column::new(
            "StorageClass",
            "string",
            "StorageClass of the pvc",
            storage_class_of,
        ),
        Column::new(
            "VolumeAttributesClass",
            "string",
            "VolumeAttributesClass of the pvc",
            |o| text_or(o, &["spec", "volumeAttributesClassName"], "<unset>"),
        ),
        age_column(),
        Column::new("VolumeMode", "string", doc(SPEC, "volumeMode"), |o| {
            text_or(o, &["spec", "volumeMode"], "<unset>")
        })
        .wide(),
    ])
}

fn healthy_condition(o: &Value) -> Option<&Value> {
    array(o, &["conditions"])
        .iter()
        .find(|c| c["type"] == "Healthy")
}

/// ComponentStatuses: Name, Status, Message, Error (no Age).
pub fn componentstatuses() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Status",
            "string",
            "Status of the component conditions",
            |o| {
                Value::from(match healthy_condition(o) {
                    Some(c) if c["status"] == "True" => "Healthy",
                    Some(_) => "Unhealthy",
                    None => "Unknown",
                })
            },
        ),
        Column::new(
            "Message",
            "string",
            "Message of the component conditions",
            |o| {
                Value::from(
                    healthy_condition(o)
                        .and_then(|c| c["message"].as_str())
                        .unwrap_or(""),
                )
            },
        ),
        Column::new(
            "Error",
            "string",
            "Error of the component conditions",
            |o| {
                Value::from(
                    healthy_condition(o)
                        .and_then(|c| c["error"].as_str())
                        .unwrap_or(""),
                )
            },
        ),
    ])
}

fn quota_cells(o: &Value, limits: bool) -> Value {
    let Some(hard) = nested(o, &["status", "hard"]).and_then(Value::as_object) else {
        return Value::from("");
    };
    let mut names: Vec<&String> = hard.keys().collect();
    names.sort();
    let entries: Vec<String> = names
        .into_iter()
        .filter(|name| {
            let is_limit = name
                .split_once('.')
                .is_some_and(|(first, _)| first == "limits");
            is_limit == limits
        })
        .map(|name| {
            let used = nested(o, &["status", "used", name])
                .and_then(Value::as_str)
                .unwrap_or("0");
            let limit = hard[name.as_str()].as_str().unwrap_or("0");
            format!("{name}: {used}/{limit}")
        })
        .collect();
    Value::from(entries.join(", "))
}

/// ResourceQuotas: Name, Request, Limit, Age.
pub fn resourcequotas() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Request",
            "string",
            "Request represents a minimum amount of cpu/memory that a container may consume.",
            |o| quota_cells(o, false),
        ),
        Column::new(
            "Limit",
            "string",
            "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
            |o| quota_cells(o, true),
        ),
        age_column(),
    ])
}

/// NetworkPolicies: Name, Pod-Selector, Age.
pub fn networkpolicies() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Pod-Selector",
            "string",
            doc(
                "io.k8s.api.extensions.v1beta1.NetworkPolicySpec",
                "podSelector",
            ),
            |o| selector_cell(nested(o, &["spec", "podSelector"])),
        ),
        age_column(),
    ])
}

/// The subjects of `kind` of a binding, joined by `, ` (ServiceAccounts as `ns/name`).
fn subjects(o: &Value, kind: &str) -> Value {
    let names: Vec<String> = array(o, &["subjects"])
        .iter()
        .filter(|s| s["kind"] == kind)
        .map(|s| {
            let name = s["name"].as_str().unwrap_or_default();
            if kind == "ServiceAccount" {
                format!("{}/{name}", s["namespace"].as_str().unwrap_or_default())
            } else {
                name.to_owned()
            }
        })
        .collect();
    Value::from(names.join(", "))
}

fn binding_columns(
    role: &'static str,
    users: &'static str,
    groups: &'static str,
    accounts: &'static str,
) -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new("Role", "string", role, |o| {
            Value::from(format!(
                "{}/{}",
                str_at(o, &["roleRef", "kind"]).unwrap_or_default(),
                str_at(o, &["roleRef", "name"]).unwrap_or_default()
            ))
        }),
        age_column(),
        Column::new("Users", "string", users, |o| subjects(o, "User")).wide(),
        Column::new("Groups", "string", groups, |o| subjects(o, "Group")).wide(),
        Column::new("ServiceAccounts", "string", accounts, |o| {
            subjects(o, "ServiceAccount")
        })
        .wide(),
    ])
}

/// RoleBindings: Name, Role, Age, Users, Groups, ServiceAccounts.
pub fn rolebindings() -> ColumnTable {
    binding_columns(
        doc("io.k8s.api.rbac.v1beta1.RoleBinding", "roleRef"),
        "Users in the roleBinding",
        "Groups in the roleBinding",
        "ServiceAccounts in the roleBinding",
    )
}

/// ClusterRoleBindings: Name, Role, Age, Users, Groups, ServiceAccounts.
pub fn clusterrolebindings() -> ColumnTable {
    binding_columns(
        doc("io.k8s.api.rbac.v1beta1.ClusterRoleBinding", "roleRef"),
        "Users in the clusterRoleBinding",
        "Groups in the clusterRoleBinding",
        "ServiceAccounts in the clusterRoleBinding",
    )
}

fn csr_condition(o: &Value) -> Value {
    let conditions = array(o, &["status", "conditions"]);
    let has = |kind: &str| conditions.iter().any(|c| c["type"] == kind);
    let mut status = if has("Denied") {
        "Denied"
    } else if has("Approved") {
        "Approved"
    } else {
        "Pending"
    }
    .to_owned();
    if has("Failed") {
        status.push_str(",Failed");
    }
    if str_at(o, &["status", "certificate"]).is_some() {
        status.push_str(",Issued");
    }
    Value::from(status)
}

/// CertificateSigningRequests: Name, Age, SignerName, Requestor, RequestedDuration,
/// Condition.
pub fn certificatesigningrequests() -> ColumnTable {
    const SPEC: &str = "io.k8s.api.certificates.v1beta1.CertificateSigningRequestSpec";
    ColumnTable(vec![
        name_column(),
        age_column(),
        Column::new("SignerName", "string", doc(SPEC, "signerName"), |o| {
            text_or(o, &["spec", "signerName"], "<none>")
        }),
        // Upstream describes the requestor with the request's doc.
        Column::new("Requestor", "string", doc(SPEC, "request"), |o| {
            text(o, &["spec", "username"])
        }),
        Column::new(
            "RequestedDuration",
            "string",
            doc(SPEC, "expirationSeconds"),
            |o| {
                Value::from(
                    match nested(o, &["spec", "expirationSeconds"]).and_then(Value::as_i64) {
                        Some(s) => human_duration(s),
                        None => "<none>".to_owned(),
                    },
                )
            },
        ),
        Column::new(
            "Condition",
            "string",
            doc(
                "io.k8s.api.certificates.v1beta1.CertificateSigningRequestStatus",
                "conditions",
            ),
            csr_condition,
        ),
    ])
}

fn default_marked(o: &Value, keys: &[&str]) -> Value {
    let name = meta::name(o);
    if keys.iter().any(|k| annotation(o, k) == Some("true")) {
        Value::from(format!("{name} (default)"))
    } else {
        Value::from(name)
    }
}

/// StorageClasses: Name (marked `(default)`), Provisioner, ReclaimPolicy, VolumeBindingMode,
/// AllowVolumeExpansion, Age.
pub fn storageclasses() -> ColumnTable {
    const M: &str = "io.k8s.api.storage.v1.StorageClass";
    let mut name = name_column();
    name.cell = |o| {
        default_marked(
            o,
            &[
                "storageclass.kubernetes.io/is-default-class",
                "storageclass.beta.kubernetes.io/is-default-class",
            ],
        )
    };
    ColumnTable(vec![
        name,
        Column::new("Provisioner", "string", doc(M, "provisioner"), |o| {
            text(o, &["provisioner"])
        }),
        Column::new("ReclaimPolicy", "string", doc(M, "reclaimPolicy"), |o| {
            text_or(o, &["reclaimPolicy"], "Delete")
        }),
        Column::new(
            "VolumeBindingMode",
            "string",
            doc(M, "volumeBindingMode"),
            |o| text_or(o, &["volumeBindingMode"], "Immediate"),
        ),
        Column::new(
            "AllowVolumeExpansion",
            "string",
            doc(M, "allowVolumeExpansion"),
            |o| flag(o, &["allowVolumeExpansion"], false),
        ),
        age_column(),
    ])
}

/// VolumeAttributesClasses: Name, DriverName, Age.
pub fn volumeattributesclasses() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "DriverName",
            "string",
            doc("io.k8s.api.storage.v1.VolumeAttributesClass", "driverName"),
            |o| text(o, &["driverName"]),
        ),
        age_column(),
    ])
}

/// PriorityClasses: Name, Value, Global-Default, Age, PreemptionPolicy.
pub fn priorityclasses() -> ColumnTable {
    const M: &str = "io.k8s.api.scheduling.v1.PriorityClass";
    ColumnTable(vec![
        name_column(),
        Column::new("Value", "integer", doc(M, "value"), |o| {
            Value::from(int_at(o, &["value"]))
        }),
        Column::new("Global-Default", "boolean", doc(M, "globalDefault"), |o| {
            flag(o, &["globalDefault"], false)
        }),
        age_column(),
        Column::new(
            "PreemptionPolicy",
            "string",
            doc(M, "preemptionPolicy"),
            |o| text(o, &["preemptionPolicy"]),
        ),
    ])
}

/// RuntimeClasses: Name, Handler (upstream's description lookup finds nothing), Age.
pub fn runtimeclasses() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new("Handler", "string", "", |o| text(o, &["handler"])),
        age_column(),
    ])
}

/// VolumeAttachments: Name, Attacher, PV, Node, Attached, Age.
pub fn volumeattachments() -> ColumnTable {
    const SPEC: &str = "io.k8s.api.storage.v1.VolumeAttachmentSpec";
    let mut attacher = Column::new("Attacher", "string", doc(SPEC, "attacher"), |o| {
        text(o, &["spec", "attacher"])
    });
    attacher.format = "name";
    ColumnTable(vec![
        name_column(),
        attacher,
        Column::new(
            "PV",
            "string",
            doc(
                "io.k8s.api.storage.v1.VolumeAttachmentSource",
                "persistentVolumeName",
            ),
            |o| text(o, &["spec", "source", "persistentVolumeName"]),
        ),
        Column::new("Node", "string", doc(SPEC, "nodeName"), |o| {
            text(o, &["spec", "nodeName"])
        }),
        Column::new(
            "Attached",
            "boolean",
            doc("io.k8s.api.storage.v1.VolumeAttachmentStatus", "attached"),
            |o| flag(o, &["status", "attached"], false),
        ),
        age_column(),
    ])
}

/// EndpointSlices: Name, AddressType, Ports, Endpoints, Age.
pub fn endpointslices() -> ColumnTable {
    const M: &str = "io.k8s.api.discovery.v1beta1.EndpointSlice";
    ColumnTable(vec![
        name_column(),
        Column::new("AddressType", "string", doc(M, "addressType"), |o| {
            text(o, &["addressType"])
        }),
        Column::new("Ports", "string", doc(M, "ports"), |o| {
            let ports = array(o, &["ports"])
                .iter()
                .map(|p| match (&p["port"], p["name"].as_str()) {
                    (Value::Number(n), _) => n.to_string(),
                    (_, Some(name)) => name.to_owned(),
                    _ => "*".to_owned(),
                })
                .collect();
            Value::from(first_three(ports, "<unset>"))
        }),
        Column::new("Endpoints", "string", doc(M, "endpoints"), |o| {
            let addresses = array(o, &["endpoints"])
                .iter()
                .flat_map(|e| array(e, &["addresses"]))
                .map(|a| a.as_str().unwrap_or_default().to_owned())
                .collect();
            Value::from(first_three(addresses, "<unset>"))
        }),
        age_column(),
    ])
}

/// CSINodes: Name, Drivers, Age.
pub fn csinodes() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Drivers",
            "integer",
            "Drivers indicates the number of CSI drivers registered on the node",
            |o| count(o, &["spec", "drivers"]),
        ),
        age_column(),
    ])
}

/// CSIDrivers: Name, AttachRequired, PodInfoOnMount, StorageCapacity, TokenRequests,
/// RequiresRepublish, Modes, Age.
pub fn csidrivers() -> ColumnTable {
    const M: &str = "io.k8s.api.storage.v1.CSIDriverSpec";
    ColumnTable(vec![
        name_column(),
        Column::new("AttachRequired", "boolean", doc(M, "attachRequired"), |o| {
            flag(o, &["spec", "attachRequired"], true)
        }),
        Column::new("PodInfoOnMount", "boolean", doc(M, "podInfoOnMount"), |o| {
            flag(o, &["spec", "podInfoOnMount"], false)
        }),
        Column::new(
            "StorageCapacity",
            "boolean",
            doc(M, "storageCapacity"),
            |o| flag(o, &["spec", "storageCapacity"], false),
        ),
        Column::new("TokenRequests", "string", doc(M, "tokenRequests"), |o| {
            let audiences: Vec<&str> = array(o, &["spec", "tokenRequests"])
                .iter()
                .map(|t| t["audience"].as_str().unwrap_or_default())
                .collect();
            Value::from(if audiences.is_empty() {
                "<unset>".to_owned()
            } else {
                audiences.join(",")
            })
        }),
        Column::new(
            "RequiresRepublish",
            "boolean",
            doc(M, "requiresRepublish"),
            |o| flag(o, &["spec", "requiresRepublish"], false),
        ),
        Column::new("Modes", "string", doc(M, "volumeLifecycleModes"), |o| {
            let modes: Vec<&str> = array(o, &["spec", "volumeLifecycleModes"])
                .iter()
                .filter_map(Value::as_str)
                .collect();
            Value::from(if modes.is_empty() {
                "<none>".to_owned()
            } else {
                modes.join(",")
            })
        }),
        age_column(),
    ])
}

/// CSIStorageCapacities: Name, StorageClassName, Capacity (no Age).
pub fn csistoragecapacities() -> ColumnTable {
    const M: &str = "io.k8s.api.storage.v1.CSIStorageCapacity";
    ColumnTable(vec![
        name_column(),
        Column::new(
            "StorageClassName",
            "string",
            doc(M, "storageClassName"),
            |o| text(o, &["storageClassName"]),
        ),
        Column::new("Capacity", "string", doc(M, "capacity"), |o| {
            text_or(o, &["capacity"], "<unset>")
        }),
    ])
}

/// Webhook configurations (mutating and validating): Name, Webhooks, Age.
pub fn webhookconfigurations() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Webhooks",
            "integer",
            "Webhooks indicates the number of webhooks registered in this configuration",
            |o| count(o, &["webhooks"]),
        ),
        age_column(),
    ])
}

fn param_kind(o: &Value) -> Value {
    match nested(o, &["spec", "paramKind"]) {
        Some(p) if p.is_object() => Value::from(format!(
            "{}/{}",
            p["apiVersion"].as_str().unwrap_or_default(),
            p["kind"].as_str().unwrap_or_default()
        )),
        _ => Value::from("<unset>"),
    }
}

/// ValidatingAdmissionPolicies: Name, Validations, ParamKind, Age.
pub fn validatingadmissionpolicies() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Validations",
            "integer",
            "Validations indicates the number of validation rules defined in this configuration",
            |o| count(o, &["spec", "validations"]),
        ),
        Column::new(
            "ParamKind",
            "string",
            "ParamKind specifies the kind of resources used to parameterize this policy",
            param_kind,
        ),
        age_column(),
    ])
}

/// MutatingAdmissionPolicies: Name, Mutations, ParamKind, Age.
pub fn mutatingadmissionpolicies() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Mutations",
            "integer",
            "Mutation indicates the number of mutations rules defined in this configuration",
            |o| count(o, &["spec", "mutations"]),
        ),
        Column::new(
            "ParamKind",
            "string",
            "ParamKind specifies the kind of resources used to parameterize this policy",
            param_kind,
        ),
        age_column(),
    ])
}

/// Go's `%v` of a LabelSelector (`LabelSelector.String()`), which the bindings' ParamRef
/// column prints.
fn go_label_selector(sel: &Value) -> String {
    let mut labels: Vec<(&String, &str)> = sel["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k, v.as_str().unwrap_or_default()))
        .collect();
    labels.sort();
    let labels: String = labels.iter().map(|(k, v)| format!("{k}: {v},")).collect();
    let expressions: String = array(sel, &["matchExpressions"])
        .iter()
        .map(|e| {
            let values: Vec<&str> = array(e, &["values"])
                .iter()
                .filter_map(Value::as_str)
                .collect();
            format!(
                "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
                e["key"].as_str().unwrap_or_default(),
                e["operator"].as_str().unwrap_or_default(),
                values.join(" ")
            )
        })
        .collect();
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}"
    )
}

fn param_ref(o: &Value) -> Value {
    let Some(r) = nested(o, &["spec", "paramRef"]).filter(|r| r.is_object()) else {
        return Value::from("<unset>");
    };
    match (str_at(r, &["name"]), str_at(r, &["namespace"])) {
        (Some(name), Some(ns)) => Value::from(format!("{ns}/{name}")),
        (Some(name), None) => Value::from(format!("*/{name}")),
        (None, _) => match r.get("selector").filter(|s| s.is_object()) {
            Some(sel) => Value::from(go_label_selector(sel)),
            None => Value::from("<unset>"),
        },
    }
}

/// Admission policy bindings (validating and mutating): Name, PolicyName, ParamRef, Age.
pub fn admissionpolicybindings() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "PolicyName",
            "string",
            "PolicyName indicates the policy definition which the policy binding binded to",
            |o| text(o, &["spec", "policyName"]),
        ),
        Column::new(
            "ParamRef",
            "string",
            "ParamRef indicates the param resource which sets the configration param",
            param_ref,
        ),
        age_column(),
    ])
}

fn ingress_hosts(o: &Value) -> Value {
    let rules = array(o, &["spec", "rules"]);
    let mut hosts = Vec::new();
    let mut more = false;
    for rule in rules {
        if hosts.len() == 3 {
            more = true;
        }
        if let Some(host) = str_at(rule, &["host"])
            && !more
        {
            hosts.push(host);
        }
    }
    Value::from(if hosts.is_empty() {
        "*".to_owned()
    } else if more {
        format!("{} + {} more...", hosts.join(","), rules.len() - 3)
    } else {
        hosts.join(",")
    })
}

fn ingress_address(o: &Value) -> Value {
    let mut addresses: Vec<&str> = array(o, &["status", "loadBalancer", "ingress"])
        .iter()
        .filter_map(|i| str_at(i, &["ip"]).or_else(|| str_at(i, &["hostname"])))
        .collect();
    addresses.sort_unstable();
    addresses.dedup();
    Value::from(addresses.join(","))
}

/// Ingresses: Name, Class, Hosts, Address, Ports, Age.
pub fn ingresses() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Class",
            "string",
            "The name of the IngressClass resource that should be used for additional configuration",
            |o| text_or(o, &["spec", "ingressClassName"], "<none>"),
        ),
        Column::new(
            "Hosts",
            "string",
            "Hosts that incoming requests are matched against before the ingress rule",
            ingress_hosts,
        ),
        Column::new(
            "Address",
            "string",
            "Address is a list containing ingress points for the load-balancer",
            ingress_address,
        ),
        Column::new(
            "Ports",
            "string",
            "Ports of TLS configurations that open",
            |o| {
                Value::from(if array(o, &["spec", "tls"]).is_empty() {
                    "80"
                } else {
                    "80, 443"
                })
            },
        ),
        age_column(),
    ])
}

/// IngressClasses: Name (marked `(default)`), Controller, Parameters, Age.
pub fn ingressclasses() -> ColumnTable {
    let mut name = name_column();
    name.cell = |o| default_marked(o, &["ingressclass.kubernetes.io/is-default-class"]);
    ColumnTable(vec![
        name,
        Column::new(
            "Controller",
            "string",
            "Controller that is responsible for handling this class",
            |o| text(o, &["spec", "controller"]),
        ),
        Column::new(
            "Parameters",
            "string",
            "A reference to a resource with additional parameters",
            |o| {
                let Some(p) = nested(o, &["spec", "parameters"]).filter(|p| p.is_object()) else {
                    return Value::from("<none>");
                };
                let group = match p.get("apiGroup").and_then(Value::as_str) {
                    Some(g) => format!(".{g}"),
                    None => String::new(),
                };
                Value::from(format!(
                    "{}{group}/{}",
                    p["kind"].as_str().unwrap_or_default(),
                    p["name"].as_str().unwrap_or_default()
                ))
            },
        ),
        age_column(),
    ])
}

/// PriorityLevelConfigurations: Name, Type, NominalConcurrencyShares, Queues, HandSize,
/// QueueLengthLimit, Age.
pub fn prioritylevelconfigurations() -> ColumnTable {
    const Q: &str = "io.k8s.api.flowcontrol.v1.QueuingConfiguration";
    fn limited(o: &Value, path: &[&str]) -> Value {
        let Some(limited) = nested(o, &["spec", "limited"]).filter(|l| l.is_object()) else {
            return Value::from("<none>");
        };
        match nested(limited, path) {
            Some(Value::Number(n)) => Value::Number(n.clone()),
            _ if path.len() == 1 => Value::from(0),
            _ => Value::from("<none>"),
        }
    }
    const QUEUING: [&str; 2] = ["limitResponse", "queuing"];
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Type",
            "string",
            doc(
                "io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationSpec",
                "type",
            ),
            |o| text(o, &["spec", "type"]),
        ),
        Column::new(
            "NominalConcurrencyShares",
            "string",
            doc(
                "io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration",
                "nominalConcurrencyShares",
            ),
            |o| limited(o, &["nominalConcurrencyShares"]),
        ),
        Column::new("Queues", "string", doc(Q, "queues"), |o| {
            limited(o, &[QUEUING[0], QUEUING[1], "queues"])
        }),
        Column::new("HandSize", "string", doc(Q, "handSize"), |o| {
            limited(o, &[QUEUING[0], QUEUING[1], "handSize"])
        }),
        Column::new(
            "QueueLengthLimit",
            "string",
            doc(Q, "queueLengthLimit"),
            |o| limited(o, &[QUEUING[0], QUEUING[1], "queueLengthLimit"]),
        ),
        age_column(),
    ])
}

/// FlowSchemas: Name, PriorityLevel, MatchingPrecedence, DistinguisherMethod, Age,
/// MissingPL.
pub fn flowschemas() -> ColumnTable {
    const M: &str = "io.k8s.api.flowcontrol.v1.FlowSchemaSpec";
    ColumnTable(vec![
        name_column(),
        Column::new(
            "PriorityLevel",
            "string",
            doc(
                "io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationReference",
                "name",
            ),
            |o| text(o, &["spec", "priorityLevelConfiguration", "name"]),
        ),
        Column::new(
            "MatchingPrecedence",
            "string",
            doc(M, "matchingPrecedence"),
            |o| Value::from(int_at(o, &["spec", "matchingPrecedence"])),
        ),
        Column::new(
            "DistinguisherMethod",
            "string",
            doc(M, "distinguisherMethod"),
            |o| text_or(o, &["spec", "distinguisherMethod", "type"], "<none>"),
        ),
        age_column(),
        Column::new(
            "MissingPL",
            "string",
            "references a broken or non-existent PriorityLevelConfiguration",
            |o| {
                let dangling = array(o, &["status", "conditions"])
                    .iter()
                    .find(|c| c["type"] == "Dangling")
                    .and_then(|c| c["status"].as_str());
                Value::from(dangling.unwrap_or("?"))
            },
        ),
    ])
}

/// ServiceCIDRs: Name, CIDRs, Age.
pub fn servicecidrs() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "CIDRs",
            "string",
            doc("io.k8s.api.networking.v1beta1.ServiceCIDRSpec", "cidrs"),
            |o| {
                let cidrs: Vec<&str> = array(o, &["spec", "cidrs"])
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                Value::from(cidrs.join(","))
            },
        ),
        age_column(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cells(table: ColumnTable, o: &Value) -> Vec<Value> {
        table.0.iter().map(|c| (c.cell)(o)).collect()
    }

    #[test]
    fn endpoints_show_three_address_ports_then_how_many_more() {
        let ep = json!({"subsets": [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}],
            "ports": [{"port": 80}, {"port": 443}]}]});
        assert_eq!(
            endpoints_cell(&ep),
            "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more..."
        );
        assert_eq!(endpoints_cell(&json!({})), "<none>");
    }

    #[test]
    fn a_node_prints_ready_roles_and_cordoning() {
        let node = json!({"metadata": {"labels": {"node-role.kubernetes.io/control-plane": ""}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "True"}],
                "nodeInfo": {"kernelVersion": "6.1.0", "architecture": "amd64"}}});
        let c = cells(nodes(), &node);
        assert_eq!(c[1], "Ready,SchedulingDisabled");
        assert_eq!(c[2], "control-plane");
        assert_eq!(c[5], "<none>");
        assert_eq!(c[8], "6.1.0 (amd64)");
    }

    #[test]
    fn an_unbound_claim_shows_no_capacity_and_its_class() {
        let pvc = json!({"spec": {"storageClassName": "standard",
            "resources": {"requests": {"storage": "1Gi"}}}, "status": {"phase": "Pending"}});
        let c = cells(persistentvolumeclaims(), &pvc);
        assert_eq!(
            c[1..6],
            [
                json!("Pending"),
                json!(""),
                json!(""),
                json!(""),
                json!("standard")
            ]
        );
    }

    #[test]
    fn access_modes_print_in_upstreams_order() {
        let modes = [
            json!("ReadWriteMany"),
            json!("ReadWriteOnce"),
            json!("ReadWriteOnce"),
        ];
        assert_eq!(access_modes(&modes), "RWO,RWX");
    }

    #[test]
    fn a_role_binding_lists_its_subjects_by_kind() {
        let rb = json!({"roleRef": {"kind": "Role", "name": "edit"}, "subjects": [
            {"kind": "User", "name": "alice"}, {"kind": "ServiceAccount", "name": "ci",
             "namespace": "build"}, {"kind": "User", "name": "bob"}]});
        let c = cells(rolebindings(), &rb);
        assert_eq!(c[1], "Role/edit");
        assert_eq!(c[3], "alice, bob");
        assert_eq!(c[5], "build/ci");
    }

    #[test]
    fn a_quota_splits_requests_from_limits() {
        let q = json!({"status": {"hard": {"limits.cpu": "2", "requests.cpu": "1", "pods": "10"},
            "used": {"requests.cpu": "500m"}}});
        let c = cells(resourcequotas(), &q);
        assert_eq!(c[1], "pods: 0/10, requests.cpu: 500m/1");
        assert_eq!(c[2], "limits.cpu: 0/2");
    }

    #[test]
    fn a_default_storage_class_is_marked() {
        let sc = json!({"metadata": {"name": "standard", "annotations":
            {"storageclass.kubernetes.io/is-default-class": "true"}}, "provisioner": "x"});
        let c = cells(storageclasses(), &sc);
        assert_eq!(c[0], "standard (default)");
        assert_eq!(c[2], "Delete");
        assert_eq!(c[4], false);
    }

    #[test]
    fn a_csr_prints_approved_and_issued() {
        let csr = json!({"spec": {"signerName": "example.com/x", "expirationSeconds": 3600},
            "status": {"conditions": [{"type": "Approved", "status": "True"}],
                "certificate": "Zm9v"}});
        let c = cells(certificatesigningrequests(), &csr);
        assert_eq!(c[4], "60m");
        assert_eq!(c[5], "Approved,Issued");
    }

    #[test]
    fn ingress_hosts_show_three_then_how_many_more_rules() {
        let ing = json!({"spec": {"rules": [{}, {"host": "a"}, {"host": "b"}, {"host": "c"},
            {"host": "d"}]}});
        assert_eq!(ingress_hosts(&ing), "a,b,c + 2 more...");
    }

    #[test]
    fn a_binding_param_ref_by_selector_prints_gos_form() {
        let b = json!({"spec": {"paramRef": {"selector": {"matchLabels": {"a": "b"}}}}});
        assert_eq!(
            param_ref(&b),
            "&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}"
        );
    }

    #[test]
    fn an_exempt_priority_level_prints_none_for_its_queues() {
        let plc = json!({"spec": {"type": "Exempt"}});
        let c = cells(prioritylevelconfigurations(), &plc);
        assert_eq!(
            c[2..6],
            [
                json!("<none>"),
                json!("<none>"),
                json!("<none>"),
                json!("<none>")
            ]
        );
    }
}
