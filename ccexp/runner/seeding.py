"""Seeds from what a case *is*, never from execution order or worker.

A case's dataset and oracle seeds hash (dataset, oracle parameters, trial)
but not the algorithm, so every algorithm of a case sees the very same noisy
instance; the algorithm's own seed adds the algorithm's name.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np


def canonical_json(obj) -> str:
    """Deterministic JSON (sorted keys, floats in repr form) of plain data."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def stable_hash(obj, length: int = 16) -> str:
    """Hex digest of the canonical JSON of ``obj`` (stable across runs and machines)."""
    return hashlib.sha256(canonical_json(obj).encode()).hexdigest()[:length]


def seed_sequence(obj) -> np.random.SeedSequence:
    """A :class:`numpy.random.SeedSequence` whose entropy is a hash of ``obj``."""
    digest = hashlib.sha256(canonical_json(obj).encode()).digest()
    return np.random.SeedSequence(int.from_bytes(digest[:16], "little"))


def seed_int(obj) -> int:
    """A 32-bit integer seed derived from ``obj`` (for estimators' ``random_state``)."""
    return int(seed_sequence(obj).generate_state(1, dtype=np.uint32)[0])
