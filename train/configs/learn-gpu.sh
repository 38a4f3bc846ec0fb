#!/usr/bin/env bash
# The learning studies at the papers' scales on one GPU (learn-<family>-gpu.yaml), one after
# another, each into results/learning-gpu/<family>/, then the table of their figures that
# docs/learning.md records. UNVERIFIED until it has run on a GPU.
#
#   train/configs/learn-gpu.sh [--max-steps N] [family ...]     (default: kg norms arggym)
#
# Needs the training extra (pip install -e '.[train]') and, for use_vllm: true in a config,
# trl[vllm]. A study interrupted (the machine taken back) resumes where it stopped when the
# same command runs again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${ARGC_LEARNING_OUT:-results/learning-gpu}
steps=()
if [[ ${1:-} == --max-steps ]]; then
    steps=(--max-steps "$2")
    shift 2
fi
families=("$@")
[[ ${#families[@]} -gt 0 ]] || families=(kg norms arggym)
python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'no GPU visible to torch')"
for family in "${families[@]}"; do
    argc study --config "$here/learn-$family-gpu.yaml" --out "$out/$family" "${steps[@]}"
done
python -m argc.train.study_report "${families[@]/#/$out/}"
