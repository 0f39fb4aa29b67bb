#!/usr/bin/env python3
"""Compiles the local chain's test contracts with the pinned vyper (tools/evm/requirements.txt)
into <name>.json ({"contract", "vyper", "abi", "bytecode"}), or with --check verifies that the
committed artifacts are exactly what this compiler makes of the sources.

Usage: compile.py [--check]   (run with the venv of tools/evm/requirements.txt)
"""
import json
import pathlib
import sys

import vyper
from vyper.compiler import compile_code

HERE = pathlib.Path(__file__).resolve().parent
CONTRACTS = ["EventToken.vy", "Escrow.vy"]


def artifact(source_path):
    source = source_path.read_text()
    out = compile_code(source, output_formats=["abi", "bytecode"])
    return {"contract": source_path.name, "vyper": vyper.__version__, "abi": out["abi"], "bytecode": out["bytecode"]}


def main():
    check = "--check" in sys.argv[1:]
    failed = False
    for name in CONTRACTS:
        fresh = json.dumps(artifact(HERE / name), indent=2, sort_keys=True) + "\n"
        target = HERE / (pathlib.Path(name).stem + ".json")
        if check:
            if not target.exists() or target.read_text() != fresh:
                print(f"compile.py: {target.name} is not what vyper {vyper.__version__} makes of {name}", file=sys.stderr)
                failed = True
        else:
            target.write_text(fresh)
            print(f"compile.py: wrote {target.name}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
