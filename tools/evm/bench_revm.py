"""revm's half of the EVM benchmark: runs each prepared one-transaction case (written by EVMBench:
the staged state and the measured transaction) in pyrevm, each run in a fresh EVM over that state,
for about SECONDS of measured calls. Prints one JSON object per workload, as EVMBench does.

Usage: bench_revm.py PREPARED.json [SECONDS]"""

import json
import sys
import time

import revm_runner


def main():
    with open(sys.argv[1]) as handle:
        cases = json.load(handle)
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    for case in cases:
        tx = case["txs"][0]
        data = bytes.fromhex(tx["data"][2:])
        runs, elapsed, gas = 0, 0.0, None
        while elapsed < budget or runs < 3:
            evm = revm_runner.new_evm(case)  # staging, not timed
            start = time.perf_counter()
            evm.message_call(tx["sender"], tx["to"], data, gas=tx["gasLimit"])
            elapsed += time.perf_counter() - start
            used = evm.result.gas_used
            if gas is not None and used != gas:
                raise SystemExit(f"{case['name']}: gas used changed between runs ({gas}, {used})")
            gas, runs = used, runs + 1
        print(json.dumps({"workload": case["name"], "gas": gas, "runs": runs, "seconds": round(elapsed, 4),
                          "gas_per_second": round(gas * runs / elapsed)}), flush=True)


if __name__ == "__main__":
    main()
