# Fails before it could print a handshake.
echo $$ >> "$FAKE_PLUGIN_PIDS"
echo "fatal: could not read my configuration" >&2
exit 3
