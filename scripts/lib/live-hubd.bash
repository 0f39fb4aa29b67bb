# Shared steps of the scripts that drive a live `hubd` (contract, browser, local chain web3 and
# relay tests): a venv of pinned PyPI tools, the debug build, a free loopback port, readiness, and a
# first admin. Source it after defining `die`; every function is quiet on success.

# pinned_venv VENV REQUIREMENTS: (re)builds VENV whenever REQUIREMENTS changed; wheels only.
pinned_venv() {
    local venv=$1 requirements=$2
    if [[ ! -x $venv/bin/python ]] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
        echo "installing the pinned tools of $requirements into $venv" >&2
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q --disable-pip-version-check --only-binary :all: -r "$requirements" ||
            die "could not install $requirements from PyPI"
        cp "$requirements" "$venv/requirements.txt"
    fi
}

# build_debug_hubd: builds hubd (debug) and sets `hubd` to its path.
build_debug_hubd() {
    echo "building hubd (debug)" >&2
    swift build --product hubd
    hubd=$root/.build/debug/hubd
    [[ -x $hubd ]] || die "$hubd was not built"
}

# free_port: prints a TCP port free on loopback now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_ready BASE_URL LOG: waits up to 60 s for GET /readyz; on failure shows LOG's tail and dies.
wait_ready() {
    if ! python3 "$root/tools/contract/hubapi.py" wait-ready "$1" 60; then
        tail -n 30 "$2" >&2 || true
        die "hubd did not become ready"
    fi
}

# new_admin DATABASE_URL EMAIL: creates the first admin with a random password and prints it.
new_admin() {
    local password
    password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
    printf '%s\n' "$password" | "$hubd" admin create --database-url "$1" --email "$2" --password-stdin >/dev/null ||
        die "hubd admin create failed"
    printf '%s\n' "$password"
}

# serve_sqlite_hubd WORK PLUGINS_FILE: starts `$hubd serve` on a new SQLite database in WORK with
# PLUGINS_FILE, on a free loopback port, waits until it is ready and logs in a new first admin.
# Sets server_pid (stop it with stop_process), base (its URL), database (its URL) and token (the
# admin's access token). The server's log is WORK/hubd.log.
serve_sqlite_hubd() {
    serve_hubd "$1" "$2" "sqlite:$1/hub.sqlite"
}

# serve_hubd WORK PLUGINS_FILE DATABASE_URL: serve_sqlite_hubd on the database DATABASE_URL names
# (SQLite or an empty PostgreSQL database).
serve_hubd() {
    local work=$1 plugins=$2 port email password
    database=$3
    port=$(free_port)
    base=http://127.0.0.1:$port
    HUB_LOG_LEVEL=notice "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port" --plugins "$plugins" \
        >"$work/hubd.log" 2>&1 &
    server_pid=$!
    wait_ready "$base" "$work/hubd.log"
    email=admin@example.test
    password=$(new_admin "$database" "$email")
    token=$(printf '%s\n' "$password" | python3 "$root/tools/contract/hubapi.py" login "$base" "$email") || die "could not log in"
}
