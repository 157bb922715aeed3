"""Compile kernel sources to fatbins with nvcc, through a content-addressed on-disk cache.

A cache entry is <entry>-<key>.fatbin plus a <entry>-<key>.json sidecar holding the fatbin's sha256 and size;
the key is a sha256 over the source, `nvcc --version`, the flags and the arch. Entries are written to temp
files and os.replace()d into place under a per-key file lock, so concurrent builds leave one valid entry.
"""
import fcntl
import functools
import hashlib
import importlib.metadata
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .kernels import KernelConfig, generate_source, nvcc_arch

ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a")

# Last place to look for nvcc, after $CUDACXX and PATH.
FALLBACK_NVCC = pathlib.Path("/usr/local/cuda/bin/nvcc")

NVCC_NOT_FOUND = "nvcc not found: install the CUDA toolkit or set CUDACXX / put nvcc on PATH"


class KernelBuildError(Exception):
    """nvcc is missing or failed, or the cache is unusable; the message is one line."""


@dataclass(frozen=True)
class BuiltKernel:
    path: pathlib.Path
    entry: str
    format: str  # "fatbin"


def default_cache_dir() -> pathlib.Path:
    """$IREE_CUTLASS_CACHE_DIR, else ~/.cache/iree-cutlass."""
    env = os.environ.get("IREE_CUTLASS_CACHE_DIR")
    if env:
        return pathlib.Path(env)
    return pathlib.Path.home() / ".cache" / "iree-cutlass"


def find_nvcc() -> pathlib.Path:
    """$CUDACXX if set, else nvcc on PATH, else FALLBACK_NVCC."""
    env = os.environ.get("CUDACXX")
    if env:
        path = pathlib.Path(env)
        if path.is_file() and os.access(path, os.X_OK):
            return path
        raise KernelBuildError(f"CUDACXX={env} is not an executable file: {NVCC_NOT_FOUND}")
    on_path = shutil.which("nvcc")
    if on_path:
        return pathlib.Path(on_path)
    if FALLBACK_NVCC.is_file() and os.access(FALLBACK_NVCC, os.X_OK):
        return FALLBACK_NVCC
    raise KernelBuildError(NVCC_NOT_FOUND)


@functools.lru_cache(maxsize=None)
def _nvcc_version(nvcc: str, mtime_ns: int) -> str:
    # mtime in the cache key of this memo: a reinstalled toolkit at the same path is asked again.
    try:
        result = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False)
    except OSError as error:
        raise KernelBuildError(f"cannot run {nvcc}: {error.strerror}") from None
    if result.returncode != 0:
        raise KernelBuildError(f"{nvcc} --version failed with exit code {result.returncode}")
    return result.stdout


def cutlass_include_dir() -> pathlib.Path:
    """CUTLASS's include/ from the nvidia-cutlass wheel."""
    try:
        import cutlass_library
    except ImportError:
        raise KernelBuildError("CUTLASS headers not found: pip install nvidia-cutlass") from None
    path = pathlib.Path(cutlass_library.__file__).parent / "source" / "include"
    if not (path / "cutlass" / "cutlass.h").is_file():
        raise KernelBuildError(f"CUTLASS headers not found under {path}")
    return path


def _cutlass_version() -> str:
    try:
        return importlib.metadata.version("nvidia-cutlass")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def nvcc_flags(arch: str) -> list[str]:
    """The nvcc flags for `arch`: a fatbin with the arch's SASS and its PTX (for the driver to JIT later)."""
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")
    compute = "compute_" + arch[len("sm_"):]
    return [
        "-std=c++17", "--expt-relaxed-constexpr", "-DNDEBUG", "-O3",
        f"-I{cutlass_include_dir()}",
        "-fatbin", "-gencode", f"arch={compute},code=[{arch},{compute}]",
    ]


@dataclass(frozen=True)
class _Job:
    config: KernelConfig
    source: str
    flags: tuple[str, ...]
    nvcc: pathlib.Path
    fatbin: pathlib.Path
    sidecar: pathlib.Path
    lock: pathlib.Path


def _make_job(config: KernelConfig, target_arch: str, cache_dir: pathlib.Path, nvcc: pathlib.Path) -> _Job:
    arch = nvcc_arch(config, target_arch)
    source = generate_source(config)
    flags = tuple(nvcc_flags(arch))
    version = _nvcc_version(str(nvcc), nvcc.stat().st_mtime_ns)
    key_material = json.dumps(
        {"source": source, "nvcc_version": version, "flags": flags, "arch": arch, "cutlass": _cutlass_version()},
        sort_keys=True,
    )
    key = hashlib.sha256(key_material.encode()).hexdigest()[:32]
    stem = f"{config.name}-{arch}-{key}"
    return _Job(config, source, flags, nvcc, cache_dir / f"{stem}.fatbin", cache_dir / f"{stem}.json",
                cache_dir / f"{stem}.lock")


