#!/usr/bin/env bash
# What PostgreSQL does during the BLE benchmark's write steps: transactions committed and
# statements run (by verb, then the costliest), over a window inside the `wrk` steps phase.
#
#   bench/ble-sessions/pg-stats.sh DATABASE_URL [SECONDS]
#
# Start it, then `HUB_BENCH_POSTGRES_URL=DATABASE_URL BENCH_BACKENDS=postgres
# scripts/bench-ble-sessions.sh` in another shell. It waits for the steps phase, lets it run 2 s,
# resets the statistics, waits SECONDS (6) and prints them. The server must load
# pg_stat_statements (`shared_preload_libraries = 'pg_stat_statements'`); the database gets the
# extension if it lacks it. Counts, not times, are what compare between builds on a shared machine.
set -euo pipefail
url=${1:?usage: pg-stats.sh DATABASE_URL [SECONDS]}
seconds=${2:-6}
sql() { psql -X -qAt "$url" -c "$1"; }

sql "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
for _ in $(seq 1 2400); do
    pgrep -f 'wrk.*steps.lua' >/dev/null && break
    sleep 0.25
done
pgrep -f 'wrk.*steps.lua' >/dev/null || { echo "pg-stats.sh: no wrk steps phase started" >&2; exit 1; }
sleep 2
sql "SELECT pg_stat_statements_reset()" >/dev/null
# Row updates of the rail's tables, and how many were heap-only (no new index entry).
updates="SELECT string_agg(relname || ' ' || n_tup_upd || ' ' || n_tup_hot_upd, ',' ORDER BY relname)
    FROM pg_stat_user_tables WHERE relname LIKE 'ble_sessions_%'"
commits_before=$(sql "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
updates_before=$(sql "$updates")
sleep "$seconds"
commits_after=$(sql "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
updates_after=$(sql "$updates")
pgrep -f 'wrk.*steps.lua' >/dev/null || echo "pg-stats.sh: warning: the steps phase ended inside the window" >&2

echo "window: ${seconds} s of write steps"
echo "transactions committed: $((commits_after - commits_before)) (single statements outside a transaction count)"
python3 - "$updates_before" "$updates_after" <<'PY'
import sys
def parse(text):
    return {t.split()[0]: (int(t.split()[1]), int(t.split()[2])) for t in text.split(",") if t.strip()}
before, after = parse(sys.argv[1]), parse(sys.argv[2])
for table, (updated, hot) in sorted(after.items()):
    b = before.get(table, (0, 0))
    print(f"{table}: {updated - b[0]} rows updated, {hot - b[1]} of them heap-only")
PY
psql -X "$url" -c "SELECT split_part(ltrim(query), ' ', 1) AS verb, sum(calls) AS calls,
    round(sum(total_exec_time)::numeric, 1) AS exec_ms FROM pg_stat_statements GROUP BY 1 ORDER BY 2 DESC"
psql -X "$url" -c "SELECT calls, round(total_exec_time::numeric, 1) AS exec_ms, rows,
    left(regexp_replace(query, '\s+', ' ', 'g'), 120) AS statement
    FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25"
