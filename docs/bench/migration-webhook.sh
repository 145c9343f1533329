#!/bin/bash
# usage: migration-webhook.sh BIN N -> migrates N golden Widgets converted by widget-webhook
set -e
BIN=$1; N=$2; WH=${WH:-target/release/widget-webhook}; D=$(mktemp -d /tmp/mbwh.XXXX)
. "$(dirname "$0")/widget-webhook-env.sh"
$BIN serve --secure-port 0 --data-dir $D/data > $D/log 2>&1 &
PID=$!
for i in $(seq 100); do [ -f $D/data/kubeconfig ] && grep -q serving $D/log && break; sleep 0.1; done
export KUBECONFIG=$D/data/kubeconfig
crd() { python3 - "$1" <<'PY'
import json,sys,os
s=sys.argv[1]
v=lambda n:{"name":n,"served":True,"storage":n==s,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}
print(json.dumps({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.golden.example.com"},"spec":{"group":"golden.example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"versions":[v("v1alpha1"),v("v1beta1")],"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":os.environ["WHURL"],"caBundle":os.environ["CA"]}}}}}))
PY
}
crd v1alpha1 > $D/crd1.json; crd v1beta1 > $D/crd2.json
kubectl apply -f $D/crd1.json >/dev/null
kubectl wait --for=condition=Established crd/widgets.golden.example.com --timeout=20s >/dev/null
python3 -c "
import json
print(json.dumps({'apiVersion':'v1','kind':'List','items':[{'apiVersion':'golden.example.com/v1alpha1','kind':'Widget','metadata':{'name':'w%05d'%i,'namespace':'default'},'spec':{'replicas':1}} for i in range($N)]}))" > $D/objs.json
kubectl create -f $D/objs.json >/dev/null
kubectl apply -f $D/crd2.json >/dev/null
sleep 1
/usr/bin/time -f "cli wall %e s" $BIN migrate widgets.golden.example.com 2>&1 | tail -2
grep "migration succeeded" $D/log | sed 's/.*INFO//'
$BIN storage-versions
kill $PID $WHPID; wait $PID 2>/dev/null || true
