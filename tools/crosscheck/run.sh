#!/usr/bin/env bash
# Live cross-check of hubd's keys, signatures and keystores against the PyPI reference packages
# (the same pins as the golden-vector generator). Needs a built hubd (swift build). If PyPI cannot
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
