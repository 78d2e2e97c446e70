# A go-plugin plugin for some other application: it checks for a cookie
# terrace does not set, and refuses to run, as go-plugin servers do.
echo $$ >> "$FAKE_PLUGIN_PIDS"
if [ "$SOME_OTHER_APP_COOKIE" != "expected" ]; then
  echo "This binary is a plugin. These are not meant to be executed directly." >&2
  echo "Please execute the program that consumes these plugins, which will" >&2
  echo "load any plugins automatically" >&2
  exit 1
fi
echo "1|5|unix|/nonexistent|grpc"
