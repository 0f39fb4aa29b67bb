#!/usr/bin/env bash
# The whole test suite: installs dependencies, provides PostgreSQL, runs `swift test`.
# Usage: scripts/test.sh [swift test arguments...]
# Set HUB_TEST_POSTGRES_URL to use an existing database instead of a throwaway cluster.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/install-deps.sh

if [[ -z ${HUB_TEST_POSTGRES_URL:-} ]]; then
    pgdir=$(mktemp -d "${TMPDIR:-/tmp}/hub-test-pg.XXXXXX")
    # Stop the cluster however we leave; turn INT/TERM into a normal exit so the EXIT trap runs.
    trap 'bash "$root/scripts/pg-throwaway.sh" stop "$pgdir" || true' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    HUB_TEST_POSTGRES_URL=$(bash scripts/pg-throwaway.sh start "$pgdir" 54329)
    export HUB_TEST_POSTGRES_URL
fi

echo "test.sh: tests use PostgreSQL at $HUB_TEST_POSTGRES_URL"

status=0
swift test "$@" || status=$?
echo "test.sh: swift test exited with status $status"
exit "$status"
