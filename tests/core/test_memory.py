"""core.memory: what glibc keeps of freed memory goes back to the system when asked."""

import subprocess
import sys
from pathlib import Path

import pytest

from core import memory

REPO = Path(__file__).resolve().parents[2]

# In a fresh process: free one 30 MB block (glibc then serves blocks up to 30 MB from its heap and keeps them
# once freed), then take, touch and free a 20 MB one; print how much of it the process still holds, in MB.
HELD_AFTER_FREE = """
import sys
from pathlib import Path
sys.path.insert(0, {repo!r})
from core import memory
def resident():
    return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0]) / 1024
del bytearray(30 << 20)[:]
before = resident()
block = bytearray(20 << 20)
del block
{after}
print(round(resident() - before))
"""


def held_after_free(after: str) -> int:
    script = HELD_AFTER_FREE.format(repo=str(REPO), after=after)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
    return int(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(memory._LIBC is None, reason="the C library is not glibc")
def test_freed_memory_glibc_keeps_is_given_back_when_asked() -> None:
    assert held_after_free("") >= 19
    assert held_after_free("assert memory.return_freed_memory()") <= 1
