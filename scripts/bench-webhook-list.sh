#!/usr/bin/env bash
# Issue 6 figure: a 1 000-item Widget list read in the storage version (v1alpha1) and in
# v1beta1 through the example webhook (widget-webhook), against a release kapi serve.
# Needs openssl, curl, python3. Prints p50/min/max of R lists (one kept-alive curl) per version,
# the webhook requests counted by kapi's /metrics, and the same review POSTed straight to the
# webhook (the floor: HTTP + the webhook's own time). Results: docs/benchmarks.md.
# Usage: scripts/bench-webhook-list.sh target/release/kapi target/release/widget-webhook .
#        (env N=1000 objects, R=30 lists per version)
set -euo pipefail
KAPI=$(realpath "$1"); WH=$(realpath "$2"); REPO=$(realpath "$3"); N=${N:-1000}; R=${R:-30}
D=$(mktemp -d); cd "$D"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=bench-wh-ca 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout tls.key -out tls.csr -subj /CN=localhost 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > san.ext
openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out tls.crt -days 1 -extfile san.ext 2>/dev/null
"$WH" --port 0 --cert-file tls.crt --key-file tls.key > wh.out & WHPID=$!
"$KAPI" serve --secure-port 0 --data-dir "$D/data" > kapi.log 2>&1 & KPID=$!
trap 'kill $WHPID $KPID; sleep 0.2; rm -rf "$D"' EXIT
sleep 1
WHPORT=$(head -1 wh.out | sed 's/.*://')
PORT=$(grep -o 'port=[0-9]*' kapi.log | head -1 | cut -d= -f2)
TOKEN=$(grep 'token:' data/kubeconfig | head -1 | awk '{print $2}')
API=https://127.0.0.1:$PORT
C=(curl -sS --cacert data/ca.crt -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json')
python3 - "$REPO/testdata/golden/crd/crd-create.json" "https://localhost:$WHPORT/convert" "$(base64 -w0 ca.crt)" > crd.json <<'PY'
import json, sys
crd = json.load(open(sys.argv[1]))
crd["metadata"] = {"name": "widgets.golden.example.com"}
crd.pop("status", None)
crd["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1", "v1beta1"],
    "clientConfig": {"url": sys.argv[2], "caBundle": sys.argv[3]}}}
print(json.dumps(crd))
PY
"${C[@]}" -o /dev/null -w 'crd %{http_code}\n' -X POST --data @crd.json $API/apis/apiextensions.k8s.io/v1/customresourcedefinitions
A=$API/apis/golden.example.com/v1alpha1/namespaces/default/widgets
B=$API/apis/golden.example.com/v1beta1/namespaces/default/widgets
until [ "$("${C[@]}" -o /dev/null -w '%{http_code}' $B)" = 200 ]; do sleep 0.05; done
seq 0 $((N-1)) | xargs -P 8 -I{} "${C[@]}" -o /dev/null -X POST $A \
  --data '{"apiVersion":"golden.example.com/v1alpha1","kind":"Widget","metadata":{"name":"w{}"},"spec":{"label":"label-{}"}}'
echo "items v1alpha1: $("${C[@]}" $A | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')"
echo "items v1beta1:  $("${C[@]}" $B | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["items"]), d["items"][0]["apiVersion"], d["items"][0]["spec"])')"
metric() { "${C[@]}" $API/metrics | grep '^apiserver_conversion_webhook_request_total' | awk '{s+=$2} END {print s+0}'; }
for v in A B; do
  url=${!v}; m0=$(metric)
  urls=(); for _ in $(seq $R); do urls+=(-o /dev/null "$url"); done
  # one curl, one kept-alive connection, R lists; time_total per list in seconds
  "${C[@]}" -w '%{time_total}\n' "${urls[@]}" > t.$v
  m1=$(metric)
  python3 - "$v" "$m0" "$m1" "$R" t.$v <<'PY'
import sys, statistics
v, m0, m1, r, f = sys.argv[1:]
t = sorted(float(x) * 1000 for x in open(f))
print(f"{'v1alpha1 (storage)' if v == 'A' else 'v1beta1 (webhook)'}: {len(t)} lists, p50 {statistics.median(t):.2f} ms, min {t[0]:.2f}, max {t[-1]:.2f}; webhook requests {int(float(m1)) - int(float(m0))}")
PY
done
# the floor: the same 1 000 objects posted straight to the webhook as one ConversionReview
"${C[@]}" $A | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
for o in items: o["metadata"].pop("managedFields", None); o.setdefault("apiVersion", "golden.example.com/v1alpha1"); o.setdefault("kind", "Widget")
print(json.dumps({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
  "request": {"uid": "bench", "desiredAPIVersion": "golden.example.com/v1beta1", "objects": items}}))' > review.json
urls=(); for _ in $(seq $R); do urls+=(-o /dev/null -X POST --data @review.json "https://localhost:$WHPORT/convert"); done
curl -sS --cacert ca.crt -H "Expect:" -H "Content-Type: application/json" -w '%{time_total}\n' "${urls[@]}" > t.W
python3 - t.W <<'PY'
import sys, statistics
t = sorted(float(x) * 1000 for x in open(sys.argv[1]))
print(f"bare POST of the review to the webhook: {len(t)} posts, p50 {statistics.median(t):.2f} ms, min {t[0]:.2f}, max {t[-1]:.2f}")
PY
