"""The EVM benchmark's workloads (scripts/bench-evm.sh), as EVMBench reads them: each a stage
(deployments and funding, run once) and one long measured transaction, so that pyrevm's cost of
starting a call from Python is small beside the work. The Vyper contracts are compiled now by the
pinned vyper (tools/evm/requirements.txt).

Usage: bench_workloads.py OUT.json [SCALE]   (SCALE multiplies the loop counts; default 1)"""

import json
import sys

from evmgen import BLOCK
from vyper_cases import Script

# A block that holds the long transactions.
GAS = 900_000_000
BENCH_BLOCK = dict(BLOCK, gasLimit=1_000_000_000)


def workload(name, build):
    script = Script(name, gas=GAS)
    measured_index = build(script)
    stage = script.case()
    measured = stage["txs"].pop(measured_index)
    del stage["expectFailure"]
    stage["block"] = BENCH_BLOCK
    return {"name": name, "stage": stage, "measured": measured}


def main():
    out = sys.argv[1]
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0

    def count(n):
        return max(1, int(n * scale))

    def compute(s):
        batch = s.deploy("Batch")
        s.call(batch, "Batch", "compute(uint256)", count(20_000))
        return -1

    def transfers(s):
        batch = s.deploy("Batch")
        token = s.deploy("Token", 10**24)
        s.call(token, "Token", "transfer(address,uint256)", batch, 10**22)
        s.call(batch, "Batch", "transfers(address,uint256)", token, count(2_000))
        return -1

    def mints(s):
        batch = s.deploy("Batch")
        nft = s.deploy("Collectible", batch)
        s.call(batch, "Batch", "mints(address,uint256)", nft, count(1_000))
        return -1

    def creations(s):
        batch = s.deploy("Batch")
        token = s.deploy("Token", 10**24)
        s.call(batch, "Batch", "copies(address,uint256)", token, count(300))
        return -1

    workloads = [
        workload("compute (arithmetic + keccak loop)", compute),
        workload("ERC-20 transfer loop", transfers),
        workload("ERC-721 mint loop", mints),
        workload("contract creation (CREATE loop)", creations),
    ]
    with open(out, "w") as handle:
        json.dump(workloads, handle)


if __name__ == "__main__":
    main()
