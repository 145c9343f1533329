"""The official Kubernetes Python client against kapi: the common networking, RBAC and storage
kinds (issue 13) through the typed APIs (CoreV1Api, NetworkingV1Api, DiscoveryV1Api,
RbacAuthorizationV1Api, StorageV1Api): created, read with kube-apiserver's defaults,
replaced or patched, refused where kube-apiserver refuses an update (422), watched and
deleted. Run by e2e_python_client.rs with the kubeconfig kapi wrote as its only argument;
prints one line per step and exits non-zero on the first failure. Every expectation is what
kube-apiserver 1.36 answers."""

import ipaddress
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
core = client.CoreV1Api()
net = client.NetworkingV1Api()
disc = client.DiscoveryV1Api()
rbac = client.RbacAuthorizationV1Api()
storage = client.StorageV1Api()
NS = "py-net"
RBAC_GROUP = "rbac.authorization.k8s.io"


def step(name):
    print(name, flush=True)


def refused(code, call, *args, **kwargs):
    """Runs a call kube-apiserver refuses with `code`; returns the ApiException."""
    try:
        call(*args, **kwargs)
    except ApiException as e:
        assert e.status == code, f"{call.__name__}: {e.status} instead of {code}: {e.body}"
        return e
    raise AssertionError(f"{call.__name__} was accepted; kube-apiserver answers {code}")


def gone(read, *args, unprotect=None):
    """Waits until `read` answers 404. kube-apiserver's admission (StorageObjectInUseProtection)
    puts a protection finalizer on PVCs and PVs that kube-controller-manager removes once they
    are unused (kapi runs both controllers); with no controller manager, `unprotect` removes
    it as the controller would — and may find the object already gone when one ran."""
    for _ in range(100):
        try:
            obj = read(*args)
            if unprotect and obj.metadata.deletion_timestamp is not None and obj.metadata.finalizers:
                unprotect({"metadata": {"finalizers": None}})
        except ApiException as e:
            assert e.status == 404, e
            return
        time.sleep(0.1)
    raise AssertionError(f"{read.__name__}{args} still answers after the delete")


core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
step("namespace created")

# ---- Service ----------------------------------------------------------------------------
svc = core.create_namespaced_service(
    NS,
    client.V1Service(
        metadata=client.V1ObjectMeta(name="web", labels={"app": "web"}),
        spec=client.V1ServiceSpec(
            selector={"app": "web"},
            ports=[client.V1ServicePort(port=80, target_port=8080)],
        ),
    ),
)
spec = svc.spec
assert spec.type == "ClusterIP", spec
assert spec.cluster_ip and ipaddress.ip_address(spec.cluster_ip), spec
assert spec.cluster_ips == [spec.cluster_ip], spec
assert spec.ip_families == ["IPv4"], spec
assert spec.ip_family_policy == "SingleStack", spec
assert spec.session_affinity == "None", spec
assert spec.internal_traffic_policy == "Cluster", spec
assert [(p.port, p.protocol, p.target_port) for p in spec.ports] == [(80, "TCP", 8080)], spec.ports
step("service created with a cluster IP and kube's defaults")

got = core.read_namespaced_service("web", NS)
assert got.spec.cluster_ip == spec.cluster_ip and got.metadata.uid == svc.metadata.uid
got.spec.selector = {"app": "web", "tier": "front"}
replaced = core.replace_namespaced_service("web", NS, got)
assert replaced.spec.selector == {"app": "web", "tier": "front"}, replaced.spec
assert replaced.spec.cluster_ip == spec.cluster_ip
step("service read and replaced, its cluster IP kept")

patched = core.patch_namespaced_service(
    "web",
    NS,
    {"spec": {"ports": [{"port": 80, "name": "http"}, {"port": 443, "name": "https", "targetPort": 8443}]}},
)
ports = sorted((p.port, p.name, p.target_port, p.protocol) for p in patched.spec.ports)
assert ports == [(80, "http", 8080, "TCP"), (443, "https", 8443, "TCP")], ports
step("service ports merged by port (strategic merge patch)")

refused(
    422,
    core.patch_namespaced_service,
    "web",
    NS,
    {"spec": {"clusterIP": "10.0.0.99", "clusterIPs": ["10.0.0.99"]}},
)
step("a changed cluster IP refused with 422")

# ---- IngressClass and Ingress -----------------------------------------------------------
ic = net.create_ingress_class(
    client.V1IngressClass(
        metadata=client.V1ObjectMeta(name="py-nginx"),
        spec=client.V1IngressClassSpec(
            controller="example.com/ingress-nginx",
            parameters=client.V1IngressClassParametersReference(
                api_group="k8s.example.com", kind="IngressParameters", name="external-lb"
            ),
        ),
    )
)
assert ic.spec.parameters.scope == "Cluster", ic.spec.parameters
got = net.read_ingress_class("py-nginx")
got.spec.controller = "example.com/other"
refused(422, net.replace_ingress_class, "py-nginx", got)
step("ingress class created (parameters scope Cluster), its controller immutable")


