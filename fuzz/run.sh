#!/usr/bin/env bash
# Builds each fuzz entry in fuzz/ under libFuzzer and AddressSanitizer, then runs each for a bounded
# time. SwiftPM cannot sanitize one target alone, so this calls swiftc directly: the decoder entries
# are compiled together with ChainKit's sources into one module; the EVM entries (fuzz/EVM*.swift)
# with EVMKit's sources into module EVMKit, over ChainKit compiled first as a module of its own (its
# sources say `import ChainKit`). Usage: fuzz/run.sh [SECONDS_PER_TARGET] (default 20)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${1:-20}
out=.build-fuzz
mkdir -p "$out"
mapfile -t sources < <(find Sources/ChainKit -name '*.swift' | sort)
mapfile -t evm_sources < <(find Sources/EVMKit -name '*.swift' | sort)
modulemaps=()
for shim in CSecp256k1 CSodium COpenSSL CXXHash CZstd; do
    modulemaps+=(-Xcc "-fmodule-map-file=Sources/$shim/module.modulemap" -I "Sources/$shim")
done
flags=(-sanitize=fuzzer,address -parse-as-library -O)
# -package-name as SwiftPM passes it: ChainKit has `package` declarations (for the package's tests).
features=(-package-name hubd -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -enable-upcoming-feature MemberImportVisibility)
chainkit_built=

# ChainKit as a module (for EVMKit to import) and one object, built once per run.
build_chainkit_module() {
    [[ -n $chainkit_built ]] && return
    echo "fuzz: building ChainKit as a module"
    mkdir -p "$out/modules"
    swiftc "${flags[@]}" "${features[@]}" -wmo -c -module-name ChainKit -emit-module \
        -emit-module-path "$out/modules/ChainKit.swiftmodule" "${modulemaps[@]}" "${sources[@]}" -o "$out/ChainKit.o"
    chainkit_built=1
}

status=0
for entry in fuzz/*.swift; do
    name=$(basename "$entry" .swift)
    echo "fuzz: building $name"
    if [[ $name == EVM* ]]; then
        build_chainkit_module
        swiftc "${flags[@]}" "${features[@]}" -module-name EVMKit -I "$out/modules" \
            "${modulemaps[@]}" "${evm_sources[@]}" "$entry" "$out/ChainKit.o" -o "$out/$name"
    else
        swiftc "${flags[@]}" -package-name hubd -module-name ChainKit \
            "${modulemaps[@]}" "${sources[@]}" "$entry" -o "$out/$name"
    fi
    mkdir -p "$out/corpus-$name"
    echo "fuzz: running $name for ${seconds}s"
    # The EVM nests calls 1024 deep, as hubd runs it on a large stack (evm blocktest, evm run): the
    # fuzzer gets one too (1 GiB, in KiB), and a bounded RSS so runaway memory fails the run.
    if ! (ulimit -s 1048576 2>/dev/null || true; exec "$out/$name" -max_total_time="$seconds" -max_len=4096 \
        -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 "$out/corpus-$name") >"$out/$name.log" 2>&1; then
        echo "fuzz: $name FAILED; last lines of $out/$name.log:"
        tail -n 40 "$out/$name.log"
        status=1
    else
        grep -E 'stat::number_of_executed_units|Done' "$out/$name.log" | tail -n 2 || true
    fi
done
exit "$status"
