# Keeps only the schemas of the resource types a plan mentions.
import json, sys
plan = json.load(open(sys.argv[1]))
schemas = json.load(sys.stdin)
used = set()
def walk(resources):
    for r in resources or []:
        used.add((r["provider_name"], r["mode"], r["type"]))
walk(plan.get("resource_changes"))
walk(plan.get("resource_drift"))
def walk_module(m):
    walk(m.get("resources"))
    for c in m.get("child_modules", []) or []:
        walk_module(c)
if plan.get("prior_state", {}).get("values"):
    walk_module(plan["prior_state"]["values"].get("root_module", {}))
out = {}
for pname, p in schemas.get("provider_schemas", {}).items():
    kept = {}
    for mode, key in (("managed", "resource_schemas"), ("data", "data_source_schemas")):
        for tname, s in (p.get(key) or {}).items():
            if (pname, mode, tname) in used:
                kept.setdefault(key, {})[tname] = s
    if kept:
        out[pname] = kept
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
