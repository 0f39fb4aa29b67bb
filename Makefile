# Entry points; the scripts in scripts/ do the work.
# Extra arguments: make test ARGS="--filter LedgerTests"

ARGS ?=

.DEFAULT_GOAL := build
.PHONY: test evm-difftest evm-contracts evm-testnode bench-evm bench-evm-market contract-test browser-test security-attacks run bench-ledger bench-http bench-ble-sessions bench-substrate bench-scale bench-fanout bench-chainkit bench-json build format lint

test:
	bash scripts/test.sh $(ARGS)

evm-difftest:
	bash scripts/evm-difftest.sh $(ARGS)

# The EVM test node's self-test (tools/evmnode; the node itself: bash scripts/evm-testnode.sh --port 0).
evm-testnode:
	bash scripts/evm-testnode.sh --self-test

# Regenerates contracts/evm's artifacts (build/*.json, CompiledContracts.swift, README tables) and
# runs the contract tests; CI runs it with --check.
evm-contracts:
	bash scripts/evm-contracts.sh $(ARGS)

contract-test:
	bash scripts/contract-test.sh $(ARGS)

browser-test:
	bash scripts/browser-test.sh

security-attacks:
	bash scripts/security-attacks.sh

run:
	bash scripts/install-deps.sh --no-postgres
	swift run -c release hubd serve $(ARGS)

bench-ledger:
	bash scripts/bench-ledger.sh $(ARGS)

bench-http:
	bash scripts/bench-http.sh

bench-ble-sessions:
	bash scripts/bench-ble-sessions.sh

bench-substrate:
	bash scripts/bench-substrate.sh

bench-scale:
	bash scripts/bench-scale.sh

bench-fanout:
	bash scripts/bench-fanout.sh

build:
	swift build

# Rewrites files in place to the style of .swift-format.
format:
	swift format format -i -r Sources Tests bench fuzz

# The style check CI runs: any warning fails.
lint:
	swift format lint --strict -r Sources Tests bench fuzz

bench-chainkit:
	bash scripts/bench-chainkit.sh

bench-json:
	bash scripts/bench-json.sh

bench-localchain:
	bash scripts/bench-localchain.sh

bench-evm:
	bash scripts/bench-evm.sh

bench-evm-market:
	bash scripts/bench-evm-market.sh
