"""Glue for trainers other than NeMo RL. ``nemo_code_rl.integrations.trl`` holds TRL's reward functions;
it imports neither TRL nor torch, so the rewards can be built and tested without them."""
