//! kubectl against kapi with the common networking, RBAC and storage kinds (issue 13): one
//! multi-document manifest applied, `kubectl get` printing the Table columns and cells that
//! kube-apiserver 1.36's printers give (pkg/printers/internalversion/printers.go; Roles and
//! ClusterRoles have no printer there, so the default NAME / CREATED AT), `kubectl describe`,
//! strategic-merge and merge patches, the updates kube-apiserver refuses, `kubectl edit`, and
//! `kubectl delete -f`. No controller manager runs, as with a bare kube-apiserver: claims and
//! volumes stay Pending.

mod e2e_support;

use e2e_support::{Kapi, json};
use serde_json::json;

/// Every kind of the issue, in the default namespace: a Service with its EndpointSlice, an
/// IngressClass and an Ingress routing to the Service, two NetworkPolicies, a Role and a
/// ClusterRole with their bindings, two StorageClasses (one the default), a PersistentVolume
/// and a PersistentVolumeClaim.
const KINDS: &str = r#"apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: default
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
endpoints:
- addresses: [10.0.0.5]
  conditions: {ready: true}
- addresses: [10.0.0.6]
  conditions: {ready: true}
ports:
- port: 8080
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: example.com/ingress-nginx
  parameters:
    apiGroup: k8s.example.com
    kind: IngressParameters
    name: external-lb
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: default
spec:
  ingressClassName: nginx
  tls:
  - hosts: [web.example]
    secretName: web-tls
  rules:
  - host: web.example
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port: {number: 80}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: deny-all
  namespace: default
spec:
  podSelector: {}
  policyTypes: [Ingress]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web-allow
  namespace: default
spec:
  podSelector:
    matchLabels: {app: web}
  ingress:
  - from:
    - podSelector:
        matchLabels: {role: client}
    ports:
    - port: 8080
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: reader
  namespace: default
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: reader
  namespace: default
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: reader
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
- kind: ServiceAccount
  name: op
  namespace: default
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: op-reader
rules:
- apiGroups: [apps]
  resources: [deployments]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: op-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: op-reader
subjects:
- kind: Group
  name: ops
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: example.com/disk
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
provisioner: example.com/disk
reclaimPolicy: Retain
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-1
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  hostPath: {path: /data/pv-1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources:
    requests: {storage: 1Gi}
"#;

/// What `kubectl get -o name` prints for the objects of [`KINDS`], in order.
const NAMES: [&str; 14] = [
    "service/web",
    "endpointslice.discovery.k8s.io/web-1",
    "ingressclass.networking.k8s.io/nginx",
    "ingress.networking.k8s.io/web",
    "networkpolicy.networking.k8s.io/deny-all",
    "networkpolicy.networking.k8s.io/web-allow",
    "role.rbac.authorization.k8s.io/reader",
    "rolebinding.rbac.authorization.k8s.io/reader",
    "clusterrole.rbac.authorization.k8s.io/op-reader",
    "clusterrolebinding.rbac.authorization.k8s.io/op-reader",
    "storageclass.storage.k8s.io/standard",
    "storageclass.storage.k8s.io/fast",
    "persistentvolume/pv-1",
    "persistentvolumeclaim/data",
];

/// Writes [`KINDS`] into the data dir and applies it; returns the manifest's path.
fn apply_kinds(kapi: &Kapi) -> String {
    let path = kapi.dir.path().join("kinds.yaml");
    std::fs::write(&path, KINDS).unwrap();
    let path = path.display().to_string();
    kapi.kubectl_ok(&["apply", "-f", &path]);
    path
}

/// A table kubectl printed: its header, and each row cut at the header's column starts
/// (kubectl pads columns with at least three spaces; a header may hold one space, as in
/// "ACCESS MODES", and a cell may be empty).
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    text: String,
}

