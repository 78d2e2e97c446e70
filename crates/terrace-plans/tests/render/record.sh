#!/bin/sh
# Records what terraform 1.11 prints for each case directory given (or all):
# `setup.tf` (optional) is applied first, then `main.tf` is planned with the
# arguments in `args` (optional). Writes plan.json (`show -json` of the
# saved plan, as Terraform prints it), state.json (`show -json` of the
# state before planning, when there is one), expected.txt /
# expected.color.txt (`show` of the saved plan) and schemas.json (the
# schemas of the resource types in the plan).
# Providers other than terraform_data come from dev_overrides in $TFRC
# (see providers/e2e); with none given, the CLI configuration is empty.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tfrc=${TFRC:-/dev/null}
[ $# -gt 0 ] || set -- "$here"/*/
for case in "$@"; do
  case=$(cd "$case" && pwd)
  work=$(mktemp -d)
  export TF_CLI_CONFIG_FILE="$tfrc" CHECKPOINT_DISABLE=1
  (
    cd "$work"
    if [ -d "$case/mod" ]; then
      cp -r "$case/mod" mod
    fi
    if [ -f "$case/setup.tf" ]; then
      cp "$case/setup.tf" main.tf
      if [ -d mod ]; then terraform init -no-color >init.log 2>&1 || { cat init.log; exit 1; }; fi
      terraform apply -auto-approve -no-color >setup.log 2>&1 || { cat setup.log; exit 1; }
      if [ -f "$case/between.sh" ]; then sh "$case/between.sh"; fi
      terraform show -json >"$case/state.json"
    fi
    rm -f main.tf
    cp "$case/main.tf" main.tf
    if [ -d mod ]; then
      terraform init -no-color >init.log 2>&1 || { cat init.log; exit 1; }
    fi
    args=""
    [ -f "$case/args" ] && args=$(cat "$case/args")
    # shellcheck disable=SC2086
    terraform plan -no-color -out=tfplan $args >plan.log 2>&1 || true
    if [ ! -f tfplan ]; then cat plan.log; exit 1; fi
    terraform show -no-color tfplan >"$case/expected.txt"
    terraform show tfplan >"$case/expected.color.txt"
    terraform show -json tfplan >"$case/plan.json"
    terraform providers schema -json | python3 "$here/trim_schemas.py" "$case/plan.json" >"$case/schemas.json"
    cp plan.log "$case/plan.log"
  )
  rm -rf "$work"
  echo "recorded $(basename "$case")"
done
