# Checks everything go-plugin puts in a plugin's environment and answers
# with a handshake for a protocol version terrace does not speak, so the
# test can tell "environment right" (that error) from "environment wrong"
# (this script's own complaint).
echo $$ >> "$FAKE_PLUGIN_PIDS"
fail() { echo "environment check failed: $1" >&2; exit 1; }
[ "$TF_PLUGIN_MAGIC_COOKIE" = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2" ] || fail "magic cookie"
[ "$PLUGIN_PROTOCOL_VERSIONS" = "5,6" ] || fail "protocol versions: $PLUGIN_PROTOCOL_VERSIONS"
[ "$PLUGIN_MIN_PORT" = "10000" ] || fail "min port: $PLUGIN_MIN_PORT"
[ "$PLUGIN_MAX_PORT" = "25000" ] || fail "max port: $PLUGIN_MAX_PORT"
case "$PLUGIN_CLIENT_CERT" in
  "-----BEGIN CERTIFICATE-----"*) ;;
  *) fail "client certificate" ;;
esac
echo "1|4|unix|/nonexistent|grpc|"
