"""The NeMo RL environment for code with unit tests.

The Ray actor lives in ``nemo_code_rl.environments.code_environment`` (``CodeUnitTestEnvironment``)
and needs Ray and torch; this package's own import stays light, exposing the configs only (the
metrics every adapter reports live in ``nemo_code_rl.training_metrics``).
"""

from nemo_code_rl.environments.config import CodeEnvConfig, TokenizerSettings

__all__ = ["CodeEnvConfig", "TokenizerSettings"]
