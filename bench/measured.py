"""What a measured process reports: its peak resident set, read from /proc. Standard
library only, so that a process the benchmarks time as `ladderbot` (command_process)
imports nothing the command itself would not."""

from __future__ import annotations

import sys


def status_bytes(field: str) -> int:
    """A size this process's /proc status gives (VmRSS: resident now; VmHWM: peak resident,
    which unlike ru_maxrss is not inherited from the parent that forked it)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/self/status has no {field} line")


PEAK_MARK = "peak_resident_bytes="
"""How a measured process names its peak resident set on stderr as it exits."""


def peak_resident_bytes() -> int:
    return status_bytes("VmHWM")


def command_process() -> None:
    """The measured process (`python -c`): `ladderbot ARG...` through bot.cli.main, then
    its peak resident set (VmHWM, see status_bytes) on stderr."""
    from bot.cli import main

    status = main(sys.argv[1:])
    print(f"{PEAK_MARK}{peak_resident_bytes()}", file=sys.stderr)
    sys.exit(status)
