# Sourced by the HTTP benchmarks (bench-http, bench-ble-sessions, bench-substrate): a work folder,
# the hubd and throwaway PostgreSQL they start, stopped on exit, and the loop over the backends.
# Needs `root`, `say` and `die`; defines `free_port` and `pinned_venv` (scripts/lib/live-hubd.bash).
source "$root/scripts/lib/live-hubd.bash"
source "$root/scripts/lib/stop-process.bash"

# bench_hubd: sets `hubd` to BENCH_HUBD (a hubd built elsewhere, measured as it is: an A/B of two
# builds in one sitting) or to a release hubd built here.
bench_hubd() {
    if [[ -n ${BENCH_HUBD:-} ]]; then
        hubd=$BENCH_HUBD
    else
        say "building hubd (release; several minutes the first time)"
        swift build -c release --product hubd
        hubd=$root/.build/release/hubd
    fi
    [[ -x $hubd ]] || die "$hubd was not built"
}

# bench_work NAME: sets `work` to a new folder, `server_pid` and `pg_dir` empty, and stops both
# and removes the folder on exit.
bench_work() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/hub-bench-$1.XXXXXX")
    bench_name=$1
    server_pid=
    pg_dir=
    trap bench_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

stop_server() {
    stop_process "$server_pid"
    server_pid=
}

bench_cleanup() {
    stop_server
    if [[ -n $pg_dir ]]; then bash "$root/scripts/pg-throwaway.sh" stop "$pg_dir" || true; fi
    rm -rf "$work"
}

# bench_postgres_url: sets `url` to HUB_BENCH_POSTGRES_URL or a throwaway cluster's (in `pg_dir`);
# returns 1, saying so, when no PostgreSQL server is installed.
bench_postgres_url() {
    url=${HUB_BENCH_POSTGRES_URL:-}
    [[ -z $url ]] || return 0
    if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
        say "[postgres] skipped: no PostgreSQL server installed (scripts/install-deps.sh installs one)"
        return 1
    fi
    # Its own folder under /tmp: the server runs as `postgres`, which cannot enter $work. A free
    # port, so that runs of the tests and bench-ledger (54329, 54330) can share the machine.
    pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/hub-bench-$bench_name-pg.XXXXXX")
    url=$(bash "$root/scripts/pg-throwaway.sh" start "$pg_dir" "$(free_port)")
}

# for_each_backend: `run_backend NAME DATABASE_URL` for each of $backends (sqlite, postgres).
for_each_backend() {
    local backend
    for backend in $backends; do
        case $backend in
            sqlite) run_backend sqlite "sqlite:$work/hub.sqlite" ;;
            postgres) if bench_postgres_url; then run_backend postgres "$url"; fi ;;
            *) die "unknown backend '$backend' in BENCH_BACKENDS" ;;
        esac
    done
}
