"""CPU of the iostat and vmstat readers on long files built from the project's real samples (process_time, best of 3).

Run: python benchmarks/parse/ostats_cpu.py. For a base tree, put it first on the path and keep the venv's
editable install out: ``PYTHONPATH=<base>:<venv site-packages> python -S benchmarks/parse/ostats_cpu.py``.
"""

from __future__ import annotations

import time
from pathlib import Path

import planner
from planner.parsers import ostats

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "ostats"


def best_of_3(parse: object, text: str) -> tuple[float, int]:
    runs, count = [], 0
    for _ in range(3):
        t = time.process_time()
        count = len(parse(text).metrics)  # type: ignore[operator]
        runs.append(time.process_time() - t)
    return min(runs), count


def main() -> None:
    io = (DATA / "iostat-x-t.txt").read_text()
    io_text = io + ("\n" + io.split("\n", 2)[2]) * 4000
    vm = (DATA / "vmstat-t.txt").read_text()
    vm_text = vm + ("\n" + "\n".join(vm.split("\n")[3:])) * 20000
    io_cpu, io_values = best_of_3(ostats.parse_iostat, io_text)
    vm_cpu, vm_values = best_of_3(ostats.parse_vmstat, vm_text)
    print(f"{Path(planner.__file__).parents[1].name}: iostat {io_text.count(chr(10))} lines {io_values} values "
          f"{io_cpu:.3f} s; vmstat {vm_text.count(chr(10))} lines {vm_values} values {vm_cpu:.3f} s")


if __name__ == "__main__":
    main()
