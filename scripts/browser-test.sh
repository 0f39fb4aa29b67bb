#!/usr/bin/env bash
# Browser test of the admin console (/admin) in Debian's Chromium, driven by Selenium:
#   1. installs `chromium` and `chromium-driver` with apt when missing (as root or through sudo);
#   2. starts the built `hubd serve` on a throwaway SQLite database and a free loopback port;
#   3. creates an admin with the CLI;
#   4. runs tools/browser/console_test.py headless: sign in, every page, an asset, an account, a
#      transfer seen arriving in the live feed, a hold, a refused transfer's problem, webhooks,
#      keys, and screenshots on a desktop and a phone viewport. Any browser console error or
#      failed request fails the test.
# Tools come from the pinned tools/browser/requirements.txt into a venv under .build-browser/.
# Usage: scripts/browser-test.sh
# Environment: BROWSER_SHOTS (screenshot directory, default .build-browser/screenshots).
# Exits non-zero when the test fails; the screenshots (with failure.png) stay for a look.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { echo "browser-test.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"

export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

requirements=tools/browser/requirements.txt
venv=$root/.build-browser/venv
shots=${BROWSER_SHOTS:-$root/.build-browser/screenshots}

# --- The browser and its driver, from Debian.
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    sudo=()
    if [[ $(id -u) != 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot install chromium chromium-driver"
        sudo=(sudo)
    fi
    say "installing chromium chromium-driver"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium chromium-driver
fi
say "$(chromium --version 2>/dev/null | head -n 1), $(chromedriver --version | head -n 1)"

# --- Selenium: a venv rebuilt whenever the pinned requirements change.
pinned_venv "$venv" "$requirements"

# --- The server: a fresh SQLite database and a free loopback port.
build_debug_hubd

work=$(mktemp -d "${TMPDIR:-/tmp}/hub-browser.XXXXXX")
server_pid=
source "$root/scripts/lib/stop-process.bash"
cleanup() {
    stop_process "$server_pid"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port=$(free_port)
base=http://127.0.0.1:$port
database=sqlite:$work/hub.sqlite
say "starting hubd on $base (log: $work/hubd.log)"
# The test adds a webhook endpoint on a closed loopback port, which the hub delivers to only when
# allowed (HUB_WEBHOOK_ALLOW_PRIVATE); a dead proxy keeps any other delivery on this machine.
dead_proxy=http://127.0.0.1:9
env -u no_proxy -u NO_PROXY http_proxy=$dead_proxy https_proxy=$dead_proxy HTTPS_PROXY=$dead_proxy \
    all_proxy=$dead_proxy ALL_PROXY=$dead_proxy HUB_WEBHOOK_ALLOW_PRIVATE=127.0.0.0/8 HUB_LOG_LEVEL=notice \
    HUB_LOCALCHAIN_KEY_FILE=$work/localchain.key \
    "$hubd" serve --database-url "$database" --listen "127.0.0.1:$port" >"$work/hubd.log" 2>&1 &
server_pid=$!
wait_ready "$base" "$work/hubd.log"

email=admin@example.test
password=$(new_admin "$database" "$email")

rm -rf "$shots"
mkdir -p "$shots"
status=0
printf '%s\n' "$password" | "$venv/bin/python" tools/browser/console_test.py "$base" "$email" "$shots" || status=$?
if [[ $status != 0 ]]; then
    say "server log (last 30 lines):"
    tail -n 30 "$work/hubd.log" >&2 || true
    die "FAILED (screenshots in $shots)"
fi
say "passed (screenshots in $shots)"
