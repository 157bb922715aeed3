"""What the command-line tools share: one-line errors, reading input, writing output atomically."""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
from typing import NoReturn


def fail(prog: str, message: str, code: int = 1) -> NoReturn:
    print(f"{prog}: error: {message}", file=sys.stderr)
    sys.exit(code)


def kernel_families(prog: str, value: str) -> tuple[str, ...]:
    """The --iree-cutlass-kernels value as families, or a usage error."""
    from iree_cutlass.driver import CompileError, parse_kernel_families
    try:
        return parse_kernel_families(value)
    except CompileError as error:
        fail(prog, str(error), code=2)


def tuning_card(prog: str, value: str | None) -> str:
    """The --iree-cutlass-card value (the default card's when the flag is absent), or a usage error."""
    from iree_cutlass.driver import CompileError, parse_card
    from iree_cutlass.plugin.select import DEFAULT_CARD
    try:
        return parse_card(DEFAULT_CARD if value is None else value)
    except CompileError as error:
        fail(prog, str(error), code=2)


def read_input(prog: str, path: str) -> tuple[bytes, str]:
    """The bytes of `path` ('-' is stdin) and the name diagnostics use for it."""
    if path == "-":
        return sys.stdin.buffer.read(), "-"
    try:
        return pathlib.Path(path).read_bytes(), path
    except OSError as error:
        fail(prog, f"cannot read '{path}': {error.strerror}")


def write_atomically(path: pathlib.Path, data: bytes) -> None:
    """Writes through a temporary file in the same directory, so `path` is never seen half-written."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes 0600; outputs get the usual mode
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def write_output(prog: str, path: str, data: bytes) -> None:
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    target = pathlib.Path(path)
    try:
        if target.exists() and not target.is_file():
            # A device or pipe (-o /dev/null, a FIFO): write into it; replacing it would destroy it.
            with open(target, "wb") as stream:
                stream.write(data)
            return
        write_atomically(target, data)
    except OSError as error:
        fail(prog, f"cannot write '{path}': {error.strerror}")
