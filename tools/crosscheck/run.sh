#!/usr/bin/env bash
# Live cross-check of hubd's keys, signatures and keystores against the PyPI reference packages
# (the same pins as the golden-vector generator), and a fresh generation of the BLE advertising
# vectors (tools/vectors/gen_ble.py with bluetooth-data-tools) diffed against the committed file. Needs a built hubd (swift build). If PyPI cannot
# be reached the check says so and is skipped: the committed golden vectors still gate correctness.
# Usage: tools/crosscheck/run.sh [PATH_TO_HUBD]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
hubd=${1:-$root/.build/debug/hubd}
[[ -x $hubd ]] || { echo "crosscheck: $hubd is not built (run swift build first)" >&2; exit 1; }
venvs=${CROSSCHECK_VENVS:-$root/.build-crosscheck}
mkdir -p "$venvs"

make_venv() {  # NAME REQUIREMENTS → prints the venv's python, or fails if PyPI is unreachable
    local dir=$venvs/$1
    if [[ ! -x $dir/bin/python ]] || ! cmp -s "$2" "$dir/requirements.txt"; then
        rm -rf "$dir"
        python3 -m venv "$dir" >&2
        "$dir/bin/pip" install -q --disable-pip-version-check --only-binary :all: -r "$2" >&2 || return 1
        cp "$2" "$dir/requirements.txt"
    fi
    echo "$dir/bin/python"
}

if ! sub=$(make_venv sub "$root/tools/vectors/requirements-substrate.txt") || ! eth=$(make_venv eth "$root/tools/vectors/requirements-eth.txt"); then
    echo "crosscheck: SKIPPED: the reference packages could not be installed from PyPI (the golden vectors still gate)"
    exit 0
fi
"$sub" "$root/tools/crosscheck/crosscheck.py" substrate "$hubd" 20
"$eth" "$root/tools/crosscheck/crosscheck.py" eth "$hubd" 5

# BLE advertising data: regenerate with the pinned oracle into a temp dir and diff against the
# committed Tests/Fixtures/vectors/ble_advertising.json (which the Swift tests check byte for byte).
if ! ble=$(make_venv ble "$root/tools/vectors/requirements-ble.txt"); then
    echo "crosscheck: ble advertising vectors SKIPPED: bluetooth-data-tools could not be installed from PyPI (the committed vectors still gate)"
    exit 0
fi
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
committed=$root/Tests/Fixtures/vectors/ble_advertising.json
if ! (cd "$root/tools/vectors" && PYTHONDONTWRITEBYTECODE=1 "$ble" gen_ble.py --out "$fresh" >"$fresh/log" 2>&1); then
    cat "$fresh/log" >&2
    echo "crosscheck: ble advertising vectors: gen_ble.py failed (the oracle disagrees with the generator's own encoder?)" >&2
    exit 1
fi
if ! cmp -s "$committed" "$fresh/ble_advertising.json"; then
    diff -u "$committed" "$fresh/ble_advertising.json" | head -n 60 >&2 || true
    echo "crosscheck: ble advertising vectors: a fresh generation differs from Tests/Fixtures/vectors/ble_advertising.json" >&2
    exit 1
fi
echo "crosscheck: ble advertising vectors: a fresh generation with bluetooth-data-tools matches the committed file"
