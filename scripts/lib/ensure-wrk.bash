# ensure_wrk: installs Debian's wrk when it is missing (the HTTP benchmarks' load tool). Source it
# after defining `say` and `die`.
ensure_wrk() {
    command -v wrk >/dev/null 2>&1 && return 0
    local sudo=()
    if [[ $(id -u) != 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "wrk is not installed and there is no sudo: apt-get install wrk"
        sudo=(sudo)
    fi
    say "installing wrk"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends wrk
}
