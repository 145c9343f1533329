# Sourced by the webhook benchmarks: makes a CA and a localhost certificate in $D/certs,
# starts widget-webhook ($WH) on a free port and exports WHPID, CA (base64) and WHURL.
C=$D/certs; mkdir -p $C
openssl req -x509 -newkey rsa:2048 -nodes -keyout $C/ca.key -out $C/ca.pem -days 2 -subj /CN=ca 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout $C/tls.key -out $C/tls.csr -subj /CN=localhost 2>/dev/null
printf "subjectAltName=DNS:localhost\n" > $C/ext
openssl x509 -req -in $C/tls.csr -CA $C/ca.pem -CAkey $C/ca.key -CAcreateserial -out $C/tls.pem -days 2 -extfile $C/ext 2>/dev/null
$WH --port 0 --cert-file $C/tls.pem --key-file $C/tls.key > $D/wh.log 2>&1 &
WHPID=$!
sleep 0.5
WHPORT=$(head -1 $D/wh.log | sed 's/.*://')
export CA=$(base64 -w0 $C/ca.pem) WHURL=https://localhost:$WHPORT/convert
