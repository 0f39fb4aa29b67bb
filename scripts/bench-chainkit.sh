#!/usr/bin/env bash
# ChainKit benchmark: the Swift operations (release build) and the same operations by the PyPI
# reference implementations on this machine in the same run. Prints a table with the ratios and
# writes bench/results/chainkit.json. Usage: scripts/bench-chainkit.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh --no-postgres
swift build -c release --product ChainKitBench
ours=$(.build/release/ChainKitBench)

venvs=$root/.build-crosscheck
make_venv() {  # NAME REQUIREMENTS
    local dir=$venvs/$1
    if [[ ! -x $dir/bin/python ]] || ! cmp -s "$2" "$dir/requirements.txt"; then
        rm -rf "$dir"
        python3 -m venv "$dir"
        "$dir/bin/pip" install -q --disable-pip-version-check --only-binary :all: -r "$2"
        cp "$2" "$dir/requirements.txt"
    fi
}
theirs=""
if make_venv eth tools/vectors/requirements-eth.txt >&2 && make_venv sub tools/vectors/requirements-substrate.txt >&2; then
    theirs=$("$venvs/eth/bin/python" bench/chainkit_reference.py eth; "$venvs/sub/bin/python" bench/chainkit_reference.py substrate)
else
    echo "bench-chainkit: the reference packages could not be installed from PyPI; only ChainKit is measured" >&2
fi
mkdir -p bench/results
OURS="$ours" THEIRS="$theirs" python3 - <<'PY'
import json, os, platform
ours = [json.loads(l) for l in os.environ["OURS"].splitlines() if l.strip()]
theirs = {r["operation"]: r for r in (json.loads(l) for l in os.environ["THEIRS"].splitlines() if l.strip())}
reference = {"keccak256": "pycryptodome (C)", "secp256k1_recover": "coincurve (libsecp256k1)", "secp256k1_sign": "coincurve (libsecp256k1)",
             "sr25519_sign": "py-sr25519-bindings (Rust)", "sr25519_verify": "py-sr25519-bindings (Rust)",
             "rlp_decode": "rlp (Python)", "scale_decode": "scalecodec (Python)",
             "state_root_rebuild": "none (the next row's baseline)", "state_root_incremental": "ChainKit, whole trie rebuilt (same run)",
             "state_trie_memory": "none (resident growth of one more kept trie)"}
# Rows measured against another of ours: the kept state trie against building it again.
ours_by_operation = {r["operation"]: r for r in ours}
theirs["state_root_incremental"] = ours_by_operation.get("state_root_rebuild")
rows = []
print(f"{'operation':<20} {'ChainKit':>12} {'reference':>12}  {'ratio':>6}  unit   reference")
for r in ours:
    t = theirs.get(r["operation"])
    ratio = r["value"] / t["value"] if t else None
    rows.append({**r, "reference": reference[r["operation"]], "reference_value": t and t["value"], "ratio": ratio and round(ratio, 2)})
    print(f"{r['operation']:<20} {r['value']:>12,.1f} {(t['value'] if t else float('nan')):>12,.1f}  {ratio if ratio else float('nan'):>6.2f}  {r['unit']:<6} {reference[r['operation']]}")
machine = f"{os.cpu_count()} cores, {platform.platform()}"
json.dump({"machine": machine, "results": rows}, open("bench/results/chainkit.json", "w"), indent=2)
print("wrote bench/results/chainkit.json (ratio > 1: ChainKit is faster)")
PY
