#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks.
# Usage:
#   scripts/pg-throwaway.sh start DIR [PORT]   # default PORT 54329
#   scripts/pg-throwaway.sh stop DIR           # stops the cluster and removes DIR
# `start` prints exactly one line on stdout, the URL
#   postgres://postgres@127.0.0.1:PORT/hub_test
# and everything else on stderr, so callers can do URL=$(scripts/pg-throwaway.sh start DIR).
# The cluster listens only on 127.0.0.1 (plus a unix socket in DIR), trusts local connections,
# and keeps PostgreSQL's durable defaults (fsync, synchronous_commit) so tests see real behaviour.
set -euo pipefail

# Keep stdout for the URL alone; all chatter (ours and pg_ctl's) goes to stderr.
exec 3>&1 1>&2

readonly marker=.pg-throwaway # marks DIR as ours, so we never wipe a directory we did not make
readonly dbname=hub_test

die() {
    echo "pg-throwaway.sh: $*" >&2
    exit 1
}

usage() {
    sed -n '2,5p' "$0" >&2
    exit 2
}

# Debian keeps the server binaries off PATH, one directory per major version.
find_bindir() {
    local dir
    dir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1) || true
    [[ -n $dir && -x $dir/initdb && -x $dir/pg_ctl ]] ||
        die "no PostgreSQL server found under /usr/lib/postgresql/*/bin (run scripts/install-deps.sh)"
    echo "$dir"
}

# PostgreSQL refuses to run as root, so root runs the server tools as the `postgres` user.
# fd 3 (our real stdout) is closed for them: the server would otherwise inherit it and keep
# a caller's $(...) waiting for EOF for as long as the server runs.
as_pg() {
    if [[ $(id -u) == 0 ]]; then
        # cd / so the tools do not warn about a working directory postgres cannot read.
        (cd / && runuser -u postgres -- "$@") 3>&-
    else
        "$@" 3>&-
    fi
}

is_running() { # DIR
    [[ -f $1/data/PG_VERSION ]] && as_pg "$bindir/pg_ctl" -D "$1/data" status >/dev/null 2>&1
}

stop_server() { # DIR
    if is_running "$1"; then
        echo "pg-throwaway.sh: stopping cluster in $1" >&2
        # fast = roll back open sessions; fall back to immediate if something hangs.
        as_pg "$bindir/pg_ctl" -D "$1/data" -m fast -w -t 30 stop ||
            as_pg "$bindir/pg_ctl" -D "$1/data" -m immediate -w -t 10 stop
    fi
}

# DIR is ours if it carries the marker or is empty (e.g. fresh from mktemp -d).
is_ours() { # DIR
    [[ -e $1/$marker ]] || [[ -z $(ls -A "$1") ]]
}

cmd_start() { # DIR PORT
    local dir=$1 port=$2
    if ! [[ $port =~ ^[1-9][0-9]{0,4}$ ]] || ((port > 65535)); then
        die "bad port: $port"
    fi
    # Unix socket paths are limited to 107 bytes on Linux.
    ((${#dir} + ${#port} + 10 <= 107)) || die "DIR path too long for a unix socket: $dir"

    if [[ -e $dir ]]; then
        [[ -d $dir ]] || die "$dir exists and is not a directory"
        is_ours "$dir" || die "$dir is not empty and was not made by this script; refusing to use it"
        stop_server "$dir"
        find "$dir" -mindepth 1 -delete # start fresh: a throwaway cluster never keeps old data
    else
        mkdir -p "$dir"
    fi
    touch "$dir/$marker"

    if [[ $(id -u) == 0 ]]; then
        getent passwd postgres >/dev/null || die "running as root but there is no 'postgres' user"
        chown postgres: "$dir"
        chmod 700 "$dir"
        runuser -u postgres -- test -w "$dir" ||
            die "user postgres cannot write $dir (is a parent directory closed to it?)"
    fi

    echo "pg-throwaway.sh: initdb in $dir/data ($("$bindir/postgres" --version))" >&2
    # -U postgres: same superuser name whoever runs this, so the URL is always the same.
    as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C \
        --no-instructions >"$dir/initdb.log" 2>&1 ||
        {
            cat "$dir/initdb.log" >&2
            die "initdb failed"
        }

    # Settings live in the config file (not pg_ctl -o) so any restart keeps them.
    # Only listen/auth settings and the connection limit: fsync and synchronous_commit stay at
    # their durable defaults. The test suite runs suites in parallel, each test with a database of
    # its own (a writer, readers, a listener), which passed 500 connections once two rails ran
    # together in one test hub; 1000 keeps a margin.
    local sockdir=${dir//\'/\'\'}
    as_pg tee -a "$dir/data/postgresql.conf" >/dev/null <<EOF

# pg-throwaway.sh
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$sockdir'
max_connections = 1000
EOF
    as_pg tee "$dir/data/pg_hba.conf" >/dev/null <<'EOF'
# pg-throwaway.sh: trust local socket and loopback only.
local all all               trust
host  all all 127.0.0.1/32  trust
EOF

    echo "pg-throwaway.sh: starting on 127.0.0.1:$port" >&2
    if ! as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 30 start; then
        tail -n 20 "$dir/postgres.log" >&2 || true
        die "server did not start (port $port in use?)"
    fi

    local waited=0
    until "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres; do
        if ((waited >= 30)); then
            tail -n 20 "$dir/postgres.log" >&2 || true
            die "server not ready after 30 s"
        fi
        sleep 1
        waited=$((waited + 1))
    done

    "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres \
        -c "CREATE DATABASE $dbname" >/dev/null
    echo "pg-throwaway.sh: ready" >&2
    echo "postgres://postgres@127.0.0.1:$port/$dbname" >&3
}

cmd_stop() { # DIR
    local dir=$1
    if [[ ! -e $dir ]]; then
        echo "pg-throwaway.sh: $dir does not exist; nothing to stop" >&2
        return 0
    fi
    if ! [[ -d $dir ]] || ! is_ours "$dir"; then
        die "$dir was not made by this script; refusing to touch it"
    fi
    stop_server "$dir"
    rm -rf -- "$dir"
    echo "pg-throwaway.sh: removed $dir" >&2
}

[[ $# -ge 2 ]] || usage
command=$1
# Absolute path: the tools run from / when we are root, and the socket directory must be absolute.
dir=$(realpath -m -- "$2")
[[ $dir != / ]] || die "refusing to use /"
bindir=$(find_bindir)
# The client tools from the same version, whatever PG* variables the caller has set.
unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGSERVICE PGOPTIONS PGDATA

case "$command" in
    start)
        [[ $# -le 3 ]] || usage
        cmd_start "$dir" "${3:-54329}"
        ;;
    stop)
        [[ $# -eq 2 ]] || usage
        cmd_stop "$dir"
        ;;
    *) usage ;;
esac
