"""Turns a one-transaction case (JSON, as `hubd evm run` reads it, or a difftest failure file) into
a regression fixture under Tests/Fixtures/evm-difftest/: the case and revm's outcome, which
EVMKitTests' DifferentialFixtureTests then require EVMKit to reproduce.

Usage: make_fixture.py CASE.json NAME "why this case is kept"
"""

import json
import os
import sys

import revm_runner

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    source, name, why = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(source) as handle:
        loaded = json.load(handle)
    case = loaded.get("case", loaded)
    case["name"] = name
    case.pop("expectFailure", None)
    revm = revm_runner.run_case(case)
    for result in revm["results"]:
        result.pop("error", None)
        for key in [k for k, v in result.items() if v is None]:
            del result[key]
    expected = {"name": name, "results": revm["results"], "accounts": revm["accounts"]}
    path = os.path.join(HERE, "..", "..", "Tests", "Fixtures", "evm-difftest", name + ".json")
    with open(path, "w") as handle:
        json.dump({"why": why, "expectedBy": "revm (pyrevm 0.3.7)", "case": case, "expected": expected}, handle, indent=1, sort_keys=True)
        handle.write("\n")
    print("wrote", os.path.normpath(path))


if __name__ == "__main__":
    main()
