#!/usr/bin/env bash
# One-off experiment behind the README's ten-million-account paragraph (make bench-scale): is the
# fall in single-transfer rate at ten million accounts PostgreSQL writing whole pages to its WAL
# after each checkpoint? Ten million accounts with only their funding mints (bulk growth), each
# setting on a fresh throwaway cluster: the defaults, `full_page_writes = off` (a diagnostic, never
# a setting for a hub) and `wal_compression = lz4`; 64 callers' single transfers measured cold and
# again warm (LedgerBench --prewarm). Verify is not what this measures: /bin/true stands in for
# hubd in LedgerBench's verify step, and the verify fields are dropped from the results.
# Writes bench/results/scale-wal-settings.json. About 20 minutes and 20 GB of disk on 2 cores.
# Usage: bench/scale/wal-settings.sh (after a release build of hubd and LedgerBench)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
port=${BENCH_PORT:-55490}
out=$(mktemp -d /tmp/hub-wal-settings.XXXXXX)
export HUB_SECRETS_KEY_FILE=$out/secrets.key
settings=("" "full_page_writes = off" "wal_compression = lz4")
for index in "${!settings[@]}"; do
    setting=${settings[$index]}
    dir=$(mktemp -d /tmp/hub-wal-settings-pg.XXXXXX)
    bash scripts/pg-throwaway.sh start "$dir" "$port" >/dev/null
    if [[ -n $setting ]]; then
        echo "$setting" >>"$dir/data/postgresql.conf"
        psql -q -h 127.0.0.1 -p "$port" -U postgres -d hub_test -c "SELECT pg_reload_conf()" >/dev/null
    fi
    url=postgres://postgres@127.0.0.1:$port/hub_test
    .build/release/hubd migrate --database-url "$url" >"$out/migrate-$index.log" 2>&1
    .build/release/LedgerBench --scale-steps 10000000 --database-url "$url" --transfers-per-account 1 \
        --bulk-growth --prewarm --max-transfers 10000000 --measured 20000 --hubd /bin/true \
        --output "$out/result-$index.json"
    bash scripts/pg-throwaway.sh stop "$dir" >/dev/null
    rm -rf "$dir"
done
python3 - "$out" "${settings[@]}" <<'PY'
import datetime, json, os, sys
sys.path.insert(0, os.path.join("bench", "lib"))
from machine import machine
out, settings = sys.argv[1], sys.argv[2:]
rows = []
for index, setting in enumerate(settings):
    with open(os.path.join(out, f"result-{index}.json")) as file:
        step = json.load(file)[0]
    rows.append({"setting": setting or "defaults", **{k: v for k, v in step.items() if not k.startswith("verify")}})
with open("bench/results/scale-wal-settings.json", "w") as file:
    json.dump({"machine": machine(), "measured_at": datetime.date.today().isoformat(), "runs": rows}, file, indent=2)
    file.write("\n")
print("wrote bench/results/scale-wal-settings.json")
PY
rm -rf "$out"
