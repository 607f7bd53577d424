"""The GPU: its limits (one table of the known parts, or read from the GPU), the sm_90
constants the kernels' resource models use, names and versions.

TVM-free (runs on the GPU machine). torch is optional: used only for the SM count and sizes that
nvidia-smi does not report.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from .errors import WinoError

_SMI_TIMEOUT_S = 60
WARP_SIZE = 32
REGISTER_FILE = 65536  # 32-bit registers a block may use, sm_70 .. sm_90
MAX_THREAD_REGISTERS = 255
MAX_SM_THREADS = 2048  # resident threads per SM, sm_80 .. sm_90
# sm_90 (H100, H200), the tuned target: shared memory per SM, reserved per resident block, and
# the carveouts the driver can pick (the rest of the SM's 256 KB is L1 cache).
SHARED_PER_SM = 228 * 1024
SHARED_RESERVED_PER_BLOCK = 1024
SHARED_CARVEOUTS = tuple(kb * 1024 for kb in (0, 8, 16, 32, 64, 100, 132, 164, 196, 228))
SHMEM_ALIGN = 128  # bytes; WMMA pointers need 32, and a warp group's slice starts a fresh line
# GPU code for wgmma and TMA needs the arch-specific target; it runs on sm_90 GPUs only.
WGMMA_ARCH = "sm_90a"


def shmem_aligned(size: int) -> int:
    return -(-size // SHMEM_ALIGN) * SHMEM_ALIGN


def shared_residency(block_bytes: int) -> tuple[int, int]:
    """(blocks per SM, carveout in bytes) shared memory gives blocks of block_bytes on sm_90."""
    per_block = block_bytes + SHARED_RESERVED_PER_BLOCK
    blocks = SHARED_PER_SM // per_block
    return blocks, next(c for c in SHARED_CARVEOUTS if c >= blocks * per_block)


def shared_wavefronts(lane_offsets: list[int], access_bytes: int) -> int:
    """Wavefronts of one warp's shared-memory access at these byte offsets: lanes in phases of
    128 bytes, each phase as many as the most distinct 4-byte words one of the 32 banks serves."""
    phase = min(WARP_SIZE, 128 // access_bytes)
    total = 0
    for start in range(0, len(lane_offsets), phase):
        bank_words: dict[int, set[int]] = {}
        for offset in lane_offsets[start:start + phase]:
            for word in range(offset // 4, (offset + access_bytes - 1) // 4 + 1):
                bank_words.setdefault(word % 32, set()).add(word)
        total += max(len(words) for words in bank_words.values())
    return total


@dataclass(frozen=True)
class DeviceLimits:
    """What a config must fit: SM count, shared memory per block (opt-in), L2 size, and the
    compute capability (90: sm_90, where wgmma and TMA run)."""

    name: str
    sms: int
    smem_per_block: int
    l2_bytes: int
    sm: int = 90


# Datasheet values; the tuner and the runtime read the real ones from the GPU when one is present.
KNOWN_DEVICES = {
    "h100": DeviceLimits("NVIDIA H100", 132, 227 * 1024, 50 * 1024 * 1024),
    "h200": DeviceLimits("NVIDIA H200", 132, 227 * 1024, 60 * 1024 * 1024),
    "a100": DeviceLimits("NVIDIA A100", 108, 163 * 1024, 40 * 1024 * 1024, 80),
    "rtx2080ti": DeviceLimits("NVIDIA GeForce RTX 2080 Ti", 68, 64 * 1024, 5632 * 1024, 75),
}


@dataclass(frozen=True)
class Gpu:
    """One visible GPU as nvidia-smi reports it; `select` is its CUDA_VISIBLE_DEVICES value."""

    select: str
    name: str
    driver: str


def _normal(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def known_device(name: str) -> DeviceLimits | None:
    """The KNOWN_DEVICES entry whose key appears in name ('NVIDIA H100 80GB HBM3' -> h100)."""
    hits = [limits for key, limits in KNOWN_DEVICES.items() if key in _normal(name)]
    return hits[0] if len(hits) == 1 else None


def device_matches(query: str, device_name: str) -> bool:
    """True when query (a driver name or a short key such as 'h100') names device_name."""
    return bool(query) and _normal(query) in _normal(device_name)


def visible_gpus() -> list[Gpu]:
    """The GPUs this process may use, in CUDA order, honouring CUDA_VISIBLE_DEVICES."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        proc = subprocess.run(
            [smi, "--query-gpu=index,uuid,name,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=_SMI_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if proc.returncode != 0:
        return []
    rows = [[f.strip() for f in line.split(",")] for line in proc.stdout.splitlines() if line]
    gpus = {index: Gpu(index, name, driver) for index, _, name, driver in rows}
    by_uuid = {uuid: gpus[index] for index, uuid, _, _ in rows}
    selected = os.environ.get("CUDA_VISIBLE_DEVICES")
    if selected is None:
        return list(gpus.values())
    # CUDA stops at the first entry it cannot resolve; so do we.
    out = []
    for entry in (e.strip() for e in selected.split(",")):
        gpu = gpus.get(entry) or by_uuid.get(entry)
        if gpu is None:
            break
        out.append(gpu)
    return out


def _torch_limits() -> DeviceLimits | None:
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(0)
    table = known_device(props.name)
    # Older torch releases do not expose the opt-in limit; the datasheet value is the same.
    smem = getattr(props, "shared_memory_per_block_optin", None) or (
        table.smem_per_block if table else None
    )
    l2 = getattr(props, "L2_cache_size", None) or (table.l2_bytes if table else None)
    if smem is None or l2 is None:
        return None
    return DeviceLimits(props.name, props.multi_processor_count, smem, l2,
                        10 * props.major + props.minor)


def gpu_limits() -> DeviceLimits | None:
    """Limits of the first visible GPU: torch's properties, else nvidia-smi's name looked up in
    KNOWN_DEVICES; None without a GPU (or an unknown one without torch)."""
    limits = _torch_limits()
    if limits is not None:
        return limits
    gpus = visible_gpus()
    table = known_device(gpus[0].name) if gpus else None
    return dataclasses.replace(table, name=gpus[0].name) if table else None


def resolve_limits(
    device: str | None = None,
    sms: int | None = None,
    smem: int | None = None,
    l2: int | None = None,
) -> DeviceLimits:
    """--device KEY picks the table entry (what to tune for, GPU or not); without it the GPU's
    own limits; --sms/--smem/--l2 override single fields, or give all three with neither."""
    if device is not None:
        if device not in KNOWN_DEVICES:
            raise WinoError(
                f"unknown --device {device!r}: choose one of {', '.join(KNOWN_DEVICES)} "
                "or give --sms, --smem and --l2"
            )
        base = KNOWN_DEVICES[device]
    else:
        base = gpu_limits()
    if base is None:
        if None in (sms, smem, l2):
            raise WinoError(
                "no GPU here to read limits from: pass --device "
                f"({', '.join(KNOWN_DEVICES)}) or all of --sms, --smem and --l2"
            )
        return DeviceLimits("custom", sms, smem, l2)
    overrides = {"sms": sms, "smem_per_block": smem, "l2_bytes": l2}
    return dataclasses.replace(base, **{k: v for k, v in overrides.items() if v is not None})


def nvcc_version() -> str:
    """e.g. '13.0.88', from nvcc --version ('unknown' if it prints no version)."""
    from .runner import find_nvcc

    proc = subprocess.run([find_nvcc(), "--version"], capture_output=True, text=True)
    match = re.search(r"release [\d.]+, V([\d.]+)", proc.stdout)
    return match.group(1) if match else "unknown"
