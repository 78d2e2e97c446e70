terraform state rm kv_entry.seed >/dev/null
