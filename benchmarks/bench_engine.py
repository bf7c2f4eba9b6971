"""Run the engine benchmark from a checkout: ``python benchmarks/bench_engine.py --help``."""

from nemo_code_rl.benchmarking.engine_bench import main

raise SystemExit(main())
