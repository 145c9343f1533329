"""What an operator's tests do with the fixture: the official client on kapi's
kubeconfig — a Deployment with the server's defaults, a ConfigMap watched, RBAC refusing a
ServiceAccount what its Role does not grant."""

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def api(kubeconfig):
    c = client.Configuration()
    config.load_kube_config(config_file=kubeconfig, client_configuration=c)
    return client.ApiClient(c)


def test_a_deployment_gets_the_servers_defaults(kapi_kubeconfig):
    apps = client.AppsV1Api(api(kapi_kubeconfig))
    labels = {"app": "web"}
    created = apps.create_namespaced_deployment(
        "default",
        client.V1Deployment(
            metadata=client.V1ObjectMeta(name="web"),
            spec=client.V1DeploymentSpec(
                selector=client.V1LabelSelector(match_labels=labels),
                template=client.V1PodTemplateSpec(
                    metadata=client.V1ObjectMeta(labels=labels),
                    spec=client.V1PodSpec(
                        containers=[client.V1Container(name="web", image="nginx:1.27")]
                    ),
                ),
            ),
        ),
    )
    assert created.spec.replicas == 1
    assert created.spec.strategy.type == "RollingUpdate"
    assert created.spec.template.spec.restart_policy == "Always"


def test_a_watch_sees_a_configmap_created(kapi_kubeconfig):
    core = client.CoreV1Api(api(kapi_kubeconfig))
    rv = core.list_namespaced_config_map("default").metadata.resource_version
    core.create_namespaced_config_map(
        "default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="seen"))
    )
    w = watch.Watch()
    for event in w.stream(
        core.list_namespaced_config_map, "default", resource_version=rv, timeout_seconds=10
    ):
        if event["object"].metadata.name == "seen":
            assert event["type"] == "ADDED"
            w.stop()
            return
    raise AssertionError("no ADDED event for the configmap")


def test_each_test_gets_a_fresh_server(kapi_kubeconfig):
    core = client.CoreV1Api(api(kapi_kubeconfig))
    names = [cm.metadata.name for cm in core.list_namespaced_config_map("default").items]
    assert "seen" not in names


def test_rbac_refuses_a_service_account_what_its_role_lacks(kapi_kubeconfig):
    admin = api(kapi_kubeconfig)
    core = client.CoreV1Api(admin)
    core.create_namespaced_service_account(
        "default", client.V1ServiceAccount(metadata=client.V1ObjectMeta(name="robot"))
    )
    token = core.create_namespaced_service_account_token(
        "robot",
        "default",
        client.AuthenticationV1TokenRequest(spec=client.V1TokenRequestSpec(audiences=[])),
    ).status.token
    c = client.Configuration()
    c.host = admin.configuration.host
    c.ssl_ca_cert = admin.configuration.ssl_ca_cert
    c.api_key = {"authorization": "Bearer " + token}
    robot = client.CoreV1Api(client.ApiClient(c))
    try:
        robot.list_namespaced_secret("default")
        raise AssertionError("a ServiceAccount without a role listed secrets")
    except ApiException as e:
        assert e.status == 403