def path(p, service, port):
    return client.V1HTTPIngressPath(
        path=p,
        path_type="Prefix",
        backend=client.V1IngressBackend(
            service=client.V1IngressServiceBackend(
                name=service, port=client.V1ServiceBackendPort(number=port)
            )
        ),
    )


ing = net.create_namespaced_ingress(
    NS,
    client.V1Ingress(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1IngressSpec(
            ingress_class_name="py-nginx",
            tls=[client.V1IngressTLS(hosts=["web.example"], secret_name="web-tls")],
            rules=[
                client.V1IngressRule(
                    host="web.example",
                    http=client.V1HTTPIngressRuleValue(paths=[path("/", "web", 80)]),
                )
            ],
        ),
    ),
)
assert ing.metadata.generation == 1, ing.metadata
got = net.read_namespaced_ingress("web", NS)
assert got.spec.ingress_class_name == "py-nginx"
assert got.spec.rules[0].http.paths[0].backend.service.port.number == 80
got.spec.rules[0].http.paths.append(path("/api", "api", 8080))
replaced = net.replace_namespaced_ingress("web", NS, got)
assert [p.path for p in replaced.spec.rules[0].http.paths] == ["/", "/api"]
assert replaced.metadata.generation == 2, replaced.metadata
step("ingress created, read and replaced (generation 2)")

