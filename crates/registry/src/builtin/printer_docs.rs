//! Column descriptions of kube-apiserver 1.36's printers that come from Go types' swagger
//! docs (`SomeType{}.SwaggerDoc()["field"]`), by (model, field). Many name types that are
//! not served any more (extensions/v1beta1, batch/v1beta1, rbac/v1beta1, …), whose text
//! differs from the served model's, so they are kept here rather than read from the OpenAPI
//! models. Facts of the API (k8s.io/api v0.36.0), not code.

/// The swagger doc of `field` of `model`; `None` when not listed here.
pub fn doc(model: &str, field: &str) -> Option<&'static str> {
    let text = match (model, field) {
        ("io.k8s.api.apiserverinternal.v1alpha1.StorageVersionStatus", "commonEncodingVersion") => {
            "commonEncodingVersion is set to an encoding storage version if all API server instances share that same version. If they don't share one storage version, this field is left empty. API servers should finish updating its storageVersionStatus entry before serving write operations, so that this field will be in sync with the reality."
        }
        ("io.k8s.api.apiserverinternal.v1alpha1.StorageVersionStatus", "storageVersions") => {
            "storageVersions lists the reported versions per API server instance."
        }
        ("io.k8s.api.apps.v1beta1.ControllerRevision", "revision") => {
            "revision indicates the revision of the state represented by Data."
        }
        ("io.k8s.api.autoscaling.v1.ScaleSpec", "replicas") => {
            "replicas is the desired number of instances for the scaled object."
        }
        ("io.k8s.api.autoscaling.v1.ScaleStatus", "replicas") => {
            "replicas is the actual number of observed instances of the scaled object."
        }
        ("io.k8s.api.batch.v1.JobSpec", "selector") => {
            "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
        }
        ("io.k8s.api.batch.v1.JobStatus", "succeeded") => {
            "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs."
        }
        ("io.k8s.api.batch.v1beta1.CronJobSpec", "schedule") => {
            "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."
        }
        ("io.k8s.api.batch.v1beta1.CronJobSpec", "suspend") => {
            "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false."
        }
        ("io.k8s.api.batch.v1beta1.CronJobSpec", "timeZone") => {
            "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"
        }
        ("io.k8s.api.batch.v1beta1.CronJobStatus", "active") => {
            "A list of pointers to currently running jobs."
        }
        ("io.k8s.api.batch.v1beta1.CronJobStatus", "lastScheduleTime") => {
            "Information when was the last time the job was successfully scheduled."
        }
        ("io.k8s.api.certificates.v1beta1.CertificateSigningRequestSpec", "expirationSeconds") => {
            "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes."
        }
        ("io.k8s.api.certificates.v1beta1.CertificateSigningRequestSpec", "request") => {
            "Base64-encoded PKCS#10 CSR data"
        }
        ("io.k8s.api.certificates.v1beta1.CertificateSigningRequestSpec", "signerName") => {
            "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned \"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`."
        }
        ("io.k8s.api.certificates.v1beta1.CertificateSigningRequestStatus", "conditions") => {
            "Conditions applied to the request, such as approval or denial."
        }
        ("io.k8s.api.certificates.v1beta1.ClusterTrustBundleSpec", "signerName") => {
            "signerName indicates the associated signer, if any.\n\nIn order to create or update a ClusterTrustBundle that sets signerName, you must have the following cluster-scoped permission: group=certificates.k8s.io resource=signers resourceName=<the signer name> verb=attest.\n\nIf signerName is not empty, then the ClusterTrustBundle object must be named with the signer name as a prefix (translating slashes to colons). For example, for the signer name `example.com/foo`, valid ClusterTrustBundle object names include `example.com:foo:abc` and `example.com:foo:v1`.\n\nIf signerName is empty, then the ClusterTrustBundle object's name must not have such a prefix.\n\nList/watch requests for ClusterTrustBundles can filter on this field using a `spec.signerName=NAME` field selector."
        }
        ("io.k8s.api.certificates.v1beta1.PodCertificateRequestSpec", "nodeName") => {
            "nodeName is the name of the node the pod is assigned to."
        }
        ("io.k8s.api.certificates.v1beta1.PodCertificateRequestSpec", "podName") => {
            "podName is the name of the pod into which the certificate will be mounted."
        }
        ("io.k8s.api.certificates.v1beta1.PodCertificateRequestSpec", "serviceAccountName") => {
            "serviceAccountName is the name of the service account the pod is running as."
        }
        ("io.k8s.api.certificates.v1beta1.PodCertificateRequestSpec", "signerName") => {
            "signerName indicates the requested signer.\n\nAll signer names beginning with `kubernetes.io` are reserved for use by the Kubernetes project.  There is currently one well-known signer documented by the Kubernetes project, `kubernetes.io/kube-apiserver-client-pod`, which will issue client certificates understood by kube-apiserver.  It is currently unimplemented."
        }
        ("io.k8s.api.coordination.v1alpha2.LeaseCandidateSpec", "leaseName") => {
            "LeaseName is the name of the lease for which this candidate is contending. This field is immutable."
        }
        ("io.k8s.api.core.v1.Endpoints", "subsets") => {
            "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service."
        }
        ("io.k8s.api.core.v1.NodeStatus", "addresses") => {
            "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP)."
        }
        ("io.k8s.api.core.v1.NodeSystemInfo", "containerRuntimeVersion") => {
            "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."
        }
        ("io.k8s.api.core.v1.NodeSystemInfo", "kernelVersion") => {
            "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."
        }
        ("io.k8s.api.core.v1.NodeSystemInfo", "kubeletVersion") => {
            "Kubelet Version reported by the node."
        }
        ("io.k8s.api.core.v1.NodeSystemInfo", "osImage") => {
            "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."
        }
        ("io.k8s.api.core.v1.PersistentVolumeClaimSpec", "volumeMode") => {
            "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec."
        }
        ("io.k8s.api.core.v1.PersistentVolumeClaimSpec", "volumeName") => {
            "volumeName is the binding reference to the PersistentVolume backing this claim."
        }
        ("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "accessModes") => {
            "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"
        }
        ("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "capacity") => {
            "capacity represents the actual resources of the underlying volume."
        }
        ("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "phase") => {
            "phase represents the current phase of PersistentVolumeClaim."
        }
        ("io.k8s.api.core.v1.PersistentVolumeSpec", "accessModes") => {
            "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"
        }
        ("io.k8s.api.core.v1.PersistentVolumeSpec", "capacity") => {
            "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"
        }
        ("io.k8s.api.core.v1.PersistentVolumeSpec", "claimRef") => {
            "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"
        }
        ("io.k8s.api.core.v1.PersistentVolumeSpec", "persistentVolumeReclaimPolicy") => {
            "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"
        }
        ("io.k8s.api.core.v1.PersistentVolumeSpec", "volumeMode") => {
            "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec."
        }
        ("io.k8s.api.core.v1.PersistentVolumeStatus", "phase") => {
            "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"
        }
        ("io.k8s.api.core.v1.PersistentVolumeStatus", "reason") => {
            "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI."
        }
        ("io.k8s.api.core.v1.PodSpec", "nodeSelector") => {
            "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"
        }
        ("io.k8s.api.core.v1.ReplicationControllerSpec", "replicas") => {
            "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"
        }
        ("io.k8s.api.core.v1.ReplicationControllerSpec", "selector") => {
            "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
        }
        ("io.k8s.api.core.v1.ReplicationControllerStatus", "readyReplicas") => {
            "The number of ready replicas for this replication controller."
        }
        ("io.k8s.api.core.v1.ReplicationControllerStatus", "replicas") => {
            "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"
        }
        ("io.k8s.api.core.v1.ServiceAccount", "secrets") => {
            "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret"
        }
        ("io.k8s.api.discovery.v1beta1.EndpointSlice", "addressType") => {
            "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name."
        }
        ("io.k8s.api.discovery.v1beta1.EndpointSlice", "endpoints") => {
            "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints."
        }
        ("io.k8s.api.discovery.v1beta1.EndpointSlice", "ports") => {
            "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates \"all ports\". Each slice may include a maximum of 100 ports."
        }
        ("io.k8s.api.extensions.v1beta1.DaemonSetSpec", "selector") => {
            "A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
        }
        ("io.k8s.api.extensions.v1beta1.DaemonSetStatus", "currentNumberScheduled") => {
            "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"
        }
        ("io.k8s.api.extensions.v1beta1.DaemonSetStatus", "desiredNumberScheduled") => {
            "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"
        }
        ("io.k8s.api.extensions.v1beta1.DaemonSetStatus", "numberAvailable") => {
            "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)"
        }
        ("io.k8s.api.extensions.v1beta1.DaemonSetStatus", "numberReady") => {
            "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready."
        }
        ("io.k8s.api.extensions.v1beta1.DaemonSetStatus", "updatedNumberScheduled") => {
            "The total number of nodes that are running updated daemon pod"
        }
        ("io.k8s.api.extensions.v1beta1.NetworkPolicySpec", "podSelector") => {
            "Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace."
        }
        ("io.k8s.api.extensions.v1beta1.ReplicaSetSpec", "replicas") => {
            "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"
        }
        ("io.k8s.api.extensions.v1beta1.ReplicaSetSpec", "selector") => {
            "Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
        }
        ("io.k8s.api.extensions.v1beta1.ReplicaSetStatus", "readyReplicas") => {
            "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition."
        }
        ("io.k8s.api.extensions.v1beta1.ReplicaSetStatus", "replicas") => {
            "Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"
        }
        ("io.k8s.api.flowcontrol.v1.FlowSchemaSpec", "distinguisherMethod") => {
            "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string."
        }
        ("io.k8s.api.flowcontrol.v1.FlowSchemaSpec", "matchingPrecedence") => {
            "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default."
        }
        (
            "io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration",
            "nominalConcurrencyShares",
        ) => {
            "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server's concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a \"jail\" for this priority level that is used to hold some request(s)"
        }
        ("io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationReference", "name") => {
            "`name` is the name of the priority level configuration being referenced Required."
        }
        ("io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationSpec", "type") => {
            "`type` indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server's limited capacity is made available exclusively to this priority level. Required."
        }
        ("io.k8s.api.flowcontrol.v1.QueuingConfiguration", "handSize") => {
            "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8."
        }
        ("io.k8s.api.flowcontrol.v1.QueuingConfiguration", "queueLengthLimit") => {
            "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50."
        }
        ("io.k8s.api.flowcontrol.v1.QueuingConfiguration", "queues") => {
            "`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64."
        }
        ("io.k8s.api.networking.v1beta1.IPAddressSpec", "parentRef") => {
            "ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object."
        }
        ("io.k8s.api.networking.v1beta1.ServiceCIDRSpec", "cidrs") => {
            "CIDRs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or \"2001:db8::/64\") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable."
        }
        ("io.k8s.api.rbac.v1beta1.ClusterRoleBinding", "roleRef") => {
            "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error."
        }
        ("io.k8s.api.rbac.v1beta1.RoleBinding", "roleRef") => {
            "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error."
        }
        ("io.k8s.api.resource.v1.DeviceTaint", "effect") => {
            "The effect of the taint on claims that do not tolerate the taint and through such claims on the pods using them.\n\nValid effects are None, NoSchedule and NoExecute. PreferNoSchedule as used for nodes is not valid here. More effects may get added in the future. Consumers must treat unknown effects like None."
        }
        ("io.k8s.api.resource.v1.DeviceTaint", "key") => {
            "The taint key to be applied to a device. Must be a label name."
        }
        ("io.k8s.api.resource.v1.DeviceTaint", "timeAdded") => {
            "TimeAdded represents the time at which the taint was added or (only in a DeviceTaintRule) the effect was modified. Added automatically during create or update if not set.\n\nIn addition, in a DeviceTaintRule a value provided during an update gets replaced with the current time if the provided value is the same as the old one and the new effect is different. Changing the key and/or value while keeping the effect unchanged is possible and does not update the time stamp because the eviction which uses it is either already started (NoExecute) or not started yet (NoEffect, NoSchedule)."
        }
        ("io.k8s.api.resource.v1.DeviceTaint", "value") => {
            "The taint value corresponding to the taint key. Must be a label value."
        }
        ("io.k8s.api.resource.v1.ResourcePool", "name") => {
            "Name is used to identify the pool. For node-local devices, this is often the node name, but this is not required.\n\nIt must not be longer than 253 characters and must consist of one or more DNS sub-domains separated by slashes. This field is immutable."
        }
        ("io.k8s.api.resource.v1.ResourceSliceSpec", "driver") => {
            "Driver identifies the DRA driver providing the capacity information. A field selector can be used to list only ResourceSlice objects with a certain driver name.\n\nMust be a DNS subdomain and should end with a DNS domain owned by the vendor of the driver. It should use only lower case characters. This field is immutable."
        }
        ("io.k8s.api.resource.v1.ResourceSliceSpec", "nodeName") => {
            "NodeName identifies the node which provides the resources in this pool. A field selector can be used to list only ResourceSlice objects belonging to a certain node.\n\nThis field can be used to limit access from nodes to ResourceSlices with the same node name. It also indicates to autoscalers that adding new nodes of the same type as some old node might also make new resources available.\n\nExactly one of NodeName, NodeSelector, AllNodes, and PerDeviceNodeSelection must be set. This field is immutable."
        }
        ("io.k8s.api.scheduling.v1.PriorityClass", "globalDefault") => {
            "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority."
        }
        ("io.k8s.api.scheduling.v1.PriorityClass", "preemptionPolicy") => {
            "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."
        }
        ("io.k8s.api.scheduling.v1.PriorityClass", "value") => {
            "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec."
        }
        ("io.k8s.api.storage.v1.CSIDriverSpec", "attachRequired") => {
            "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable."
        }
        ("io.k8s.api.storage.v1.CSIDriverSpec", "podInfoOnMount") => {
            "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and \"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn't support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable."
        }
        ("io.k8s.api.storage.v1.CSIDriverSpec", "requiresRepublish") => {
            "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container."
        }
        ("io.k8s.api.storage.v1.CSIDriverSpec", "storageCapacity") => {
            "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable."
        }
        ("io.k8s.api.storage.v1.CSIDriverSpec", "tokenRequests") => {
            "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: \"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n    \"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically."
        }
        ("io.k8s.api.storage.v1.CSIDriverSpec", "volumeLifecycleModes") => {
            "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is \"Ephemeral\". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable."
        }
        ("io.k8s.api.storage.v1.CSIStorageCapacity", "capacity") => {
            "capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.\n\nThe semantic is currently (CSI spec 1.2) defined as: The available capacity, in bytes, of the storage that can be used to provision volumes. If not set, that information is currently unavailable."
        }
        ("io.k8s.api.storage.v1.CSIStorageCapacity", "storageClassName") => {
            "storageClassName represents the name of the StorageClass that the reported capacity applies to. It must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its creator. This field is immutable."
        }
        ("io.k8s.api.storage.v1.StorageClass", "allowVolumeExpansion") => {
            "allowVolumeExpansion shows whether the storage class allow volume expand."
        }
        ("io.k8s.api.storage.v1.StorageClass", "provisioner") => {
            "provisioner indicates the type of the provisioner."
        }
        ("io.k8s.api.storage.v1.StorageClass", "reclaimPolicy") => {
            "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete."
        }
        ("io.k8s.api.storage.v1.StorageClass", "volumeBindingMode") => {
            "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature."
        }
        ("io.k8s.api.storage.v1.VolumeAttachmentSource", "persistentVolumeName") => {
            "persistentVolumeName represents the name of the persistent volume to attach."
        }
        ("io.k8s.api.storage.v1.VolumeAttachmentSpec", "attacher") => {
            "attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName()."
        }
        ("io.k8s.api.storage.v1.VolumeAttachmentSpec", "nodeName") => {
            "nodeName represents the node that the volume should be attached to."
        }
        ("io.k8s.api.storage.v1.VolumeAttachmentStatus", "attached") => {
            "attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher."
        }
        ("io.k8s.api.storage.v1.VolumeAttributesClass", "driverName") => {
            "Name of the CSI driver This field is immutable."
        }
        ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "creationTimestamp") => {
            "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
        }
        ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "name") => {
            "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
        }
        ("io.k8s.apimachinery.pkg.apis.meta.v1.Status", "reason") => {
            "A machine-readable description of why this operation is in the \"Failure\" status. If this value is empty there is no information available. A Reason clarifies an HTTP status code but does not override it."
        }
        ("io.k8s.apimachinery.pkg.apis.meta.v1.Status", "status") => {
            "Status of the operation. One of: \"Success\" or \"Failure\". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status"
        }
        _ => return None,
    };
    Some(text)
}
