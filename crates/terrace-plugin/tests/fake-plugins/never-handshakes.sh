# Starts and then says nothing, forever.
echo $$ >> "$FAKE_PLUGIN_PIDS"
echo "starting up..." >&2
exec sleep 600
