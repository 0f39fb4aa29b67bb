# Sourced by test.sh and bench-ledger.sh: start a throwaway PostgreSQL cluster for this run and
# stop it however the script exits.
# Usage: start_throwaway_postgres PORT NAME  → sets THROWAWAY_POSTGRES_URL

start_throwaway_postgres() {
    local port=$1 name=$2 here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    throwaway_pgdir=$(mktemp -d "${TMPDIR:-/tmp}/hub-$name-pg.XXXXXX")
    # Stop the cluster however we leave; turn INT/TERM into a normal exit so the EXIT trap runs.
    # shellcheck disable=SC2064  # expand now: the trap must name this run's folder.
    trap "bash '$here/pg-throwaway.sh' stop '$throwaway_pgdir' || true" EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # shellcheck disable=SC2034  # read by the script that sources this file
    THROWAWAY_POSTGRES_URL=$(bash "$here/pg-throwaway.sh" start "$throwaway_pgdir" "$port")
}
