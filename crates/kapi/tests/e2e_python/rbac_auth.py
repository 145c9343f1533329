"""The official Kubernetes Python client against kapi's RBAC and authentication. The admin is
the kubeconfig kapi wrote (the only argument); the environment names a token-file user
(KAPI_USER_TOKEN, user "alice"), credentials kapi must refuse (KAPI_EXPIRED_TOKEN,
KAPI_OTHER_KEY_TOKEN, KAPI_OTHER_CA_CERT and KAPI_OTHER_CA_KEY), and ServiceAccount
default/robot exists. Steps: a ClusterRole labelled aggregate-to-view lets a user bound to
view read secrets; access reviews answer for a user, a group and a ServiceAccount;
impersonation is refused without the impersonate verb and acts as the user with it; the
refused credentials and a malformed Authorization header get 401. Prints one line per step
and "ok" at the end; exits non-zero on the first failure."""

import os
import sys
import time

from kubernetes import client, config
from kubernetes.client.rest import ApiException

admin_config = client.Configuration()
config.load_kube_config(config_file=sys.argv[1], client_configuration=admin_config)
admin = client.ApiClient(admin_config)
core = client.CoreV1Api(admin)
rbac = client.RbacAuthorizationV1Api(admin)
NS = "py-rbac"
RBAC_GROUP = "rbac.authorization.k8s.io"


def step(name):
    print(name, flush=True)


def configuration(authorization=None, cert=None):
    """A client configuration trusting kapi's CA, with only the credentials given."""
    c = client.Configuration()
    c.host = admin_config.host
    c.ssl_ca_cert = admin_config.ssl_ca_cert
    if authorization is not None:
        c.api_key = {"authorization": authorization}
    if cert is not None:
        c.cert_file, c.key_file = cert
    return c


def api_client(authorization=None, cert=None, impersonate=None):
    api = client.ApiClient(configuration(authorization, cert))
    if impersonate is not None:
        api.set_default_header("Impersonate-User", impersonate)
    return api


def bind(name, role_kind, role, subject):
    rbac.create_namespaced_role_binding(
        NS,
        client.V1RoleBinding(
            metadata=client.V1ObjectMeta(name=name),
            role_ref=client.V1RoleRef(api_group=RBAC_GROUP, kind=role_kind, name=role),
            subjects=[subject],
        ),
    )


def status_of(call):
    try:
        call()
        return 200
    except ApiException as e:
        return e.status


alice_api = api_client("Bearer " + os.environ["KAPI_USER_TOKEN"])
alice = client.CoreV1Api(alice_api)
core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))

# An aggregated ClusterRole: alice is bound to view, which has no secrets until a role
# labelled aggregate-to-view adds them.
bind("alice-views", "ClusterRole", "view", client.RbacV1Subject(
    api_group=RBAC_GROUP, kind="User", name="alice"))


def alice_can_i(verb, resource):
    review = client.V1SelfSubjectAccessReview(
        spec=client.V1SelfSubjectAccessReviewSpec(
            resource_attributes=client.V1ResourceAttributes(
                namespace=NS, verb=verb, resource=resource
            )
        )
    )
    answer = client.AuthorizationV1Api(alice_api).create_self_subject_access_review(review)
    return answer.status.allowed


assert alice_can_i("list", "configmaps"), "view lets alice list configmaps"
assert not alice_can_i("list", "secrets"), "view alone has no secrets"
assert status_of(lambda: alice.list_namespaced_secret(NS)) == 403
step("can-i answers for the user: view without secrets")

rbac.create_cluster_role(
    client.V1ClusterRole(
        metadata=client.V1ObjectMeta(
            name="py-secrets-view",
            labels={"rbac.authorization.k8s.io/aggregate-to-view": "true"},
        ),
        rules=[client.V1PolicyRule(api_groups=[""], resources=["secrets"], verbs=["get", "list"])],
    )
)
deadline = time.time() + 10
while not alice_can_i("list", "secrets"):
    assert time.time() < deadline, "view never gained the aggregated rule"
    time.sleep(0.05)
