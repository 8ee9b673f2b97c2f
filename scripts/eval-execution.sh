#!/usr/bin/env bash
# The execution-layer comparison in docs/execution.md: held-out seeds of seed-experiment.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/execution}
mkdir -p "$out"
schedulers=${SCHEDULERS:-kube-default,load-aware,first-fit,best-fit,aesp}
for seed in ${SEEDS:-101 102 103}; do
  .venv/bin/aesp simulate --quiet --seed "$seed" --scheduler "$schedulers" --json "$out/seed-$seed.json" >/dev/null
done
.venv/bin/python -m aesp.report.markdown "$out"/seed-*.json