def _sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _entry_is_valid(output: pathlib.Path, sidecar: pathlib.Path) -> bool:
    """A cache entry exists and its output matches the sidecar's size and sha256 (so damage is rebuilt)."""
    try:
        meta = json.loads(sidecar.read_text())
        return output.stat().st_size == meta["size"] and _sha256(output) == meta["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _is_valid(job: _Job) -> bool:
    return _entry_is_valid(job.fatbin, job.sidecar)


def _built(job: _Job) -> BuiltKernel:
    return BuiltKernel(path=job.fatbin, entry=job.config.name, format="fatbin")


def _ensure_cache_dir(cache_dir: pathlib.Path) -> None:
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=cache_dir, prefix=".probe-", delete=True)
        probe.close()
    except OSError as error:
        raise KernelBuildError(f"kernel cache directory {cache_dir} is not writable: {error.strerror}") from None


def _first_error_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower():
            return line
    return lines[0] if lines else "no output"


def _nvcc_into_cache(nvcc: pathlib.Path, flags: Iterable[str], source: str, source_name: str, what: str,
                     output: pathlib.Path, sidecar: pathlib.Path, meta: dict, suffix: str = "",
                     executable: bool = False) -> None:
    """Run nvcc on `source` (as `source_name`) into a temp file in the cache dir, then publish it as `output` and
    its sidecar (sha256, size and `meta`) atomically; `what` names it in errors."""
    cache_dir = output.parent
    with tempfile.TemporaryDirectory(prefix="iree-cutlass-") as work:
        source_path = pathlib.Path(work) / source_name
        source_path.write_text(source)
        fd, tmp_output = tempfile.mkstemp(dir=cache_dir, prefix=".tmp-", suffix=suffix)
        os.close(fd)
        try:
            command = [str(nvcc), *flags, str(source_path), "-o", tmp_output]
            try:
                result = subprocess.run(command, capture_output=True, text=True, check=False)
            except OSError as error:
                raise KernelBuildError(f"cannot run {nvcc}: {error.strerror}") from None
            if result.returncode != 0:
                line = _first_error_line(result.stderr + "\n" + result.stdout)
                raise KernelBuildError(f"nvcc failed for {what}: {line}")
            data = pathlib.Path(tmp_output).read_bytes()
            if not data:
                raise KernelBuildError(f"nvcc wrote an empty {suffix.lstrip('.') or 'file'} for {what}")
            fd, tmp_sidecar = tempfile.mkstemp(dir=cache_dir, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w") as handle:
                json.dump({"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), **meta}, handle)
            if executable:
                os.chmod(tmp_output, 0o755)
            os.replace(tmp_output, output)
            os.replace(tmp_sidecar, sidecar)
        finally:
            if os.path.exists(tmp_output):
                os.unlink(tmp_output)


def _compile(job: _Job) -> None:
    _nvcc_into_cache(job.nvcc, job.flags, job.source, f"{job.config.name}.cu", job.config.name, job.fatbin,
                     job.sidecar, {"entry": job.config.name, "flags": list(job.flags)}, suffix=".fatbin")


def _under_lock(lock_path: pathlib.Path, valid: Callable[[], bool], build: Callable[[], None]) -> None:
    """Build unless another process finished the same entry while we waited for its lock."""
    try:
        lock = open(lock_path, "a")
    except OSError as error:
        raise KernelBuildError(f"cannot lock {lock_path}: {error.strerror}") from None
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not valid():
            build()


def _build_locked(job: _Job, announce: Callable[[], None]) -> BuiltKernel:
    def build() -> None:
        announce()
        _compile(job)

    _under_lock(job.lock, lambda: _is_valid(job), build)
    return _built(job)


def _print_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def build_kernels(
    configs: Iterable[KernelConfig],
    arch: str = "sm_90",
    cache_dir: pathlib.Path | None = None,
    jobs: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[BuiltKernel]:
    """Build every config (cache hits cost nothing), running up to `jobs` nvcc processes at once.

    `arch` is the compile's CUDA target; a family that needs a specific one (sm90: sm_90a) uses that instead.

    Progress lines ("[iree-cutlass] building kernel 2/5: <name>") go to `progress`, or to stderr when it is
    None; a cache hit reports nothing. Returns one BuiltKernel per config, in order.
    """
    configs = list(configs)
    cache_dir = pathlib.Path(cache_dir) if cache_dir is not None else default_cache_dir()
    report = progress if progress is not None else _print_stderr
    _ensure_cache_dir(cache_dir)
    nvcc = find_nvcc()

    unique = list(dict.fromkeys(configs))
    workers = max(1, min(jobs or os.cpu_count() or 1, len(unique) or 1))
    # Making a job generates its source, which for some families runs a generator built with nvcc: in parallel.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        all_jobs = dict(zip(unique, pool.map(lambda config: _make_job(config, arch, cache_dir, nvcc), unique)))
    misses = [config for config in unique if not _is_valid(all_jobs[config])]
    results = {config: _built(all_jobs[config]) for config in unique if config not in misses}

    def build(index_and_config):
        index, config = index_and_config
        line = f"[iree-cutlass] building kernel {index}/{len(misses)}: {config.name}"
        return config, _build_locked(all_jobs[config], lambda: report(line))

    workers = max(1, min(jobs or os.cpu_count() or 1, len(misses) or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for config, built in pool.map(build, enumerate(misses, start=1)):
            results[config] = built
    return [results[config] for config in configs]


def build_kernel(config: KernelConfig, arch: str = "sm_90", cache_dir: pathlib.Path | None = None) -> BuiltKernel:
    """Build one config (see build_kernels)."""
    return build_kernels([config], arch=arch, cache_dir=cache_dir, jobs=1)[0]


# ----------------------------------------------------------------------------------------------- generators
# Host programs that run at kernel build time (no GPU): sm90_gemm.cuh's generator builds a CUTLASS GEMM kernel's
# Params for one problem. Cached as the kernels are: generator-<key> plus a sidecar, under a per-key lock.


def _generator_flags() -> tuple[str, ...]:
    include = cutlass_include_dir()
    # The generator's own cuTensorMapEncodeTiled records the encodes (CUTLASS calls it directly, not the driver's).
    return ("-std=c++17", "--expt-relaxed-constexpr", "-O1", "-gencode", "arch=compute_90a,code=sm_90a",
            f"-I{include}", f"-I{include.parent / 'tools' / 'util' / 'include'}",
            "-DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL", "-DIREE_CUTLASS_GEMM_GENERATOR")


def _generator(defines: dict[str, str], header: pathlib.Path, cache_dir: pathlib.Path,
               nvcc: pathlib.Path) -> pathlib.Path:
    """The generator executable of `header` with `defines`, built unless the cache has it."""
    source = "".join(f"#define {name} {value}\n" for name, value in sorted(defines.items())) + header.read_text()
    flags = _generator_flags()
    version = _nvcc_version(str(nvcc), nvcc.stat().st_mtime_ns)
    key = hashlib.sha256(json.dumps({"source": source, "nvcc_version": version, "flags": flags,
                                     "cutlass": _cutlass_version()}, sort_keys=True).encode()).hexdigest()[:32]
    program, sidecar = cache_dir / f"generator-{key}", cache_dir / f"generator-{key}.json"
    what = f"the generator of {header.name}"

    def build() -> None:
        _print_stderr(f"[iree-cutlass] building generator {header.name} "
                      f"({', '.join(f'{n}={v}' for n, v in sorted(defines.items()))})")
        _nvcc_into_cache(nvcc, flags, source, "generator.cu", what, program, sidecar, {}, executable=True)

    _ensure_cache_dir(cache_dir)
    _under_lock(cache_dir / f"generator-{key}.lock", lambda: _entry_is_valid(program, sidecar), build)
    return program


@functools.lru_cache(maxsize=None)
def _generator_output_cached(defines: tuple, header: pathlib.Path, header_text: str, args: tuple,
                             cache_dir: pathlib.Path) -> str:
    program = _generator(dict(defines), header, cache_dir, find_nvcc())
    try:
        result = subprocess.run([str(program), *map(str, args)], capture_output=True, text=True, check=False)
    except OSError as error:
        raise KernelBuildError(f"cannot run the generator of {header.name}: {error.strerror}") from None
    if result.returncode != 0:
        reason = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise KernelBuildError(f"the generator of {header.name} refused {' '.join(map(str, args))}: {reason}")
    return result.stdout


def generator_output(defines: dict[str, str], header: pathlib.Path, args: list[int],
                     cache_dir: pathlib.Path | None = None) -> str:
    """What `header`'s generator, built with `defines`, prints for `args` (built and run here, once a process)."""
    cache_dir = pathlib.Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return _generator_output_cached(tuple(sorted(defines.items())), header, header.read_text(), tuple(args),
                                    cache_dir)
