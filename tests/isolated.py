"""Running a piece of Python in a child process under a memory limit and a time limit.

A test of hostile input must survive the bug it guards against: a segmentation fault, an
allocation of tens of gigabytes, or a hang would otherwise take the whole test run down. The
child imports nbayes, warms it up, then limits its address space to what it uses plus ``extra``
bytes (``resource.setrlimit(RLIMIT_AS)``), so an allocation far beyond that fails with
MemoryError instead of exhausting the machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")

PRELUDE = """
import resource, sys
import numpy as np
import nbayes
from nbayes import persist

def _size():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0

_X = np.arange(40).reshape(20, 2) % 3
nbayes.CategoricalNB().fit(_X, _X[:, 0]).predict_proba(_X)
if {extra} > 0:
    _limit = _size() + {extra}
    resource.setrlimit(resource.RLIMIT_AS, (_limit, _limit))
"""


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str


def run_python(
    code: str, *, extra: int = 2**30, timeout: float = 120.0, env: dict | None = None
) -> Outcome:
    """Run ``code`` (after the prelude) in a fresh interpreter; a crash shows as a negative
    return code (the signal), a hang as TimeoutExpired. ``env`` adds environment variables."""
    env = dict(os.environ, **(env or {}))
    env["PYTHONPATH"] = SRC + os.pathsep + os.environ.get("PYTHONPATH", "")
    source = PRELUDE.format(extra=int(extra)) + textwrap.dedent(code)
    result = subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    return Outcome(result.returncode, result.stdout, result.stderr)
