"""The official Kubernetes Python client against kapi: the built-in kinds an operator
makes, created, read, updated, patched, watched and deleted. Run by e2e_python_client.rs
with the kubeconfig kapi wrote as its only argument; prints one line per step and exits
non-zero on the first failure."""

import sys

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
core = client.CoreV1Api()
apps = client.AppsV1Api()
rbac = client.RbacAuthorizationV1Api()
batch = client.BatchV1Api()
NS = "py"


def step(name):
    print(name, flush=True)


core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
step("namespace created")

labels = {"app": "web"}
deployment = client.V1Deployment(
    metadata=client.V1ObjectMeta(name="web"),
    spec=client.V1DeploymentSpec(
        replicas=2,
        selector=client.V1LabelSelector(match_labels=labels),
        template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(labels=labels),
            spec=client.V1PodSpec(
                containers=[client.V1Container(name="web", image="nginx:1.27")]
            ),
        ),
    ),
)
created = apps.create_namespaced_deployment(NS, deployment)
assert created.metadata.generation == 1, created.metadata
got = apps.read_namespaced_deployment("web", NS)
# kube-apiserver's defaults, typed by the client.
assert got.spec.strategy.type == "RollingUpdate", got.spec.strategy
assert got.spec.revision_history_limit == 10
assert got.spec.template.spec.containers[0].image_pull_policy == "IfNotPresent"
assert got.spec.template.spec.restart_policy == "Always"
step("deployment read back with defaults")

patched = apps.patch_namespaced_deployment(
    "web", NS, {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.28"}]}}}}
)
containers = patched.spec.template.spec.containers
assert [c.image for c in containers] == ["nginx:1.28"], containers
assert patched.metadata.generation == 2
step("deployment patched by container name")

scale = apps.read_namespaced_deployment_scale("web", NS)
scale.spec.replicas = 5
apps.replace_namespaced_deployment_scale("web", NS, scale)
assert apps.read_namespaced_deployment("web", NS).spec.replicas == 5
step("deployment scaled")

svc = core.create_namespaced_service(
    NS,
    client.V1Service(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1ServiceSpec(
            selector=labels, ports=[client.V1ServicePort(port=80, target_port=8080)]
        ),
    ),
)
assert svc.spec.cluster_ip and svc.spec.type == "ClusterIP", svc.spec
step("service given a cluster IP")

try:
    core.create_namespaced_service(
        NS,
        client.V1Service(
            metadata=client.V1ObjectMeta(name="dup"),
            spec=client.V1ServiceSpec(
                ports=[client.V1ServicePort(port=80), client.V1ServicePort(port=80)]
            ),
        ),
    )
    raise AssertionError("a duplicate port was accepted")
except ApiException as e:
    assert e.status == 422, e
step("duplicate service port refused with 422")

rbac.create_namespaced_role(
    NS,
    client.V1Role(
        metadata=client.V1ObjectMeta(name="reader"),
        rules=[client.V1PolicyRule(api_groups=[""], resources=["pods"], verbs=["get", "list"])],
    ),
)
rbac.create_namespaced_role_binding(
    NS,
    client.V1RoleBinding(
        metadata=client.V1ObjectMeta(name="reader"),
        role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name="reader"),
        subjects=[client.RbacV1Subject(kind="ServiceAccount", name="default", namespace=NS)],
    ),
)
assert [r.metadata.name for r in rbac.list_namespaced_role(NS).items] == ["reader"]
step("role and binding created")

job = batch.create_namespaced_job(
    NS,
    client.V1Job(
        metadata=client.V1ObjectMeta(name="once"),
        spec=client.V1JobSpec(
            template=client.V1PodTemplateSpec(
                spec=client.V1PodSpec(
                    restart_policy="Never",
                    containers=[client.V1Container(name="c", image="busybox")],
                )
            )
        ),
    ),
)
assert job.spec.backoff_limit == 6, job.spec
assert "batch.kubernetes.io/controller-uid" in job.spec.selector.match_labels
step("job created with its selector")

rv = core.list_namespaced_config_map(NS).metadata.resource_version
core.create_namespaced_config_map(
    NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="watched"), data={"k": "v"})
)
seen = []
for event in watch.Watch().stream(
    core.list_namespaced_config_map, NS, resource_version=rv, timeout_seconds=5
):
    seen.append((event["type"], event["object"].metadata.name))
    if event["object"].metadata.name == "watched":
        break
assert ("ADDED", "watched") in seen, seen
step("configmap watched")

apps.delete_namespaced_deployment("web", NS)
try:
    apps.read_namespaced_deployment("web", NS)
    raise AssertionError("the deployment is still there")
except ApiException as e:
    assert e.status == 404, e
step("deployment deleted")
print("ok")
