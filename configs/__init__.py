"""The packaged GRPO configs: ``python -m nemo_code_rl.run --config grpo_code_8gpu.yaml`` finds them here."""
