"""``nemo-code-rl eval``: sample completions of a model on held-out problems and score them.

- ``problem_set``: the problems, from any source ``score`` reads, as a training run's dataset rows;
- ``prompts``: each problem's prompt, made by the family's NeMo RL processor, and the stop texts;
- ``generators``: transformers, an OpenAI-compatible server, vLLM (same prompt, same stop rules);
- ``completions_log``: the streamed, resumable completions file;
- ``report``: pass@k overall and per source / difficulty;
- ``run``: the whole evaluation; ``cli``: the subcommand.
"""
