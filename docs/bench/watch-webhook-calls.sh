#!/bin/bash
# usage: watch-webhook-calls.sh BIN WATCHERS EVENTS -> conversion webhook calls made while
# WATCHERS watchers of golden Widgets in v1beta1 receive EVENTS Widgets created in v1alpha1
# (the storage version), each converted by widget-webhook.
set -e
BIN=$1; W=$2; N=$3; WH=${WH:-target/release/widget-webhook}; D=$(mktemp -d /tmp/wwh.XXXX)
. "$(dirname "$0")/widget-webhook-env.sh"
$BIN serve --secure-port 0 --data-dir $D/data > $D/log 2>&1 &
PID=$!
for i in $(seq 100); do [ -f $D/data/kubeconfig ] && grep -q serving $D/log && break; sleep 0.1; done
export KUBECONFIG=$D/data/kubeconfig
SERVER=$(grep server: $KUBECONFIG | awk '{print $2}')
TOKEN=$(grep token: $KUBECONFIG | awk '{print $2}')
api() { curl -sk -H "Authorization: Bearer $TOKEN" "$@"; }
python3 - > $D/crd.json <<'PY'
import json,os
v=lambda n:{"name":n,"served":True,"storage":n=="v1alpha1","schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":True}}}}}
print(json.dumps({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.golden.example.com"},"spec":{"group":"golden.example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"versions":[v("v1alpha1"),v("v1beta1")],"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":os.environ["WHURL"],"caBundle":os.environ["CA"]}}}}}))
PY
kubectl apply -f $D/crd.json >/dev/null
until kubectl get --raw /apis/golden.example.com/v1beta1 >/dev/null 2>&1; do sleep 0.1; done
RV=$(api "$SERVER/apis/golden.example.com/v1beta1/namespaces/default/widgets" | python3 -c 'import json,sys;print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
for i in $(seq $W); do
  api -N "$SERVER/apis/golden.example.com/v1beta1/namespaces/default/widgets?watch=1&resourceVersion=$RV&timeoutSeconds=60" > $D/watch-$i.txt &
done
sleep 1
calls() { api "$SERVER/metrics" | grep '^apiserver_conversion_webhook_request_total{.*result="success"' | awk '{s+=$2} END {print s+0}'; }
BEFORE=$(calls)
for i in $(seq $N); do
  api -X POST -H 'Content-Type: application/json' "$SERVER/apis/golden.example.com/v1alpha1/namespaces/default/widgets" \
    -d "{\"apiVersion\":\"golden.example.com/v1alpha1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w$i\"},\"spec\":{\"label\":\"x\"}}" >/dev/null
done
for t in $(seq 100); do
  done_watchers=0
  for i in $(seq $W); do [ "$(grep -c ADDED $D/watch-$i.txt)" -ge "$N" ] && done_watchers=$((done_watchers+1)); done
  [ $done_watchers -eq $W ] && break; sleep 0.2
done
AFTER=$(calls)
echo "watchers=$W events=$N watchers_complete=$done_watchers webhook_calls=$((AFTER-BEFORE)) per_event=$(python3 -c "print(($AFTER-$BEFORE)/$N)")"
kill $PID $WHPID 2>/dev/null; jobs -p | xargs -r kill 2>/dev/null; wait 2>/dev/null || true
