"""Shared test set-up: one kernel cache for the whole run (and for lit), so each kernel is built once."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
os.environ.setdefault("IREE_CUTLASS_CACHE_DIR", str(REPO / "build" / "kernel-cache"))


@pytest.fixture(scope="session")
def repo() -> pathlib.Path:
    return REPO
