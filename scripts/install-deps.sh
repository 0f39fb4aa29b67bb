#!/usr/bin/env bash
# Installs the Debian packages hubd needs to build and test.
# Usage: scripts/install-deps.sh [--no-postgres]
#   --no-postgres  skip the PostgreSQL server (only the tests need it).
# Does no apt work at all when everything is already installed.
set -euo pipefail

want_postgres=1
for arg in "$@"; do
    case "$arg" in
        --no-postgres) want_postgres=0 ;;
        -h | --help)
            sed -n '2,5p' "$0"
            exit 0
            ;;
        *)
            echo "install-deps.sh: unknown argument: $arg" >&2
            exit 2
            ;;
    esac
done

packages=(
    pkg-config make
    libsqlite3-dev libpq-dev libssl-dev libsodium-dev libzstd-dev
    libsecp256k1-dev libxxhash-dev libcurl4-openssl-dev
    curl  # a real HTTP client for the event-stream tests
    xz-utils  # unpacks the EVM blocktest fixtures (Tests/Fixtures/ethereum-tests/*.tar.xz)
)
if [[ $want_postgres == 1 ]]; then
    packages+=(postgresql)
fi

if ! command -v dpkg >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    # Not Debian-like (e.g. macOS): we cannot install, so say what is needed and let the build decide.
    echo "install-deps.sh: no dpkg/apt-get here; make sure these (or equivalents) are installed: ${packages[*]}" >&2
    exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
    # `dpkg -s` also succeeds for removed-but-not-purged packages, so check the status line.
    if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed$'; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} == 0 ]]; then
    echo "install-deps.sh: all ${#packages[@]} packages already installed" >&2
    exit 0
fi

sudo=()
if [[ $(id -u) != 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "install-deps.sh: not root and no sudo; please install: ${missing[*]}" >&2
        exit 1
    fi
fi

echo "install-deps.sh: installing: ${missing[*]}" >&2
# `env` because sudo may drop DEBIAN_FRONTEND; noninteractive so CI never blocks on a prompt.
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
