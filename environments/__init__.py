"""The NeMo RL environment for code with unit tests.

The Ray actor lives in ``nemo_code_rl.environments.code_environment`` (``CodeUnitTestEnvironment``)
and needs Ray and torch; this package's own import stays light, exposing the config and the pure
metric functions.
"""

from nemo_code_rl.environments.config import CodeEnvConfig, TokenizerSettings
from nemo_code_rl.environments.metrics import (
    SampleOutcome,
    max_ngram_coverage,
    response_metrics,
    verification_metrics,
)

__all__ = [
    "CodeEnvConfig",
    "SampleOutcome",
    "TokenizerSettings",
    "max_ngram_coverage",
    "response_metrics",
    "verification_metrics",
]