impl Table {
    fn parse(text: &str) -> Table {
        let mut lines = text.lines();
        let head = lines.next().unwrap_or_default();
        let bytes = head.as_bytes();
        let starts: Vec<usize> = (0..bytes.len())
            .filter(|&i| {
                bytes[i] != b' '
                    && (i == 0 || (i >= 2 && bytes[i - 1] == b' ' && bytes[i - 2] == b' '))
            })
            .collect();
        let cut = |line: &str| -> Vec<String> {
            starts
                .iter()
                .enumerate()
                .map(|(n, &from)| {
                    let to = starts
                        .get(n + 1)
                        .copied()
                        .unwrap_or(line.len())
                        .min(line.len());
                    line.get(from.min(to)..to)
                        .unwrap_or_default()
                        .trim()
                        .to_owned()
                })
                .collect()
        };
        Table {
            header: cut(head),
            rows: lines.filter(|l| !l.trim().is_empty()).map(cut).collect(),
            text: text.to_owned(),
        }
    }

    fn assert_header(&self, want: &[&str]) {
        assert_eq!(self.header, want, "the header of:\n{}", self.text);
    }

    /// The row named `name`, its cells as (column, cell) for the columns in `columns`.
    fn assert_row(&self, name: &str, want: &[(&str, &str)]) {
        let row = self
            .rows
            .iter()
            .find(|r| r.first().map(String::as_str) == Some(name))
            .unwrap_or_else(|| panic!("no row {name:?} in:\n{}", self.text));
        for (column, cell) in want {
            let i = self
                .header
                .iter()
                .position(|h| h == column)
                .unwrap_or_else(|| panic!("no column {column:?} in:\n{}", self.text));
            assert_eq!(row[i], *cell, "{name}, {column}, in:\n{}", self.text);
        }
    }

    fn cell(&self, name: &str, column: &str) -> String {
        let i = self.header.iter().position(|h| h == column).unwrap();
        let row = self.rows.iter().find(|r| r[0] == name).unwrap();
        row[i].clone()
    }
}

fn get_table(kapi: &Kapi, args: &[&str]) -> Table {
    let mut all = vec!["get"];
    all.extend_from_slice(args);
    Table::parse(&kapi.kubectl_ok(&all))
}

/// Asserts `kubectl describe` printed a line `key:` followed by `value` (alignment aside).
fn assert_described(out: &str, key: &str, value: &str) {
    let prefix = format!("{key}:");
    let found = out.lines().any(|l| {
        l.trim_start()
            .strip_prefix(&prefix)
            .is_some_and(|rest| rest.trim() == value)
    });
    assert!(found, "no line {key:?}: {value:?} in:\n{out}");
}

/// Asserts `kubectl describe` printed a line whose words are `words`.
fn assert_described_words(out: &str, words: &[&str]) {
    let found = out
        .lines()
        .any(|l| l.split_whitespace().eq(words.iter().copied()));
    assert!(found, "no line of words {words:?} in:\n{out}");
}

fn get_json(kapi: &Kapi, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["get"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "json"]);
    json(kapi.kubectl_ok(&all).as_bytes())
}

#[tokio::test]
async fn kubectl_apply_creates_every_networking_rbac_and_storage_kind_of_one_manifest() {
    let kapi = Kapi::start().await;
    let path = kapi.dir.path().join("kinds.yaml");
    std::fs::write(&path, KINDS).unwrap();
    let path = path.display().to_string();
    let out = kapi.kubectl_ok(&["apply", "-f", &path]);
    let created: Vec<String> = NAMES.iter().map(|n| format!("{n} created")).collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), created, "{out}");
    let listed = kapi.kubectl_ok(&["get", "-f", &path, "-o", "name"]);
    assert_eq!(listed.lines().collect::<Vec<_>>(), NAMES, "{listed}");
    let versions = [
        "get",
        "-f",
        &path,
        "-o",
        "jsonpath={.items[*].metadata.resourceVersion}",
    ];
    let before = kapi.kubectl_ok(&versions);
    let again = kapi.kubectl_ok(&["apply", "-f", &path]);
    // kubectl's three-way patch replaces an atomic list whole when the live one differs from
    // the manifest's: the server-defaulted `protocol`/`name` of the EndpointSlice's ports and
    // of the NetworkPolicy's rule ports make kubectl send a patch (and print "configured"),
    // as against kube-apiserver; the patch changes nothing.
    let configured = [
        "endpointslice.discovery.k8s.io/web-1",
        "networkpolicy.networking.k8s.io/web-allow",
    ];
    let want: Vec<String> = NAMES
        .iter()
        .map(|n| match configured.contains(n) {
            true => format!("{n} configured"),
            false => format!("{n} unchanged"),
        })
        .collect();
    assert_eq!(again.lines().collect::<Vec<_>>(), want, "{again}");
    assert_eq!(
        kapi.kubectl_ok(&versions),
        before,
        "a second apply changed something"
    );
}

