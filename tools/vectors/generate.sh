#!/usr/bin/env bash
# Golden vectors for ChainKit, the kernel's webhook signer and the BLE advertising data: regenerate
# Tests/Fixtures/vectors/*.json, or check them.
#
#   bash tools/vectors/generate.sh           # (re)create the venvs if needed, regenerate the files
#   bash tools/vectors/generate.sh --check   # regenerate into a temp dir, diff against the
#                                            # committed files; exit 1 on any difference
#
# One venv per oracle set (the eth and substrate sets conflict: eth-utils 6 vs <6):
#   tools/vectors/.venv-eth       <- requirements-eth.txt        (runs gen_eth.py)
#   tools/vectors/.venv-sub       <- requirements-substrate.txt  (runs gen_substrate.py)
#   tools/vectors/.venv-webhooks  <- requirements-webhooks.txt   (runs gen_webhooks.py)
#   tools/vectors/.venv-ble       <- requirements-ble.txt        (runs gen_ble.py)
#   tools/vectors/.venv-trie      <- requirements-trie.txt       (runs gen_state_root.py)
# A venv is rebuilt from scratch (--clear) when it is missing or its requirements file
# changed since it was built. Installs use PyPI wheels only (--only-binary :all:).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/Tests/Fixtures/vectors"
PYTHON=${PYTHON:-python3}
export PYTHONDONTWRITEBYTECODE=1

mode=generate
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "generate.sh: unknown argument '$1' (use --check or nothing)" >&2; exit 2 ;;
esac

ensure_venv() {
  local venv="$HERE/.venv-$1" req="$HERE/$2"
  local want have=""
  want=$(sha256sum "$req" | cut -d' ' -f1)
  [ -f "$venv/.requirements.sha256" ] && have=$(cat "$venv/.requirements.sha256")
  if [ -x "$venv/bin/python" ] && [ "$have" = "$want" ]; then
    return 0
  fi
  echo "generate.sh: building $venv from $2" >&2
  "$PYTHON" -m venv --clear "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: -r "$req"
  echo "$want" > "$venv/.requirements.sha256"
}

ensure_venv eth requirements-eth.txt
ensure_venv sub requirements-substrate.txt
ensure_venv webhooks requirements-webhooks.txt
ensure_venv ble requirements-ble.txt
ensure_venv trie requirements-trie.txt

run_generators() {  # $1 = output dir; committed files are always the --reuse source
  (cd "$HERE" && "$HERE/.venv-eth/bin/python" gen_eth.py --out "$1" --reuse "$OUT")
  (cd "$HERE" && "$HERE/.venv-sub/bin/python" gen_substrate.py --out "$1" --reuse "$OUT")
  (cd "$HERE" && "$HERE/.venv-webhooks/bin/python" gen_webhooks.py --out "$1" --reuse "$OUT")
  (cd "$HERE" && "$HERE/.venv-ble/bin/python" gen_ble.py --out "$1" --reuse "$OUT")
  (cd "$HERE" && "$HERE/.venv-trie/bin/python" gen_state_root.py --out "$1" --reuse "$OUT")
}

if [ "$mode" = generate ]; then
  mkdir -p "$OUT"
  run_generators "$OUT"
  echo "generate.sh: vectors written to $OUT" >&2
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_generators "$tmp" 2>"$tmp.log" || { cat "$tmp.log" >&2; rm -f "$tmp.log"; exit 1; }
rm -f "$tmp.log"

status=0
committed=$(cd "$OUT" 2>/dev/null && ls -1 -- *.json 2>/dev/null | sort || true)
fresh=$(cd "$tmp" && ls -1 -- *.json | sort)
if [ "$committed" != "$fresh" ]; then
  echo "generate.sh --check: the set of JSON files differs" >&2
  diff <(echo "$committed") <(echo "$fresh") | sed 's/^/  /' >&2 || true
  status=1
fi
for f in $fresh; do
  if [ -f "$OUT/$f" ] && ! cmp -s "$OUT/$f" "$tmp/$f"; then
    echo "generate.sh --check: $f differs from a fresh generation:" >&2
    diff -u "$OUT/$f" "$tmp/$f" | head -n 60 >&2 || true
    status=1
  fi
done
if [ "$status" -eq 0 ]; then
  echo "generate.sh --check: $(echo "$fresh" | wc -l) vector files match a fresh generation" >&2
fi
exit "$status"
