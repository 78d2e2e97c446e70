# Prints something that is not a handshake, then lingers with a child of
# its own, as a misconfigured plugin would.
echo $$ >> "$FAKE_PLUGIN_PIDS"
sleep 300 &
echo $! >> "$FAKE_PLUGIN_PIDS"
echo "Hello! I am not a go-plugin handshake."
echo "1|5|unix|/nonexistent|grpc"
wait
