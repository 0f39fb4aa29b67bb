#!/usr/bin/env bash
# Benchmark of the event stream's fan-out (GET /v1/events/stream) to many Server-Sent Events
# clients across instances: a throwaway PostgreSQL cluster (or HUB_BENCH_POSTGRES_URL), three
# release `hubd serve` on it sharing one secrets key file and no rails (the stream then carries the
# kernel's events alone, and no rail's background work takes CPU), and bench/scale/fanout.py: a
# baseline with 1 client, then 1,000 clients spread round-robin over the three instances, each
# phase timing ledger transfers posted at a steady rate round-robin through the instances from the
# POST's response to each client's receipt. Every client must receive every event once, in order.
# Load: one Python asyncio + aiohttp process on the same machine as the hubds, taking CPU from them.
# Prints a table and writes bench/results/fanout.json (or BENCH_RESULTS); fails on any missing,
# repeated or out-of-order delivery, or any failed request; `hubd verify` checks the ledger after.
# Usage: scripts/bench-fanout.sh [fanout.py options: --clients N (1000), --events K (200),
#   --rate R (20 transfers/s), --settle S (60)]
# At the default rate 1,000 clients saturate a 2-core machine (latencies of seconds, the POSTs'
# too); `--rate 2 --events 40` times the fan-out of one event at a time instead.
# Environment: HUB_BENCH_POSTGRES_URL (an existing, otherwise unused database instead of a
#   throwaway cluster), BENCH_RESULTS (the output file), HUB_BENCH_SKIP_BUILD=1 (use the
#   .build/release/hubd already there instead of building it first).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { echo "bench-fanout.sh: $*" >&2; }
source "$root/scripts/lib/die-with-logs.bash"
die() { die_with_logs "$*" "${work:-/nonexistent}"; }

output_file=${BENCH_RESULTS:-bench/results/fanout.json}
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

source "$root/scripts/lib/bench-server.bash"
# The same pins as bench-ble-sessions (aiohttp alone), so the same venv serves both.
venv=$root/.build-bench/ble-sessions-venv
pinned_venv "$venv" bench/ble-sessions/requirements.txt

bash scripts/install-deps.sh
if [[ ${HUB_BENCH_SKIP_BUILD:-} != 1 ]]; then
    say "building hubd (release; several minutes the first time)"
    swift build -c release --product hubd
fi
hubd=$root/.build/release/hubd
[[ -x $hubd ]] || die "$hubd was not built"

bench_work fanout
declare -a instance_pids=()
# All signalled first, so that their shutdowns overlap.
stop_instances() {
    local pid
    for pid in "${instance_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${instance_pids[@]}"; do stop_process "$pid"; done
    instance_pids=()
}
# bench_work's trap knows one server only.
trap 'stop_instances; bench_cleanup' EXIT

bench_postgres_url || die "no PostgreSQL: install one (scripts/install-deps.sh) or set HUB_BENCH_POSTGRES_URL"
database=$url
echo '{ "plugins": [] }' >"$work/plugins.json"
# One key file for all: each instance must open what another sealed in the vault.
export HUB_SECRETS_KEY_FILE=$work/secrets.key HUB_PLUGINS=$work/plugins.json
"$hubd" migrate --database-url "$database" >"$work/migrate.log" 2>&1 || die "hubd migrate failed"

# No load balancer drains them, so no drain delay: stopping would otherwise wait 5 s per instance.
bases=()
for name in a b c; do
    port=$(free_port)
    HUB_LOG_LEVEL=warning HUB_DRAIN_SECONDS=0 "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port" \
        >"$work/$name.log" 2>&1 &
    instance_pids+=("$!")
    wait_ready "http://127.0.0.1:$port" "$work/$name.log"
    bases+=("http://127.0.0.1:$port")
done

password=$(new_admin "$database" fanout@example.test)
token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "${bases[0]}" fanout@example.test) ||
    die "could not log in"

say "three instances on one PostgreSQL: ${bases[*]}"
mkdir -p "$(dirname "$output_file")"
status=0
(
    IFS=,
    "$venv/bin/python" bench/scale/fanout.py run "${bases[*]}" "$token" --output "$work/fanout.json" "$@"
) || status=$?
# fanout.py writes it once it has measured a phase: a run that failed before leaves the last results in place.
[[ -s $work/fanout.json ]] || die "fanout.py failed before it measured anything"
cp "$work/fanout.json" "$output_file"

stop_instances
"$hubd" verify --database-url "$database" >"$work/verify.log" 2>&1 || die "hubd verify failed after the benchmark"
say "hubd verify: $(tail -n 1 "$work/verify.log")"
say "wrote $output_file"
[[ $status == 0 ]] || die "some deliveries were missing, repeated or out of order, or requests failed (see the table)"
