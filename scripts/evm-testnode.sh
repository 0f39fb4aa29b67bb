#!/usr/bin/env bash
# The EVM test node: a stand-in for an Ethereum node (geth, Kaia) that the EVM rail's tests talk to,
# py-evm through eth-tester behind JSON-RPC (tools/evmnode/node.py; its docstring lists the methods
# and how a test drives mining, reorganisations and downtime). Makes or reuses the pinned venv in
# .build-evmnode/venv (tools/evmnode/requirements.txt, wheels only), then runs the node.
# Usage: scripts/evm-testnode.sh [--port 0] [--chain-id 31337] [--no-automine] [--fund 0xADDR=WEI ...]
#        scripts/evm-testnode.sh --self-test   (tools/evmnode/test_node.py: web3.py against the node)
# The node prints `listening on http://127.0.0.1:PORT` on stdout once it listens; SIGTERM stops it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "evm-testnode.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}
source "$root/scripts/lib/live-hubd.bash"
export no_proxy=127.0.0.1${no_proxy:+,$no_proxy} NO_PROXY=127.0.0.1${NO_PROXY:+,$NO_PROXY}

venv=$root/.build-evmnode/venv
pinned_venv "$venv" tools/evmnode/requirements.txt

if [[ ${1:-} == --self-test ]]; then
    shift
    exec "$venv/bin/python" tools/evmnode/test_node.py "$@"
fi
exec "$venv/bin/python" tools/evmnode/node.py "$@"
