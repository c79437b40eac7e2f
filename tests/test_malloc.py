"""utils/malloc.py: with ``C2FSUM_MALLOC=keep``, freed blocks up to 64 MiB (or up to a given
size) are reused without new page faults and larger ones still go back to the OS; without it,
glibc's behaviour is left alone.

Each case runs in a fresh process (malloc settings are per process) that allocates, touches and
frees blocks through libc and reports the minor page faults and resident memory it saw."""

import json
import os
import subprocess
import sys

import pytest

CHILD = r"""
import ctypes, json, resource, sys
from c2fsum.utils.malloc import keep_freed_memory
took = keep_freed_memory(int(sys.argv[2]))
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

def rss_mib():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:")) / 1024

def cycle(size):
    p = libc.malloc(size)
    libc.memset(p, 1, size)  # touch every page
    libc.free(p)

size = int(sys.argv[1])
cycle(size)  # the first allocation faults its pages in whatever the setting
f0 = faults()
for _ in range(4):
    cycle(size)
before = rss_mib()
print(json.dumps({"took": took, "faults_per_cycle": (faults() - f0) / 4, "rss_mib": before}))
"""

MIB = 2**20


def _run(size: int, env_value: str | None, largest_block: int = 0) -> dict:
    env = dict(os.environ)
    env.pop("C2FSUM_MALLOC", None)
    if env_value is not None:
        env["C2FSUM_MALLOC"] = env_value
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(size), str(largest_block)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def _glibc() -> bool:
    import platform

    return platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not _glibc(), reason="the setting applies to glibc only")
def test_blocks_up_to_64_mib_are_reused_without_page_faults():
    size = 48 * MIB  # above glibc's 32 MiB mmap limit: mapped afresh every time by default
    pages = size / os.sysconf("SC_PAGE_SIZE")
    kept = _run(size, "keep")
    assert kept["took"] is True
    assert kept["faults_per_cycle"] < 0.01 * pages
    assert kept["rss_mib"] > 48  # the freed block stays resident, ready for the next one
    plain = _run(size, None)
    assert plain["took"] is False
    assert plain["faults_per_cycle"] > 0.9 * pages  # every cycle faults the whole block in again
    assert plain["rss_mib"] < 40  # and gave it back


@pytest.mark.skipif(not _glibc(), reason="the setting applies to glibc only")
def test_blocks_over_64_mib_still_go_back_to_the_os():
    size = 160 * MIB
    kept = _run(size, "keep")
    assert kept["took"] is True
    assert kept["faults_per_cycle"] > 0.9 * size / os.sysconf("SC_PAGE_SIZE")
    assert kept["rss_mib"] < 100  # not kept: it would fragment the heap and raise the peak RSS


@pytest.mark.skipif(not _glibc(), reason="the setting applies to glibc only")
def test_the_bound_follows_the_largest_recurring_block():
    size = 96 * MIB  # e.g. the generator's weight gradient at the paper's sizes
    kept = _run(size, "keep", largest_block=size)
    assert kept["faults_per_cycle"] < 0.01 * size / os.sysconf("SC_PAGE_SIZE")
    assert kept["rss_mib"] > 96
