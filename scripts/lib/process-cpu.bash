# process_cpu_ticks PID: the CPU time (user + system, in clock ticks: `getconf CLK_TCK` a second)
# process PID has used so far, or 0 when it is gone. The benchmarks saturate the machine's cores,
# so CPU per request is a steadier measure than requests per second there.
process_cpu_ticks() {
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