with_status = net.patch_namespaced_ingress_status(
    "web", NS, {"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}}
)
assert with_status.status.load_balancer.ingress[0].ip == "192.0.2.10", with_status.status
assert with_status.metadata.generation == 2
step("ingress status written through its status subresource")

bad = client.V1Ingress(
    metadata=client.V1ObjectMeta(name="bad"),
    spec=client.V1IngressSpec(
        rules=[client.V1IngressRule(http=client.V1HTTPIngressRuleValue(paths=[path("relative", "web", 80)]))]
    ),
)
refused(422, net.create_namespaced_ingress, NS, bad)
step("an ingress path not starting with / refused with 422")

net.delete_namespaced_ingress("web", NS)
gone(net.read_namespaced_ingress, "web", NS)
net.delete_ingress_class("py-nginx")
gone(net.read_ingress_class, "py-nginx")
step("ingress and ingress class deleted")

# ---- NetworkPolicy, watched -------------------------------------------------------------
rv = net.list_namespaced_network_policy(NS).metadata.resource_version
np = net.create_namespaced_network_policy(
    NS,
    client.V1NetworkPolicy(
        metadata=client.V1ObjectMeta(name="web-allow"),
        spec=client.V1NetworkPolicySpec(
            pod_selector=client.V1LabelSelector(match_labels={"app": "web"}),
            ingress=[
                client.V1NetworkPolicyIngressRule(
                    _from=[
                        client.V1NetworkPolicyPeer(
                            pod_selector=client.V1LabelSelector(match_labels={"role": "client"})
                        )
                    ],
                    ports=[client.V1NetworkPolicyPort(port=8080)],
                )
            ],
        ),
    ),
)
assert np.spec.policy_types == ["Ingress"], np.spec
assert np.spec.ingress[0].ports[0].protocol == "TCP", np.spec.ingress
step("network policy created with policyTypes and protocol defaulted")

patched = net.patch_namespaced_network_policy(
    "web-allow",
    NS,
    {
        "spec": {
            "policyTypes": ["Ingress", "Egress"],
            "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}],
        }
    },
)
assert patched.spec.policy_types == ["Ingress", "Egress"], patched.spec
assert patched.spec.egress[0].to[0].ip_block.cidr == "10.0.0.0/8"
assert net.read_namespaced_network_policy("web-allow", NS).spec.egress is not None
step("network policy patched with an egress rule")

net.delete_namespaced_network_policy("web-allow", NS)
gone(net.read_namespaced_network_policy, "web-allow", NS)
seen = []
for event in watch.Watch().stream(
    net.list_namespaced_network_policy, NS, resource_version=rv, timeout_seconds=10
):
    if event["object"].metadata.name != "web-allow":
        continue
    seen.append(event["type"])
    if event["type"] == "DELETED":
        break
assert seen == ["ADDED", "MODIFIED", "DELETED"], seen
step("network policy watched: ADDED, MODIFIED, DELETED")

# ---- EndpointSlice ----------------------------------------------------------------------
slice_ = disc.create_namespaced_endpoint_slice(
    NS,
    client.V1EndpointSlice(
        metadata=client.V1ObjectMeta(name="web-1", labels={"kubernetes.io/service-name": "web"}),
        address_type="IPv4",
        endpoints=[
            client.V1Endpoint(addresses=["10.0.0.5"], conditions=client.V1EndpointConditions(ready=True))
        ],
        ports=[client.DiscoveryV1EndpointPort(port=8080)],
    ),
)
assert [(p.name, p.port, p.protocol) for p in slice_.ports] == [("", 8080, "TCP")], slice_.ports
step("endpoint slice created with its port's name and protocol defaulted")

got = disc.read_namespaced_endpoint_slice("web-1", NS)
got.endpoints.append(client.V1Endpoint(addresses=["10.0.0.6"]))
replaced = disc.replace_namespaced_endpoint_slice("web-1", NS, got)
assert [e.addresses for e in replaced.endpoints] == [["10.0.0.5"], ["10.0.0.6"]], replaced.endpoints
listed = disc.list_namespaced_endpoint_slice(NS, label_selector="kubernetes.io/service-name=web")
assert [s.metadata.name for s in listed.items] == ["web-1"], listed.items
replaced.address_type = "IPv6"
refused(422, disc.replace_namespaced_endpoint_slice, "web-1", NS, replaced)
step("endpoint slice replaced, listed by service, its addressType immutable")

disc.delete_namespaced_endpoint_slice("web-1", NS)
gone(disc.read_namespaced_endpoint_slice, "web-1", NS)
deleted = core.delete_namespaced_service("web", NS)
assert deleted.kind == "Service", deleted  # a Service's DELETE answers the Service, not a Status
gone(core.read_namespaced_service, "web", NS)
step("endpoint slice and service deleted")

# ---- Role, RoleBinding, ClusterRole, ClusterRoleBinding ---------------------------------
rbac.create_namespaced_role(
    NS,
    client.V1Role(
        metadata=client.V1ObjectMeta(name="reader"),
        rules=[client.V1PolicyRule(api_groups=[""], resources=["configmaps"], verbs=["get", "list"])],
    ),
)
got = rbac.read_namespaced_role("reader", NS)
got.rules[0].verbs = ["get", "list", "watch"]
assert rbac.replace_namespaced_role("reader", NS, got).rules[0].verbs == ["get", "list", "watch"]
refused(
    422,
    rbac.create_namespaced_role,
    NS,
    client.V1Role(
        metadata=client.V1ObjectMeta(name="no-verbs"),
        rules=[client.V1PolicyRule(api_groups=[""], resources=["pods"], verbs=[])],
    ),
)
step("role created and replaced; a rule without verbs refused with 422")

rb = rbac.create_namespaced_role_binding(
    NS,
    client.V1RoleBinding(
        metadata=client.V1ObjectMeta(name="reader"),
        role_ref=client.V1RoleRef(api_group="", kind="Role", name="reader"),
        subjects=[
            client.RbacV1Subject(kind="User", name="alice"),
            client.RbacV1Subject(kind="ServiceAccount", name="default", namespace=NS),
        ],
    ),
)
assert rb.role_ref.api_group == RBAC_GROUP, rb.role_ref
# A ServiceAccount subject keeps the core group, "", which JSON omits (`apiGroup,omitempty`).
assert [(s.kind, s.api_group) for s in rb.subjects] == [("User", RBAC_GROUP), ("ServiceAccount", None)], rb.subjects
step("role binding created with roleRef and subject apiGroups defaulted")

patched = rbac.patch_namespaced_role_binding(
    "reader", NS, {"subjects": [{"kind": "Group", "name": "ops", "apiGroup": RBAC_GROUP}]}
)
assert [(s.kind, s.name) for s in patched.subjects] == [("Group", "ops")], patched.subjects
got = rbac.read_namespaced_role_binding("reader", NS)
got.role_ref.name = "writer"
e = refused(422, rbac.replace_namespaced_role_binding, "reader", NS, got)
assert "cannot change roleRef" in e.body, e.body
step("role binding subjects patched; a changed roleRef refused with 422")

rbac.create_cluster_role(
    client.V1ClusterRole(
        metadata=client.V1ObjectMeta(name="py-op-reader"),
        rules=[client.V1PolicyRule(api_groups=["apps"], resources=["deployments"], verbs=["get"])],
    )
)
patched = rbac.patch_cluster_role("py-op-reader", {"metadata": {"labels": {"step": "patched"}}})
assert patched.metadata.labels == {"step": "patched"}, patched.metadata
crb = rbac.create_cluster_role_binding(
    client.V1ClusterRoleBinding(
        metadata=client.V1ObjectMeta(name="py-op-reader"),
        role_ref=client.V1RoleRef(api_group=RBAC_GROUP, kind="ClusterRole", name="py-op-reader"),
        subjects=[client.RbacV1Subject(kind="Group", name="ops")],
    )
)
assert crb.subjects[0].api_group == RBAC_GROUP, crb.subjects
got = rbac.read_cluster_role_binding("py-op-reader")
got.role_ref.kind = "Role"
refused(422, rbac.replace_cluster_role_binding, "py-op-reader", got)
step("cluster role and binding created; a changed roleRef refused with 422")

rbac.delete_namespaced_role_binding("reader", NS)
rbac.delete_namespaced_role("reader", NS)
rbac.delete_cluster_role_binding("py-op-reader")
rbac.delete_cluster_role("py-op-reader")
gone(rbac.read_namespaced_role_binding, "reader", NS)
gone(rbac.read_namespaced_role, "reader", NS)
gone(rbac.read_cluster_role_binding, "py-op-reader")
gone(rbac.read_cluster_role, "py-op-reader")
step("roles and bindings deleted")

# ---- StorageClass, PersistentVolume, PersistentVolumeClaim -------------------------------
sc = storage.create_storage_class(
    client.V1StorageClass(metadata=client.V1ObjectMeta(name="py-fast"), provisioner="example.com/disk")
)
assert sc.reclaim_policy == "Delete", sc
assert sc.volume_binding_mode == "Immediate", sc
assert sc.allow_volume_expansion is None, sc
patched = storage.patch_storage_class("py-fast", {"allowVolumeExpansion": True})
assert patched.allow_volume_expansion is True
refused(422, storage.patch_storage_class, "py-fast", {"provisioner": "example.com/other"})
refused(422, storage.patch_storage_class, "py-fast", {"reclaimPolicy": "Retain"})
step("storage class created with reclaimPolicy Delete and volumeBindingMode Immediate; provisioner and reclaimPolicy immutable")

pv = core.create_persistent_volume(
    client.V1PersistentVolume(
        metadata=client.V1ObjectMeta(name="py-pv"),
        spec=client.V1PersistentVolumeSpec(
            capacity={"storage": "1Gi"},
            access_modes=["ReadWriteOnce"],
            storage_class_name="py-fast",
            host_path=client.V1HostPathVolumeSource(path="/data/py-pv"),
        ),
    )
)
assert pv.spec.persistent_volume_reclaim_policy == "Retain", pv.spec
assert pv.spec.volume_mode == "Filesystem", pv.spec
assert pv.spec.host_path.type == "", pv.spec.host_path
assert pv.status.phase == "Pending", pv.status
assert pv.status.last_phase_transition_time is not None, pv.status
patched = core.patch_persistent_volume("py-pv", {"spec": {"persistentVolumeReclaimPolicy": "Delete"}})
assert patched.spec.persistent_volume_reclaim_policy == "Delete"
assert core.read_persistent_volume("py-pv").spec.capacity == {"storage": "1Gi"}
refused(422, core.patch_persistent_volume, "py-pv", {"spec": {"hostPath": {"path": "/elsewhere"}}})
step("persistent volume created (Retain, Filesystem, Pending), patched; its source immutable")

pvc = core.create_namespaced_persistent_volume_claim(
    NS,
    client.V1PersistentVolumeClaim(
        metadata=client.V1ObjectMeta(name="data"),
        spec=client.V1PersistentVolumeClaimSpec(
            access_modes=["ReadWriteOnce"],
            storage_class_name="py-fast",
            resources=client.V1VolumeResourceRequirements(requests={"storage": "1Gi"}),
        ),
    ),
)
assert pvc.spec.volume_mode == "Filesystem", pvc.spec
assert pvc.status.phase == "Pending", pvc.status
got = core.read_namespaced_persistent_volume_claim("data", NS)
assert got.spec.resources.requests == {"storage": "1Gi"}, got.spec
got.metadata.labels = {"step": "replaced"}
replaced = core.replace_namespaced_persistent_volume_claim("data", NS, got)
assert replaced.metadata.labels == {"step": "replaced"}
refused(
    422,
    core.patch_namespaced_persistent_volume_claim,
    "data",
    NS,
    {"spec": {"accessModes": ["ReadWriteMany"]}},
)
step("persistent volume claim created (Filesystem, Pending), replaced; its spec immutable")

core.delete_namespaced_persistent_volume_claim("data", NS)
gone(
    core.read_namespaced_persistent_volume_claim,
    "data",
    NS,
    unprotect=lambda p: core.patch_namespaced_persistent_volume_claim("data", NS, p),
)
core.delete_persistent_volume("py-pv")
gone(core.read_persistent_volume, "py-pv", unprotect=lambda p: core.patch_persistent_volume("py-pv", p))
storage.delete_storage_class("py-fast")
gone(storage.read_storage_class, "py-fast")
step("claim, volume and storage class deleted")
print("ok")
