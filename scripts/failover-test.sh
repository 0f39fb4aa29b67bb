#!/usr/bin/env bash
# hubd rides through the death of its PostgreSQL primary: a pg_auto_failover formation (Debian's
# pg-auto-failover-cli and postgresql-15-auto-failover, installed when missing) on loopback — a
# monitor, a primary and a synchronous secondary in throwaway directories — and two `hubd serve`
# on the formation's multi-host URL (target_session_attrs=read-write).
# tools/instances/failover_check.py sends ledger transfers with Idempotency-Keys to both and polls
# their /readyz and the local chain's JSON-RPC, twice: mid-load a planned switchover
# (`pg_autoctl perform switchover`), then mid-load the new primary is crashed (SIGKILL to its
# pg_autoctl and every PostgreSQL process of it). Checks: the secondary took over each time,
# /readyz went 503 and back to 200 (after the crash), every request answered (never a 500, never a
# JSON-RPC internal error), every acknowledged transfer there exactly once; then `hubd verify` on
# the last primary. About two minutes; each run bounded by FAILOVER_TEST_TIMEOUT (300 s).
# Usage: scripts/failover-test.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "failover-test.sh: $*" >&2; }
source "$root/scripts/lib/die-with-logs.bash"
die() { die_with_logs "$*" "${work:-/nonexistent}" "${pg_dir:-/nonexistent}"; }
source "$root/scripts/lib/live-hubd.bash"
source "$root/scripts/lib/stop-process.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

sudo=()
[[ $(id -u) == 0 ]] || sudo=(sudo)
if ! command -v pg_autoctl >/dev/null 2>&1 || [[ ! -f /usr/share/postgresql/15/extension/pgautofailover.control ]]; then
    say "installing pg_auto_failover (Debian)"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        pg-auto-failover-cli postgresql-15-auto-failover >&2 || die "could not install pg_auto_failover"
fi
bindir=/usr/lib/postgresql/15/bin
[[ -x $bindir/pg_ctl ]] || die "PostgreSQL 15 is not installed (scripts/install-deps.sh)"