alice.list_namespaced_secret(NS)
step("a rule aggregated into view lets alice list secrets")


def may(user, groups, verb):
    review = client.V1SubjectAccessReview(
        spec=client.V1SubjectAccessReviewSpec(
            user=user,
            groups=groups,
            resource_attributes=client.V1ResourceAttributes(
                namespace=NS, verb=verb, resource="configmaps"
            ),
        )
    )
    return client.AuthorizationV1Api(admin).create_subject_access_review(review).status.allowed


bind("auditors-edit", "ClusterRole", "edit", client.RbacV1Subject(
    api_group=RBAC_GROUP, kind="Group", name="auditors"))
assert may("carol", ["auditors"], "create")
assert not may("carol", ["other"], "create")
step("a subject access review answers for a group")

rbac.create_namespaced_role(
    NS,
    client.V1Role(
        metadata=client.V1ObjectMeta(name="cm-reader"),
        rules=[client.V1PolicyRule(api_groups=[""], resources=["configmaps"], verbs=["list"])],
    ),
)
bind("robot-reads", "Role", "cm-reader", client.RbacV1Subject(
    kind="ServiceAccount", name="robot", namespace="default"))
robot = "system:serviceaccount:default:robot"
robot_groups = ["system:serviceaccounts", "system:serviceaccounts:default"]
assert may(robot, robot_groups, "list")
assert not may(robot, robot_groups, "create")
step("a subject access review answers for a ServiceAccount")

alice_as_bob = api_client(
    "Bearer " + os.environ["KAPI_USER_TOKEN"], impersonate="bob")
try:
    client.CoreV1Api(alice_as_bob).list_namespaced_config_map(NS)
    raise SystemExit("alice impersonated bob without the impersonate verb")
except ApiException as e:
    assert e.status == 403, e
    assert 'User \\"alice\\" cannot impersonate resource \\"users\\"' in e.body, e.body
step("impersonation without the impersonate verb is refused")

rbac.create_cluster_role(
    client.V1ClusterRole(
        metadata=client.V1ObjectMeta(name="py-impersonate-bob"),
        rules=[client.V1PolicyRule(api_groups=[""], resources=["users"],
                                   resource_names=["bob"], verbs=["impersonate"])],
    )
)
rbac.create_cluster_role_binding(
    client.V1ClusterRoleBinding(
        metadata=client.V1ObjectMeta(name="py-impersonate-bob"),
        role_ref=client.V1RoleRef(api_group=RBAC_GROUP, kind="ClusterRole",
                                  name="py-impersonate-bob"),
        subjects=[client.RbacV1Subject(api_group=RBAC_GROUP, kind="User", name="alice")],
    )
)
review = client.AuthenticationV1Api(alice_as_bob).create_self_subject_review(
    client.V1SelfSubjectReview())
assert review.status.user_info.username == "bob", review
assert review.status.user_info.groups == ["system:authenticated"], review
step("impersonation with the impersonate verb acts as the user")

refused = {
    "an expired token": api_client("Bearer " + os.environ["KAPI_EXPIRED_TOKEN"]),
    "a token signed by another key": api_client("Bearer " + os.environ["KAPI_OTHER_KEY_TOKEN"]),
    "a certificate from another CA": api_client(
        cert=(os.environ["KAPI_OTHER_CA_CERT"], os.environ["KAPI_OTHER_CA_KEY"])),
    "a malformed Authorization header": api_client("Basic YWxpY2U6c2VjcmV0"),
}
for what, api in refused.items():
    try:
        client.CoreV1Api(api).list_namespaced_config_map(NS)
        raise SystemExit(what + " was accepted")
    except ApiException as e:
        assert e.status == 401, (what, e)
        assert e.reason == "Unauthorized", (what, e)
    step(what + " gets 401")
print("ok")
