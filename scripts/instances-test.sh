#!/usr/bin/env bash
# Several hubd instances on one PostgreSQL behind HAProxy (Debian's package, installed when
# missing), with two of them killed mid-load (issue 16): a throwaway PostgreSQL cluster, three
# `hubd serve` sharing it and one secrets key file, HAProxy on loopback balancing them round-robin
# with health checks on /readyz; tools/instances/instances_check.py sends ledger transfers, BLE
# session payments and local chain payments through it, kills one instance and then the sealer's
# leader with SIGKILL, and checks that every request was answered, every acknowledged write is
# there exactly once and the chain has no fork; then `hubd verify` on the database.
# Tools: the venv of scripts/localchain-web3-test.sh (eth-account).
# Usage: scripts/instances-test.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "instances-test.sh: $*" >&2; }
source "$root/scripts/lib/die-with-logs.bash"
die() { die_with_logs "$*" "${work:-/nonexistent}"; }
source "$root/scripts/lib/live-hubd.bash"
source "$root/scripts/lib/stop-process.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

if ! command -v haproxy >/dev/null 2>&1; then
    sudo=()
    [[ $(id -u) == 0 ]] || sudo=(sudo)
    say "installing haproxy (Debian)"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends haproxy >&2 ||
        die "could not install haproxy"
fi

venv=$root/.build-localchain/venv
pinned_venv "$venv" tools/localchain/requirements.txt
build_debug_hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-instances.XXXXXX")
declare -A pids=()
haproxy_pid=
# Its own directory: PostgreSQL's user must reach it, and $work is private.
pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/hub-instances-pg.XXXXXX")
cleanup() {
    for name in "${!pids[@]}"; do stop_process "${pids[$name]}"; done
    stop_process "$haproxy_pid"
    bash "$root/scripts/pg-throwaway.sh" stop "$pg_dir" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

database=$(bash scripts/pg-throwaway.sh start "$pg_dir" "$(free_port)") || die "could not start PostgreSQL"
export HUB_SECRETS_KEY_FILE=$work/secrets.key
"$hubd" migrate --database-url "$database" >"$work/migrate.log" 2>&1 || die "hubd migrate failed"

lb_port=$(free_port)
servers=""
specs=()
for name in a b c; do
    port=$(free_port)
    (cd "$work" && HUB_LOG_LEVEL=info exec "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port") >"$work/$name.log" 2>&1 &
    pids[$name]=$!
    wait_ready "http://127.0.0.1:$port" "$work/$name.log"
    servers+="    server $name 127.0.0.1:$port check inter 500ms fall 2 rise 2"$'\n'
    specs+=("$name=${pids[$name]}=$work/$name.log")
done

cat >"$work/haproxy.cfg" <<CFG
global
    maxconn 512
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    retries 2
    option redispatch
frontend hub
    bind 127.0.0.1:$lb_port
    default_backend hubd
backend hubd
    balance roundrobin
    option httpchk GET /readyz
$servers
CFG
haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
haproxy_pid=$!
base=http://127.0.0.1:$lb_port
wait_ready "$base" "$work/haproxy.log"

password=$(cd "$work" && new_admin "$database" admin@example.test)
token=$(printf '%s\n' "$password" | python3 tools/contract/hubapi.py login "$base" admin@example.test) || die "could not log in"

say "three instances behind HAProxy at $base; load, then two of them killed"
"$venv/bin/python" tools/instances/instances_check.py "$base" "$token" "${specs[@]}" || die "the check failed"

for name in a b c; do stop_process "${pids[$name]}"; done
pids=()
(cd "$work" && "$hubd" verify --database-url "$database") >"$work/verify.log" 2>&1 || die "hubd verify failed"
say "hubd verify: $(tail -n 1 "$work/verify.log")"
say "passed"
