"""The machine a benchmark ran on, as the results files record it: cores, CPU model, memory, system."""
import os
import platform


def machine() -> str:
    memory = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal:")), 0) // (1024 * 1024)
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown CPU")
    system = platform.system()
    if os.path.exists("/etc/os-release"):
        system = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release") if l.startswith("PRETTY_NAME=")), system)
    return f"{os.cpu_count()} cores ({model}), {memory} GiB, {system}"