#[tokio::test]
async fn kubectl_get_prints_kube_apiservers_columns_for_networking_kinds() {
    let kapi = Kapi::start().await;
    apply_kinds(&kapi);

    let svc = get_table(&kapi, &["service", "web", "-o", "wide"]);
    svc.assert_header(&[
        "NAME",
        "TYPE",
        "CLUSTER-IP",
        "EXTERNAL-IP",
        "PORT(S)",
        "AGE",
        "SELECTOR",
    ]);
    svc.assert_row(
        "web",
        &[
            ("TYPE", "ClusterIP"),
            ("EXTERNAL-IP", "<none>"),
            ("PORT(S)", "80/TCP"),
            ("SELECTOR", "app=web"),
        ],
    );
    let ip = svc.cell("web", "CLUSTER-IP");
    assert!(ip.parse::<std::net::IpAddr>().is_ok(), "{ip:?}");

    let ing = get_table(&kapi, &["ingress"]);
    ing.assert_header(&["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]);
    ing.assert_row(
        "web",
        &[
            ("CLASS", "nginx"),
            ("HOSTS", "web.example"),
            ("ADDRESS", ""),
            ("PORTS", "80, 443"),
        ],
    );

    let class = get_table(&kapi, &["ingressclass"]);
    class.assert_header(&["NAME", "CONTROLLER", "PARAMETERS", "AGE"]);
    class.assert_row(
        "nginx",
        &[
            ("CONTROLLER", "example.com/ingress-nginx"),
            (
                "PARAMETERS",
                "IngressParameters.k8s.example.com/external-lb",
            ),
        ],
    );

    let netpol = get_table(&kapi, &["networkpolicy"]);
    netpol.assert_header(&["NAME", "POD-SELECTOR", "AGE"]);
    netpol.assert_row("deny-all", &[("POD-SELECTOR", "<none>")]);
    netpol.assert_row("web-allow", &[("POD-SELECTOR", "app=web")]);

    let slices = get_table(&kapi, &["endpointslice"]);
    slices.assert_header(&["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]);
    slices.assert_row(
        "web-1",
        &[
            ("ADDRESSTYPE", "IPv4"),
            ("PORTS", "8080"),
            ("ENDPOINTS", "10.0.0.5,10.0.0.6"),
        ],
    );
}

#[tokio::test]
async fn kubectl_get_prints_kube_apiservers_columns_for_rbac_kinds() {
    let kapi = Kapi::start().await;
    apply_kinds(&kapi);
    let rfc3339 = |t: &str| t.len() == 20 && t.as_bytes()[10] == b'T' && t.ends_with('Z');

    let role = get_table(&kapi, &["role"]);
    role.assert_header(&["NAME", "CREATED AT"]);
    let created = role.cell("reader", "CREATED AT");
    assert!(rfc3339(&created), "{created:?}");
    let cluster_role = get_table(&kapi, &["clusterrole", "op-reader"]);
    cluster_role.assert_header(&["NAME", "CREATED AT"]);
    let created = cluster_role.cell("op-reader", "CREATED AT");
    assert!(rfc3339(&created), "{created:?}");

    let binding = get_table(&kapi, &["rolebinding", "-o", "wide"]);
    binding.assert_header(&["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]);
    binding.assert_row(
        "reader",
        &[
            ("ROLE", "Role/reader"),
            ("USERS", "alice"),
            ("GROUPS", ""),
            ("SERVICEACCOUNTS", "default/op"),
        ],
    );
    let cluster_binding = get_table(&kapi, &["clusterrolebinding", "op-reader", "-o", "wide"]);
    cluster_binding.assert_header(&["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]);
    cluster_binding.assert_row(
        "op-reader",
        &[
            ("ROLE", "ClusterRole/op-reader"),
            ("USERS", ""),
            ("GROUPS", "ops"),
            ("SERVICEACCOUNTS", ""),
        ],
    );
}

#[tokio::test]
async fn kubectl_get_prints_kube_apiservers_columns_for_storage_kinds() {
    let kapi = Kapi::start().await;
    apply_kinds(&kapi);

    let classes = get_table(&kapi, &["storageclass"]);
    classes.assert_header(&[
        "NAME",
        "PROVISIONER",
        "RECLAIMPOLICY",
        "VOLUMEBINDINGMODE",
        "ALLOWVOLUMEEXPANSION",
        "AGE",
    ]);
    classes.assert_row(
        "fast",
        &[
            ("PROVISIONER", "example.com/disk"),
            ("RECLAIMPOLICY", "Retain"),
            ("VOLUMEBINDINGMODE", "WaitForFirstConsumer"),
            ("ALLOWVOLUMEEXPANSION", "true"),
        ],
    );
    classes.assert_row(
        "standard (default)",
        &[
            ("PROVISIONER", "example.com/disk"),
            ("RECLAIMPOLICY", "Delete"),
            ("VOLUMEBINDINGMODE", "Immediate"),
            ("ALLOWVOLUMEEXPANSION", "false"),
        ],
    );

    let claims = get_table(&kapi, &["pvc", "-o", "wide"]);
    claims.assert_header(&[
        "NAME",
        "STATUS",
        "VOLUME",
        "CAPACITY",
        "ACCESS MODES",
        "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS",
        "AGE",
        "VOLUMEMODE",
    ]);
    claims.assert_row(
        "data",
        &[
            ("STATUS", "Pending"),
            ("VOLUME", ""),
            ("CAPACITY", ""),
            ("ACCESS MODES", ""),
            ("STORAGECLASS", "fast"),
            ("VOLUMEATTRIBUTESCLASS", "<unset>"),
            ("VOLUMEMODE", "Filesystem"),
        ],
    );

    let volumes = get_table(&kapi, &["pv"]);
    volumes.assert_header(&[
        "NAME",
        "CAPACITY",
        "ACCESS MODES",
        "RECLAIM POLICY",
        "STATUS",
        "CLAIM",
        "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS",
        "REASON",
        "AGE",
    ]);
    volumes.assert_row(
        "pv-1",
        &[
            ("CAPACITY", "1Gi"),
            ("ACCESS MODES", "RWO"),
            ("RECLAIM POLICY", "Retain"),
            ("STATUS", "Pending"),
            ("CLAIM", ""),
            ("STORAGECLASS", "fast"),
            ("VOLUMEATTRIBUTESCLASS", "<unset>"),
            ("REASON", ""),
        ],
    );
}

#[tokio::test]
async fn kubectl_describe_shows_a_service_its_endpoints_and_the_ingress_and_policy_for_it() {
    let kapi = Kapi::start().await;
    apply_kinds(&kapi);

    let svc = kapi.kubectl_ok(&["describe", "service", "web"]);
    assert_described(&svc, "Type", "ClusterIP");
    assert_described(&svc, "IP Family Policy", "SingleStack");
    assert_described(&svc, "IP Families", "IPv4");
    assert_described_words(&svc, &["Port:", "<unset>", "80/TCP"]);
    assert_described(&svc, "TargetPort", "8080/TCP");
    assert_described(&svc, "Endpoints", "10.0.0.5:8080,10.0.0.6:8080");
    assert_described(&svc, "Session Affinity", "None");
    assert_described(&svc, "Internal Traffic Policy", "Cluster");

    let ing = kapi.kubectl_ok(&["describe", "ingress", "web"]);
    assert_described(&ing, "Ingress Class", "nginx");
    assert_described(&ing, "Default backend", "<default>");
    assert_described_words(&ing, &["web-tls", "terminates", "web.example"]);
    assert_described_words(&ing, &["/", "web:80", "(10.0.0.5:8080,10.0.0.6:8080)"]);

    let netpol = kapi.kubectl_ok(&["describe", "networkpolicy", "web-allow"]);
    assert_described(&netpol, "PodSelector", "app=web");
    assert_described(&netpol, "To Port", "8080/TCP");
    assert_described(&netpol, "Policy Types", "Ingress");
    assert!(netpol.contains("Not affecting egress traffic"), "{netpol}");

    let slice = kapi.kubectl_ok(&["describe", "endpointslice", "web-1"]);
    assert_described(&slice, "AddressType", "IPv4");
    assert_described_words(&slice, &["<unset>", "8080", "TCP"]);
    assert_described(&slice, "- Addresses", "10.0.0.5");
}

#[tokio::test]
async fn kubectl_describe_shows_storage_defaults_and_rbac_rules_and_subjects() {
    let kapi = Kapi::start().await;
    apply_kinds(&kapi);

    let class = kapi.kubectl_ok(&["describe", "storageclass", "standard"]);
    assert_described(&class, "IsDefaultClass", "Yes");
    assert_described(&class, "Provisioner", "example.com/disk");
    assert_described(&class, "AllowVolumeExpansion", "<unset>");
    assert_described(&class, "ReclaimPolicy", "Delete");
    assert_described(&class, "VolumeBindingMode", "Immediate");

    let claim = kapi.kubectl_ok(&["describe", "pvc", "data"]);
    assert_described(&claim, "StorageClass", "fast");
    assert_described(&claim, "Status", "Pending");
    assert_described(&claim, "VolumeMode", "Filesystem");

    let volume = kapi.kubectl_ok(&["describe", "pv", "pv-1"]);
    assert_described(&volume, "Status", "Pending");
    assert_described(&volume, "Reclaim Policy", "Retain");
    assert_described(&volume, "Access Modes", "RWO");
    assert_described(&volume, "VolumeMode", "Filesystem");
    assert_described(&volume, "Capacity", "1Gi");
    assert_described(&volume, "Path", "/data/pv-1");
    assert_described(&volume, "HostPathType", "");

    let role = kapi.kubectl_ok(&["describe", "role", "reader"]);
    assert_described_words(&role, &["configmaps", "[]", "[]", "[get", "list]"]);
    let binding = kapi.kubectl_ok(&["describe", "rolebinding", "reader"]);
    assert_described(&binding, "Kind", "Role");
    assert_described(&binding, "Name", "reader");
    assert_described_words(&binding, &["User", "alice"]);
    assert_described_words(&binding, &["ServiceAccount", "op", "default"]);
}

#[tokio::test]
async fn kubectl_patch_merges_strategically_by_key_and_replaces_lists_with_type_merge() {
    let kapi = Kapi::start().await;
    apply_kinds(&kapi);

    // Service ports merge on their key, port: 80 keeps its targetPort, 443 is added.
    kapi.kubectl_ok(&[
        "patch",
        "service",
        "web",
        "-p",
        r#"{"spec":{"ports":[{"port":80,"name":"http"},{"port":443,"name":"https","targetPort":8443}]}}"#,
    ]);
    let mut ports: Vec<_> = get_json(&kapi, &["service", "web"])["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["port"].clone(),
                p["name"].clone(),
                p["targetPort"].clone(),
                p["protocol"].clone(),
            )
        })
        .collect();
    ports.sort_by_key(|p| p.0.as_i64());
    assert_eq!(
        ports,
        [
            (json!(80), json!("http"), json!(8080), json!("TCP")),
            (json!(443), json!("https"), json!(8443), json!("TCP")),
        ]
    );

    // A JSON merge patch replaces a list whole: the rule's `from` is gone.
    kapi.kubectl_ok(&[
        "patch",
        "networkpolicy",
        "web-allow",
        "--type",
        "merge",
        "-p",
        r#"{"spec":{"ingress":[{"ports":[{"port":9090}]}]}}"#,
    ]);
    let np = get_json(&kapi, &["networkpolicy", "web-allow"]);
    assert_eq!(
        np["spec"]["ingress"],
        json!([{"ports": [{"port": 9090, "protocol": "TCP"}]}]),
        "{np}"
    );

    kapi.kubectl_ok(&[
        "patch",
        "storageclass",
        "fast",
        "--type",
        "merge",
        "-p",
        r#"{"allowVolumeExpansion":false}"#,
    ]);
    let classes = get_table(&kapi, &["storageclass", "fast"]);
    classes.assert_row("fast", &[("ALLOWVOLUMEEXPANSION", "false")]);
}

#[tokio::test]
async fn kubectl_patch_of_a_field_kube_apiserver_keeps_immutable_is_refused_as_invalid() {
    let kapi = Kapi::start().await;
    apply_kinds(&kapi);
    for (args, message) in [
        (
            ["rolebinding", "reader", r#"{"roleRef":{"name":"writer"}}"#],
            "cannot change roleRef",
        ),
        (
            [
                "storageclass",
                "fast",
                r#"{"provisioner":"example.com/other"}"#,
            ],
            // 1.36 words it as ValidateImmutableField does (the handwritten rule moved to
            // the declarative `+k8s:immutable`), no longer "updates to provisioner are forbidden".
            r#"provisioner: Invalid value: "example.com/other": field is immutable"#,
        ),
        (
            [
                "ingressclass",
                "nginx",
                r#"{"spec":{"controller":"example.com/other"}}"#,
            ],
            "field is immutable",
        ),
        (
            [
                "pv",
                "pv-1",
                r#"{"spec":{"hostPath":{"path":"/elsewhere"}}}"#,
            ],
            "spec.persistentvolumesource is immutable after creation",
        ),
        (
            [
                "pvc",
                "data",
                r#"{"spec":{"accessModes":["ReadWriteMany"]}}"#,
            ],
            "spec is immutable after creation",
        ),
    ] {
        let out = kapi.kubectl(&["patch", args[0], args[1], "-p", args[2]]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(
            err.contains("is invalid") && err.contains(message),
            "{args:?}: {err}"
        );
    }
    let rb = get_json(&kapi, &["rolebinding", "reader"]);
    assert_eq!(rb["roleRef"]["name"], "reader");
    let sc = get_json(&kapi, &["storageclass", "fast"]);
    assert_eq!(sc["provisioner"], "example.com/disk");
}

#[tokio::test]
async fn kubectl_edit_changes_an_ingress_host_and_its_generation() {
    let kapi = Kapi::start().await;
    apply_kinds(&kapi);
    kapi.kubectl_edit(
        &["ingress", "web"],
        "s/host: web.example/host: www.example/",
    );
    let ing = get_json(&kapi, &["ingress", "web"]);
    assert_eq!(ing["spec"]["rules"][0]["host"], "www.example", "{ing}");
    assert_eq!(
        ing["spec"]["tls"][0]["hosts"],
        json!(["web.example"]),
        "{ing}"
    );
    assert_eq!(ing["metadata"]["generation"], 2, "{ing}");
    let table = get_table(&kapi, &["ingress", "web"]);
    table.assert_row("web", &[("HOSTS", "www.example")]);
}

#[tokio::test]
async fn kubectl_delete_f_removes_every_kind_of_the_manifest() {
    let kapi = Kapi::start().await;
    let path = apply_kinds(&kapi);
    let out = kapi.kubectl_ok(&["delete", "-f", &path, "--timeout=30s"]);
    assert_eq!(
        out.lines().filter(|l| l.ends_with(" deleted")).count(),
        NAMES.len(),
        "{out}"
    );
    let left = kapi.kubectl_ok(&["get", "-f", &path, "--ignore-not-found", "-o", "name"]);
    assert_eq!(left.trim(), "", "still there after delete -f");
    for (kind, name, resource) in [
        ("pvc", "data", "persistentvolumeclaims"),
        ("pv", "pv-1", "persistentvolumes"),
        ("ingressclass", "nginx", "ingressclasses.networking.k8s.io"),
        (
            "clusterrolebinding",
            "op-reader",
            "clusterrolebindings.rbac.authorization.k8s.io",
        ),
    ] {
        let out = kapi.kubectl(&["get", kind, name]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{resource} \"{name}\" not found")),
            "{err}"
        );
    }
}
