"""Shared helpers for the golden-vector generators (standard library only).

Both gen_eth.py and gen_substrate.py import this module; each runs in its own
virtual environment, so nothing here may import a third-party package.

Conventions enforced by `write_vectors`:
  * bytes are lowercase hex strings with a `0x` prefix ("0x" is the empty byte string);
  * integers that can exceed 2^53 are decimal strings; a JSON number is only used for
    small counters (lengths, recovery ids, prefixes, type bytes, ...), and the writer
    refuses any JSON number outside +/-2^53;
  * every file is {"generator", "oracle_versions", "vectors"}; every vector has a
    unique "name";
  * output is pretty-printed with sorted keys, ASCII only, and ends with a newline.
"""
import argparse
import importlib.metadata
import json
import os
import re
import sys

_HEX_RE = re.compile(r"^0x[0-9a-f]*$")
# Fields whose values legitimately contain mixed-case hex (EIP-55 checksummed
# addresses) or free text that happens to start with "0x".
_MIXED_CASE_OK = ("_checksummed",)
_FREE_FORM_KEYS = ("typed_data", "keystore", "mnemonic", "message_utf8", "input_utf8", "note", "reason")


def hx(data) -> str:
    """Bytes (or a list of ints) as lowercase 0x-prefixed hex."""
    return "0x" + bytes(data).hex()


def unhex(s: str) -> bytes:
    return bytes.fromhex(s[2:] if s.startswith("0x") else s)


def dec(value: int) -> str:
    """A (possibly big) integer as a decimal string."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"dec() wants an int, got {value!r}")
    return str(value)


def versions(*packages) -> dict:
    """Installed versions of the oracle packages, keyed by their PyPI names."""
    return {p: importlib.metadata.version(p) for p in packages}


def parse_args(description: str):
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.normpath(os.path.join(here, "..", "..", "Tests", "Fixtures", "vectors"))
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", default=default_out, help="directory the JSON files are written to")
    ap.add_argument(
        "--reuse",
        default=default_out,
        help="directory holding the committed files; oracle-randomized values (sr25519 "
        "signatures) found there are kept if the oracle still verifies them",
    )
    return ap.parse_args()


def load_previous(reuse_dir: str, filename: str) -> dict:
    """name -> vector from a previously written file, or {} if there is none."""
    path = os.path.join(reuse_dir, filename)
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return {v["name"]: v for v in doc.get("vectors", [])}


def _check(node, path, free=False):
    """Enforce the conventions above; `free` marks a subtree of free-form text."""
    if isinstance(node, dict):
        for k, v in node.items():
            if not isinstance(k, str):
                raise ValueError(f"{path}: non-string key {k!r}")
            _check(v, f"{path}.{k}", free or k in _FREE_FORM_KEYS or k.endswith(_MIXED_CASE_OK))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _check(v, f"{path}[{i}]", free)
    elif isinstance(node, bool) or node is None:
        pass
    elif isinstance(node, int):
        if abs(node) >= 2**53:
            raise ValueError(f"{path}: integer {node} too big for a JSON number; use dec()")
    elif isinstance(node, float):
        raise ValueError(f"{path}: floats are not allowed")
    elif isinstance(node, str):
        if not free and node[:2] in ("0x", "0X"):
            if not _HEX_RE.match(node) or len(node) % 2:
                raise ValueError(f"{path}: hex string not lowercase/even-length: {node[:80]}")
    elif isinstance(node, (bytes, bytearray)):
        raise ValueError(f"{path}: raw bytes left in output; use hx()")
    else:
        raise ValueError(f"{path}: unsupported type {type(node).__name__}")


def write_vectors(out_dir: str, filename: str, generator: str, oracle_versions: dict, vectors: list):
    names = [v.get("name") for v in vectors]
    if any(not isinstance(n, str) or not n for n in names):
        raise ValueError(f"{filename}: every vector needs a non-empty name")
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ValueError(f"{filename}: duplicate vector names {sorted(dupes)}")
    doc = {"generator": generator, "oracle_versions": oracle_versions, "vectors": vectors}
    _check(doc, filename)
    text = json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=True) + "\n"
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, filename)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"wrote {path}: {len(vectors)} vectors, {len(text)} bytes", file=sys.stderr)
