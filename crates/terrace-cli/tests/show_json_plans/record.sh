#!/bin/sh
# Records what terraform 1.11.4 makes of each case directory given (or of
# all): `step1.tf` (optional) is applied first, then `main.tf` is planned
# with `-out` and the arguments in `args` (optional). Writes expected.json
# (`show -json` of the saved plan, as terraform prints it) and
# expected.txt (`show -no-color` of it). Only the built-in provider is
# used, so the CLI configuration is empty. Run from anywhere.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- "$here"/*/
for case in "$@"; do
  case=$(cd "$case" && pwd)
  work=$(mktemp -d)
  export TF_CLI_CONFIG_FILE=/dev/null CHECKPOINT_DISABLE=1
  (
    cd "$work"
    cp -R "$case/." .
    rm -f expected.json expected.txt args main.tf step1.tf
    if [ -f "$case/step1.tf" ]; then
      cp "$case/step1.tf" main.tf
      terraform init -no-color >init.log 2>&1 || { cat init.log; exit 1; }
      terraform apply -auto-approve -no-color >step1.log 2>&1 || { cat step1.log; exit 1; }
    fi
    cp "$case/main.tf" main.tf
    terraform init -no-color >init.log 2>&1 || { cat init.log; exit 1; }
    args=""
    [ -f "$case/args" ] && args=$(cat "$case/args")
    # shellcheck disable=SC2086
    terraform plan -no-color -out=plan.out $args >plan.log 2>&1 || { cat plan.log; exit 1; }
    terraform show -json plan.out >"$case/expected.json"
    terraform show -no-color plan.out >"$case/expected.txt"
  )
  rm -rf "$work"
  echo "recorded $(basename "$case")"
done
