"""`python -m bench [NAME ...] [--quick] [--write]`: run the benchmarks, print one table each."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence

from bench.harness import code_version, machine

BENCHMARKS = {
    "replay": "bench.replay",
    "performance": "bench.performance",
    "service": "bench.service",
    "balance": "bench.balance",
    "responsiveness": "bench.responsiveness",
    "processes": "bench.processes",
    "scale": "bench.scale",
    "evaluate": "bench.evaluation",
    "queues": "bench.queues",
    "web": "bench.web",
    "web-isolation": "bench.web_isolation",
    "webhooks": "bench.webhooks",
}
"""Benchmark name -> module with `run(quick: bool) -> list[Table] | Table`."""
RESULTS_PATH = "bench/RESULTS.md"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"run only these: {', '.join(BENCHMARKS)}"
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a quick look")
    parser.add_argument("--write", action="store_true", help=f"also write {RESULTS_PATH}")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r}: choose from {', '.join(BENCHMARKS)}")
    names = args.names or list(BENCHMARKS)
    header = f"Machine: {machine()}\nCode: {code_version()}\n"
    print(header, flush=True)
    sections = [header]
    started = time.perf_counter()
    for name in names:
        tables = importlib.import_module(BENCHMARKS[name]).run(args.quick)
        for table in tables if isinstance(tables, list) else [tables]:
            text = table.render()
            print(text, flush=True)
            sections.append(text)
    footer = f"Total time: {time.perf_counter() - started:.0f} s"
    print(footer)
    if args.write:
        command = " ".join(["python -m bench", *(argv if argv is not None else sys.argv[1:])])
        with open(RESULTS_PATH, "w", encoding="utf-8") as results:
            results.write(
                f"# Benchmark results\n\nReproduce with `{command}` from the "
                "repository root.\n\n" + "\n".join(sections) + f"\n{footer}\n"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
