#!/bin/bash
# usage: [EXTRA='--etcd-servers URL'] migration-none.sh BIN N -> migrates N Widgets (strategy None)
set -e
BIN=$1; N=$2; D=$(mktemp -d /tmp/mbnone.XXXX)
$BIN serve --secure-port 0 --data-dir $D/data $EXTRA > $D/log 2>&1 &
PID=$!
for i in $(seq 100); do [ -f $D/data/kubeconfig ] && grep -q serving $D/log && break; sleep 0.1; done
export KUBECONFIG=$D/data/kubeconfig
crd() { python3 - "$1" <<'PY'
import json,sys
s=sys.argv[1]
v=lambda n:{"name":n,"served":True,"storage":n==s,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}
print(json.dumps({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"versions":[v("v1alpha1"),v("v1beta1")]}}))
PY
}
crd v1alpha1 > $D/crd1.json; crd v1beta1 > $D/crd2.json
kubectl apply -f $D/crd1.json >/dev/null
kubectl wait --for=condition=Established crd/widgets.example.com --timeout=20s >/dev/null
python3 -c "
import json
print(json.dumps({'apiVersion':'v1','kind':'List','items':[{'apiVersion':'example.com/v1alpha1','kind':'Widget','metadata':{'name':'w%05d'%i,'namespace':'default'},'spec':{'replicas':1}} for i in range($N)]}))" > $D/objs.json
kubectl create -f $D/objs.json >/dev/null
kubectl apply -f $D/crd2.json >/dev/null
sleep 1
/usr/bin/time -f "cli wall %e s" $BIN migrate widgets.example.com 2>&1 | tail -2
grep "migration succeeded" $D/log | sed 's/.*INFO//'
$BIN storage-versions
kill $PID; wait $PID 2>/dev/null || true
