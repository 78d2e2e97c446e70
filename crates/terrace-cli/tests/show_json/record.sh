#!/bin/sh
# Records terraform's `configuration` object of `show -json PLAN` for every
# case directory here into CASE/configuration.json (the exact bytes).
# Needs terraform 1.11.4 on PATH; run from this directory.
set -eu
for case in */; do
  case="${case%/}"
  work="$(mktemp -d)"
  cp -R "$case/." "$work/"
  rm -f "$work/configuration.json"
  (
    cd "$work"
    export TF_CLI_CONFIG_FILE=/dev/null CHECKPOINT_DISABLE=1
    terraform init -no-color >/dev/null
    terraform plan -no-color -out=plan.out >/dev/null
    terraform show -json plan.out >show.json
  )
  python3 - "$work/show.json" "$case/configuration.json" <<'PY'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
doc = json.loads(text)
if "configuration" not in doc:
    sys.exit("no configuration object in " + sys.argv[1])
# Find the top-level key's value and copy its bytes, so numbers and
# escapes stay exactly as terraform wrote them.
dec = json.JSONDecoder()
i = 1
while True:
    key, i = dec.raw_decode(text, i)
    i = text.index(":", i) + 1
    _, end = dec.raw_decode(text, i)
    if key == "configuration":
        open(sys.argv[2], "w", encoding="utf-8").write(text[i:end] + "\n")
        break
    i = end + 1
PY
  rm -rf "$work"
  echo "recorded $case"
done