build_debug_hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-failover.XXXXXX")
# Its own directory, owned by PostgreSQL's user: pg_autoctl refuses to run as root.
pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/hub-failover-pg.XXXXXX")
declare -A pids=()
declare -A nodes=() # name → process group of its `pg_autoctl … --run`
cleanup() {
    for name in "${!pids[@]}"; do stop_process "${pids[$name]}"; done
    for name in "${!nodes[@]}"; do
        kill -TERM -- "-${nodes[$name]}" 2>/dev/null || true
    done
    sleep 1
    for name in "${!nodes[@]}"; do
        kill -KILL -- "-${nodes[$name]}" 2>/dev/null || true
        crash_postgres "$pg_dir/$name"
    done
    rm -rf "$work" "$pg_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
chown postgres "$pg_dir" 2>/dev/null || [[ $(id -u) != 0 ]] || die "cannot give $pg_dir to postgres"

# as_pg COMMAND…: runs a pg_autoctl or PostgreSQL tool as PostgreSQL's user, with pg_autoctl's
# configuration and state under $pg_dir rather than that user's home.
as_pg() {
    local env=(env PATH="$bindir:$PATH" XDG_CONFIG_HOME="$pg_dir/config" XDG_DATA_HOME="$pg_dir/share" XDG_RUNTIME_DIR="$pg_dir/run")
    if [[ $(id -u) == 0 ]]; then
        (cd / && runuser -u postgres -- "${env[@]}" "$@")
    else
        "${env[@]}" "$@"
    fi
}

# start_node NAME ARGS…: `pg_autoctl create ARGS… --run` in a process group of its own, logged
# to $pg_dir/NAME.log.
start_node() {
    local name=$1
    shift
    bindir=$bindir pg_dir=$pg_dir setsid bash -c "$(declare -f as_pg)"'; as_pg pg_autoctl create "$@"' \
        start_node "$@" --pgdata "$pg_dir/$name" --run >"$pg_dir/$name.log" 2>&1 </dev/null &
    nodes[$name]=$!
}

# crash_postgres DATADIR: SIGKILL to the postmaster of DATADIR and every process it started.
crash_postgres() {
    local postmaster
    postmaster=$(head -n 1 "$1/postmaster.pid" 2>/dev/null) || return 0
    [[ $postmaster =~ ^[0-9]+$ ]] || return 0
    kill -KILL $(ps -o pid= --ppid "$postmaster") "$postmaster" 2>/dev/null || true
}

state() { as_pg pg_autoctl show state --pgdata "$pg_dir/monitor" 2>/dev/null; }

# wait_state SECONDS PATTERN…: waits until `pg_autoctl show state` matches every PATTERN (extended
# regular expressions); `CHECKPOINT`s the primary meanwhile, so that a new standby's base backup
# does not wait minutes for a spread checkpoint.
wait_state() {
    local seconds=$1 pattern shown all
    shift
    for ((i = 0; i < seconds * 2; i++)); do
        shown=$(state || true)
        all=1
        for pattern in "$@"; do grep -Eq "$pattern" <<<"$shown" || all=0; done
        ((all)) && return 0
        psql -q -X "postgres://postgres@127.0.0.1:$node1_port/postgres" -c CHECKPOINT >/dev/null 2>&1 || true
        sleep 0.5
    done
    printf '%s\n' "$shown" >&2
    die "the formation did not reach: $*"
}

monitor_port=$(free_port)
node1_port=$(free_port)
node2_port=$(free_port)
common=(--hostname 127.0.0.1 --auth trust --no-ssl)
start_node monitor monitor --pgport "$monitor_port" "${common[@]}"
monitor=postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable
for ((i = 0; i < 60; i++)); do
    psql -q -X "postgres://postgres@127.0.0.1:$monitor_port/pg_auto_failover" -c "SELECT 1" >/dev/null 2>&1 && break
    sleep 0.5
done
# The monitor's defaults declare a primary dead after 20 s and wait 30 s for it to demote itself;
# a test wants seconds. These are its settings to tune (docs/operations.md).
psql -q -X "postgres://postgres@127.0.0.1:$monitor_port/pg_auto_failover" >/dev/null <<'SQL' || die "cannot tune the monitor"
ALTER SYSTEM SET pgautofailover.health_check_period = 1000;
ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500;
ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000;
ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1;
ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 3000;
ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 5000;
SELECT pg_reload_conf();
SQL

node_args=(--monitor "$monitor" --dbname hub_test "${common[@]}")
start_node node1 postgres --name node1 --pgport "$node1_port" "${node_args[@]}"
wait_state 60 '^ *node1 .*\| *(single|wait_primary|primary) *\| *(single|wait_primary|primary) *$'
start_node node2 postgres --name node2 --pgport "$node2_port" "${node_args[@]}"
wait_state 120 '^ *node1 .*\| *primary *\| *primary *$' '^ *node2 .*\| *secondary *\| *secondary *$'
sync=$(psql -X -At "postgres://postgres@127.0.0.1:$node1_port/hub_test" -c "SHOW synchronous_standby_names")
[[ -n $sync ]] || die "replication is not synchronous"
# pg_autoctl's URL names the hosts only; hubd connects as PostgreSQL's superuser here.
uri=$(as_pg pg_autoctl show uri --pgdata "$pg_dir/monitor" --formation default)
database=${uri/postgres:\/\//postgres://postgres@}
[[ $database == *target_session_attrs=read-write* ]] || die "unexpected formation URL: $uri"
say "formation up: primary node1, synchronous secondary node2 ($sync); $database"

export HUB_SECRETS_KEY_FILE=$work/secrets.key
"$hubd" migrate --database-url "$database" >"$work/migrate.log" 2>&1 || die "hubd migrate failed"
bases=()
for name in a b; do
    port=$(free_port)
    (cd "$work" && HUB_LOG_LEVEL=info exec "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port") >"$work/$name.log" 2>&1 &
    pids[$name]=$!
    wait_ready "http://127.0.0.1:$port" "$work/$name.log"
    bases+=("http://127.0.0.1:$port")
done
password=$(cd "$work" && new_admin "$database" admin@example.test)
token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "${bases[0]}" admin@example.test) || die "could not log in"

# First a planned switchover, as an operator does for maintenance: the monitor demotes node1 (its
# sessions end with 57P01) and promotes node2, both healthy.
{
    declare -f as_pg
    echo "bindir=$bindir pg_dir=$pg_dir as_pg pg_autoctl perform switchover --pgdata $pg_dir/monitor --formation default --wait 60"
} >"$work/switchover.sh"
say "two instances on the formation; load, then a planned switchover"
timeout "${FAILOVER_TEST_TIMEOUT:-300}" python3 tools/instances/failover_check.py --planned "$token" "bash $work/switchover.sh" \
    "${bases[@]}" || die "the check of the switchover failed"
wait_state 120 '^ *node2 .*\| *primary *\| *primary *$' '^ *node1 .*\| *secondary *\| *secondary *$'
say "switched over: node2 is the primary, node1 its synchronous secondary"

# Then the crash: every process of the new primary at once, as when its machine dies.
{
    declare -f crash_postgres
    echo "kill -KILL -- -${nodes[node2]} 2>/dev/null; crash_postgres $pg_dir/node2"
} >"$work/crash.sh"
say "load, then the primary crashed"
timeout "${FAILOVER_TEST_TIMEOUT:-300}" python3 tools/instances/failover_check.py "$token" "bash $work/crash.sh" "${bases[@]}" ||
    die "the check of the crash failed"
shown=$(state)
grep -Eq '^ *node1 .*\| *(wait_primary|primary) *\|' <<<"$shown" || die "node1 was not promoted: $shown"
say "node1 promoted: $(grep -E '^ *node1 ' <<<"$shown" | tr -s ' ')"

for name in a b; do stop_process "${pids[$name]}"; done
pids=()
(cd "$work" && "$hubd" verify --database-url "$database") >"$work/verify.log" 2>&1 || die "hubd verify failed"
say "hubd verify: $(tail -n 1 "$work/verify.log")"
say "passed"
