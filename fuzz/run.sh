#!/usr/bin/env bash
# Builds each fuzz entry in fuzz/ with ChainKit's sources under libFuzzer and AddressSanitizer,
# then runs each for a bounded time. SwiftPM cannot sanitize one target alone, so this calls
# swiftc directly. Usage: fuzz/run.sh [SECONDS_PER_TARGET] (default 20)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${1:-20}
out=.build-fuzz
mkdir -p "$out"
mapfile -t sources < <(find Sources/ChainKit -name '*.swift' | sort)
modulemaps=()
for shim in CSecp256k1 CSodium COpenSSL CXXHash CZstd; do
    modulemaps+=(-Xcc "-fmodule-map-file=Sources/$shim/module.modulemap" -I "Sources/$shim")
done
status=0
for entry in fuzz/*.swift; do
    name=$(basename "$entry" .swift)
    echo "fuzz: building $name"
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name ChainKit \
        "${modulemaps[@]}" "${sources[@]}" "$entry" -o "$out/$name"
    mkdir -p "$out/corpus-$name"
    echo "fuzz: running $name for ${seconds}s"
    if ! "$out/$name" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "$out/corpus-$name" >"$out/$name.log" 2>&1; then
        echo "fuzz: $name FAILED; last lines of $out/$name.log:"
        tail -n 40 "$out/$name.log"
        status=1
    else
        grep -E 'stat::number_of_executed_units|Done' "$out/$name.log" | tail -n 2 || true
    fi
done
exit "$status"
