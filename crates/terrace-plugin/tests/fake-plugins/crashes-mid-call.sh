# Completes the handshake in plaintext, accepts terrace's HTTP/2
# connection, and dies with a Go-style panic once two requests (the stdio
# stream and the call under test) have been sent and are waiting for their
# answers.
echo $$ >> "$FAKE_PLUGIN_PIDS"
exec python3 -c '
import os, socket, sys, tempfile, time
path = os.path.join(tempfile.mkdtemp(), "plugin.sock")
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(1)
print("1|5|unix|%s|grpc|" % path, flush=True)
server.settimeout(20)
conn, _ = server.accept()
conn.settimeout(20)
# Empty SETTINGS, and an ACK of the client'"'"'s.
conn.sendall(bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]) + bytes([0, 0, 0, 4, 1, 0, 0, 0, 0]))
buf = b""
def need(n):
    global buf
    while len(buf) < n:
        chunk = conn.recv(65536)
        if not chunk:
            sys.exit(0)
        buf += chunk
need(24)
buf = buf[24:]
finished = set()
while len(finished) < 2:
    need(9)
    length = int.from_bytes(buf[0:3], "big")
    kind, flags = buf[3], buf[4]
    stream = int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
    need(9 + length)
    buf = buf[9 + length:]
    if kind in (0, 1) and flags & 1:
        finished.add(stream)
sys.stderr.write("panic: fake provider crashed in the middle of a call\n\ngoroutine 1 [running]:\nmain.main()\n\t/fake/main.go:1 +0x1d\n")
sys.stderr.flush()
os._exit(2)
'
