# die_with_logs MESSAGE FOLDER...: says MESSAGE (with the script's own `say`), then the last 15
# lines of every *.log in each FOLDER (the logs of the hubd instances and other processes a
# multi-process test started), and exits 1. A folder that is not there yet is skipped.
die_with_logs() {
    local message=$1 folder log
    shift
    say "$message"
    for folder in "$@"; do
        for log in "$folder"/*.log; do
            [[ -f $log ]] || continue
            say "--- $log (last 15 lines)"
            tail -n 15 "$log" >&2 || true
        done
    done
    exit 1
}
