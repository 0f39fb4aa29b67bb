"""Differential test of EVMKit against revm (pyrevm): random programs and the Vyper contracts run
in both engines; status, return data, gas used, logs, balances, nonces, code and storage must agree.

Usage: difftest.py --hubd PATH [--cases N] [--seed S] [--random-seeds K] [--failures DIR]
Exits 1 on the first disagreement, after printing the case cut down to what still disagrees (and
writing it to DIR as a regression fixture: the case and revm's outcome).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import evmgen
import revm_runner
import vyper_cases


def swift_outcomes(hubd, cases):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(cases, handle)
        path = handle.name
    try:
        run = subprocess.run([hubd, "evm", "run", path], capture_output=True, text=True, timeout=300)
    finally:
        os.unlink(path)
    if run.returncode != 0:
        raise SystemExit(f"difftest: hubd evm run failed ({run.returncode}): {run.stderr[-2000:]}")
    return json.loads(run.stdout)


def comparable(outcome):
    """The parts both engines must agree on: everything but the wording of errors."""
    results = []
    for result in outcome["results"]:
        result = {k: v for k, v in result.items() if v is not None and k != "error"}
        result.setdefault("logs", [])
        results.append(result)
    accounts = {address: {k: v for k, v in entry.items() if k != "code"} for address, entry in outcome["accounts"].items()}
    return {"results": results, "accounts": accounts}


def differences(swift, revm):
    """Short lines naming what differs, empty when the outcomes agree."""
    a, b = comparable(swift), comparable(revm)
    lines = []
    for index, (x, y) in enumerate(zip(a["results"], b["results"])):
        for key in sorted(set(x) | set(y)):
            if x.get(key) != y.get(key):
                lines.append(f"tx {index} {key}: evmkit {json.dumps(x.get(key))[:400]} revm {json.dumps(y.get(key))[:400]}")
    for address in sorted(set(a["accounts"]) | set(b["accounts"])):
        x, y = a["accounts"].get(address), b["accounts"].get(address)
        if x != y:
            lines.append(f"account {address}: evmkit {json.dumps(x)} revm {json.dumps(y)}")
    return lines


def disagrees(hubd, case):
    swift = swift_outcomes(hubd, [case])[0]
    return bool(differences(swift, revm_runner.run_case(case, swift)))


def minimise(hubd, structured):
    """Greedy cuts that keep the disagreement: whole snippets of either program, pre-state slots,
    calldata, value, creation; repeated until no cut keeps it."""
    def still(candidate):
        return disagrees(hubd, evmgen.to_json(candidate))

    changed = True
    while changed:
        changed = False
        for program in ("a", "b"):
            index = 0
            while index < len(structured[program]):
                candidate = dict(structured, **{program: structured[program][:index] + structured[program][index + 1:]})
                if still(candidate):
                    structured, changed = candidate, True
                else:
                    index += 1
        for account in ("a", "b"):
            for slot in list(structured["storage"][account]):
                storage = {k: dict(v) for k, v in structured["storage"].items()}
                del storage[account][slot]
                candidate = dict(structured, storage=storage)
                if still(candidate):
                    structured, changed = candidate, True
        for key, plain in (("calldata", b""), ("value", 0), ("gas", 3_000_000), ("create", False), ("nonce", 0)):
            if structured[key] != plain:
                candidate = dict(structured, **{key: plain})
                if still(candidate):
                    structured, changed = candidate, True
    return structured


def report(hubd, case, failures):
    swift = swift_outcomes(hubd, [case])[0]
    revm = revm_runner.run_case(case, swift)
    print("difftest: DISAGREEMENT in", case["name"])
    for line in differences(swift, revm):
        print("  " + line)
    print("difftest: case:")
    print(json.dumps(case, indent=1))
    if failures:
        os.makedirs(failures, exist_ok=True)
        path = os.path.join(failures, case["name"] + ".json")
        with open(path, "w") as handle:
            json.dump({"case": case, "expected": comparable(revm), "expectedBy": "revm (pyrevm 0.3.7)"}, handle, indent=1, sort_keys=True)
            handle.write("\n")
        print("difftest: written to", path)


def run_batch(hubd, structured_cases, failures):
    cases = [evmgen.to_json(s) for s in structured_cases]
    outcomes = swift_outcomes(hubd, cases)
    for structured, case, swift in zip(structured_cases, cases, outcomes):
        revm = revm_runner.run_case(case, swift)
        if differences(swift, revm):
            print(f"difftest: {case['name']} disagrees; minimising", flush=True)
            small = minimise(hubd, structured) if "a" in structured else structured
            report(hubd, evmgen.to_json(small) if "a" in small else case, failures)
            return False
    return True


def run_chain(hubd, case, failures):
    """A case of several transactions, one at a time: pyrevm never ends a transaction (its journal
    stays open, so accounts and slots would stay warm into the next one), so each transaction runs
    in a fresh revm over the state both engines agreed on after the one before."""
    pre = case["pre"]
    for index, tx in enumerate(case["txs"]):
        step = {"name": f"{case['name']}-tx{index}", "pre": pre, "block": case["block"], "txs": [tx]}
        swift = swift_outcomes(hubd, [step])[0]
        revm = revm_runner.run_case(step, swift)
        failed = swift["results"][0]["status"] != "success"
        if differences(swift, revm) or failed != (index in case["expectFailure"]):
            if not differences(swift, revm):
                print(f"difftest: {step['name']}: status {swift['results'][0]['status']} in both engines; expected the opposite")
                return False
            report(hubd, step, failures)
            return False
        pre = {address: {"balance": a["balance"], "nonce": a["nonce"], "code": a["code"], "storage": a["storage"]}
               for address, a in swift["accounts"].items()}
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hubd", required=True)
    parser.add_argument("--cases", type=int, default=300, help="random programs per seed")
    parser.add_argument("--seed", type=int, default=17, help="the fixed seed")
    parser.add_argument("--random-seeds", type=int, default=2, help="extra seeds drawn at random (printed)")
    parser.add_argument("--failures", help="folder to write a minimised disagreement to")
    args = parser.parse_args()

    started = time.monotonic()
    contract_cases = vyper_cases.cases()
    for case in contract_cases:
        if not run_chain(args.hubd, case, args.failures):
            sys.exit(1)
    print(f"difftest: {len(contract_cases)} Vyper contract cases ({sum(len(c['txs']) for c in contract_cases)} transactions) agree")

    seeds = [args.seed] + [random.SystemRandom().randrange(2**32) for _ in range(args.random_seeds)]
    total = 0
    for seed in seeds:
        rng = random.Random(seed)
        structured = [evmgen.case(rng, f"seed{seed}-case{i}") for i in range(args.cases)]
        if not run_batch(args.hubd, structured, args.failures):
            print(f"difftest: seed {seed} FAILED (rerun: --seed {seed} --random-seeds 0)")
            sys.exit(1)
        total += len(structured)
        print(f"difftest: seed {seed}: {len(structured)} random programs agree", flush=True)
    print(f"difftest: {total} random programs and {len(contract_cases)} contract cases agree in {time.monotonic() - started:.1f}s")


if __name__ == "__main__":
    main()
