"""core.memory: freed large blocks go back to the system, where the C library is glibc."""

import subprocess
import sys
from pathlib import Path

import pytest

from core import memory

REPO = Path(__file__).resolve().parents[2]

# In a fresh process: free one 30 MB block (glibc then serves blocks up to 30 MB from its heap), then take,
# touch and free a 20 MB one; print how much of it the process still holds, in MB.
HELD_AFTER_FREE = """
import sys
from pathlib import Path
sys.path.insert(0, {repo!r})
{setup}
def resident():
    return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0]) / 1024
del bytearray(30 << 20)[:]
before = resident()
block = bytearray(20 << 20)
del block
print(round(resident() - before))
"""

needs_glibc = pytest.mark.skipif(memory._LIBC is None, reason="the C library is not glibc")


def held_after_free(setup: str) -> int:
    script = HELD_AFTER_FREE.format(repo=str(REPO), setup=setup)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
    return int(done.stdout.strip().splitlines()[-1])


@needs_glibc
def test_a_freed_large_block_is_given_back_with_the_threshold_fixed() -> None:
    assert held_after_free("") >= 19  # glibc's own threshold: kept in its heap
    assert held_after_free("from core import memory; assert memory.map_large_blocks()") <= 1


@needs_glibc
def test_the_service_fixes_it_as_django_starts() -> None:
    setup = "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'pragmatikos.settings'); django.setup()"
    assert held_after_free(setup) <= 1
