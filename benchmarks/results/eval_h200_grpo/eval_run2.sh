#!/usr/bin/env bash
# Device call 2 of 2 for issue 18: rebuild the model file, train SmolLM2-135M briefly with TRL's
# GRPO and our reward (benchmarks/trl_grpo_gpu.py, saving the model), then `nemo-code-rl eval` on
# the benchmark's 30 held-out problems with the base model and with the trained one (greedy,
# transformers on the GPU, programs judged in the sandbox at isolation=namespaces, 16 workers).
set -uo pipefail
REPO=$(pwd)
D=$REPO/final-device-logs
echo "== device"; nproc; python3 --version; nvidia-smi -L
cat /tmp/model/part.aa $D/gguf/part.ab > /tmp/model/SmolLM2-135M-Instruct.Q4_1.gguf && rm /tmp/model/part.aa
echo "$(cat $D/gguf.sha256)  /tmp/model/SmolLM2-135M-Instruct.Q4_1.gguf" | sha256sum -c || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/ncr $REPO >/dev/null 2>&1 || { echo install failed; exit 1; }
export PYTHONPATH=/tmp/ncr:/tmp/site
cd /tmp
python3 -c "
import json
from nemo_code_rl.benchmarking.easy_problems import easy_problems
_, held_out = easy_problems(seed=0, kind='call')
open('/tmp/heldout.jsonl', 'w').write(''.join(json.dumps(p.to_dict()) + '\n' for p in held_out))
print(len(held_out), 'held-out problems')
" || exit 1
SYSTEM='Write a Python function in a ```python code block.'
ev() { python3 -m nemo_code_rl.cli eval --model "$1" --problems /tmp/heldout.jsonl --system-prompt "$SYSTEM" \
  --max-new-tokens 192 --isolation namespaces --workers 16 -o "$2" --quiet; }
echo "== eval, base model"; /usr/bin/time -f "eval base %e s" bash -c "$(declare -f ev); SYSTEM='$SYSTEM'; ev /tmp/model/SmolLM2-135M-Instruct.Q4_1.gguf $OUT/eval_base" 2>&1 | tail -15
echo "== train"; /usr/bin/time -f "train %e s" python3 $REPO/benchmarks/trl_grpo_gpu.py --out $OUT/train --minutes 3 \
  --model-dir /tmp/model --save-model /tmp/trained --isolation namespaces 2>&1 | grep -v Warning | tail -8
ls /tmp/trained
echo "== eval, trained model"; /usr/bin/time -f "eval trained %e s" bash -c "$(declare -f ev); SYSTEM='$SYSTEM'; ev /tmp/trained $OUT/eval_trained" 2>&1 | tail -15
