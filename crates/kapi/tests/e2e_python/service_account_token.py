"""The official Kubernetes Python client with a ServiceAccount token: the admin (the
kubeconfig kapi wrote, the only argument) makes a ServiceAccount, a Role that reads
ConfigMaps and its RoleBinding, and asks for a token (TokenRequest); a second client that
carries only that token lists ConfigMaps and is refused (403) a create. Prints one line per
step and "ok" at the end; exits non-zero on the first failure."""

import sys

from kubernetes import client, config
from kubernetes.client.rest import ApiException

admin_config = client.Configuration()
config.load_kube_config(config_file=sys.argv[1], client_configuration=admin_config)
admin = client.ApiClient(admin_config)
core = client.CoreV1Api(admin)
rbac = client.RbacAuthorizationV1Api(admin)
NS = "py-sa"


def step(name):
    print(name, flush=True)


core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
core.create_namespaced_service_account(
    NS, client.V1ServiceAccount(metadata=client.V1ObjectMeta(name="robot"))
)
rbac.create_namespaced_role(
    NS,
    client.V1Role(
        metadata=client.V1ObjectMeta(name="cm-reader"),
        rules=[
            client.V1PolicyRule(
                api_groups=[""], resources=["configmaps"], verbs=["get", "list"]
            )
        ],
    ),
)
rbac.create_namespaced_role_binding(
    NS,
    client.V1RoleBinding(
        metadata=client.V1ObjectMeta(name="robot-reads"),
        role_ref=client.V1RoleRef(
            api_group="rbac.authorization.k8s.io", kind="Role", name="cm-reader"
        ),
        subjects=[
            client.RbacV1Subject(kind="ServiceAccount", name="robot", namespace=NS)
        ],
    ),
)
step("service account, role and binding created")

request = client.AuthenticationV1TokenRequest(
    spec=client.V1TokenRequestSpec(audiences=[], expiration_seconds=600)
)
answer = core.create_namespaced_service_account_token("robot", NS, request)
token = answer.status.token
assert token.count(".") == 2, token
assert answer.spec.expiration_seconds == 600, answer.spec
step("token requested")

robot_config = client.Configuration()
robot_config.host = admin_config.host
robot_config.ssl_ca_cert = admin_config.ssl_ca_cert
robot_config.api_key = {"authorization": "Bearer " + token}
robot = client.CoreV1Api(client.ApiClient(robot_config))

core.create_namespaced_config_map(
    NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings"))
)
names = [cm.metadata.name for cm in robot.list_namespaced_config_map(NS).items]
assert "settings" in names, names
step("the token lists configmaps")

try:
    robot.create_namespaced_config_map(
        NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="forbidden"))
    )
    raise SystemExit("the token created a configmap its role does not allow")
except ApiException as e:
    assert e.status == 403, e
    assert (
        'User \\"system:serviceaccount:py-sa:robot\\" cannot create resource \\"configmaps\\"'
        in e.body
    ), e.body
step("the token is refused a create")

try:
    robot.list_namespaced_config_map("default")
    raise SystemExit("the token listed another namespace")
except ApiException as e:
    assert e.status == 403, e
step("the token is refused another namespace")
print("ok")
