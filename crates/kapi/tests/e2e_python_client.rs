//! The official Kubernetes Python client (`kubernetes` on PyPI) against kapi over HTTPS:
//! Deployments (defaults, strategic merge by container name, scale), Services (cluster
//! IP, a duplicate port refused), Roles and RoleBindings, Jobs, a watch and a delete, as
//! an operator written in Python (kopf, the official client) would use them; and the common
//! networking, RBAC and storage kinds through the typed APIs (issue 13): kube-apiserver's
//! defaults, replace and patch, the updates it refuses with 422, a watch, deletes. The scripts
//! are `e2e_python/builtin_kinds.py` and `e2e_python/network_rbac_storage.py`;
//! `scripts/test.sh` installs the client into a virtualenv and names its interpreter in
//! `KAPI_E2E_PYTHON` (else `python3`, which must have it).

mod e2e_support;

use e2e_support::{Kapi, run_python_script};

#[tokio::test]
async fn the_python_client_creates_reads_patches_watches_and_deletes_builtin_kinds() {
    let kapi = Kapi::start().await;
    run_python_script("builtin_kinds.py", kapi.kubeconfig(), || kapi.log()).await;
}

#[tokio::test]
async fn the_python_client_takes_networking_rbac_and_storage_kinds_through_their_life() {
    let kapi = Kapi::start().await;
    run_python_script("network_rbac_storage.py", kapi.kubeconfig(), || kapi.log()).await;
}
