"""HiGHS's own lines never reach standard output (the CLI writes JSON there).

On the 5,000-workload portfolio a sub-MIP heuristic printed
``HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();`` on standard output with ``disp``
off. It takes minutes to provoke, so these tests print from C while a solve has standard output silenced,
as HiGHS does. They run in a child process, whose standard output they read.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import ctypes, os, sys, threading
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint
    from economics.plan import _milp, _solver_output_silenced

    libc = ctypes.CDLL(None)
    def from_c(text):  # what HiGHS does: C's stdio on descriptor 1, flushed
        libc.printf(text.encode() + b"\\n")
        libc.fflush(None)

    print("before", flush=True)
    with _solver_output_silenced():
        from_c("solver line 1")
        with _solver_output_silenced():  # a second solve under way in the same process
            from_c("solver line 2")
        from_c("solver line 3")
    print("between", flush=True)

    started = threading.Barrier(2)
    def solve():
        with _solver_output_silenced():
            started.wait()
            from_c("solver line from a thread")
    threads = [threading.Thread(target=solve) for _ in range(2)]
    for t in threads: t.start()
    for t in threads: t.join()
    print("after threads", flush=True)

    # a real solve: maximise x + y with x + y <= 1.5, integers: 1
    res = _milp(np.array([-1.0, -1.0]), [LinearConstraint(np.ones((1, 2)), -np.inf, 1.5)],
                np.ones(2, dtype=np.uint8), Bounds(0, 1), 5.0)
    print("solved", res.status, round(float(np.sum(res.x))), flush=True)
    from_c("from C after the solve")
    """
)


def test_solver_lines_are_kept_off_standard_output_and_it_comes_back() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.splitlines() == ["before", "between", "after threads", "solved 0 1", "from C after the solve"]
