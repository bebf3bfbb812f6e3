#!/usr/bin/env bash
# Regenerate every committed paper-scale report (issue 13, item 7) from a clean tree, so
# every record and report carries a code version without "+dirty".
#
#   scripts/regenerate_paper_reports.sh            # dvc repro (sweeps at the scales of params.yaml, reports, page)
#   scripts/regenerate_paper_reports.sh --no-dvc   # the same with plain commands, no DVC cache
#
# It then prints the counts per paper (reproduced / within / indistinguishable / differs / not run)
# from results/metrics.json, to paste into the closing note beside the counts before the change.
# The ci pins are not touched: they are about scale=ci (.ci/run checks them).
# The committed experiments take about 90 CPU-minutes at scale=paper; the active-learning ones
# that are not committed yet (acc_random_init, acc_kmeans_init, acc_noise_batch, acc_parameters)
# take much longer: --no-dvc runs every experiment, so use it only where that is fine.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "refusing to run: the work tree has uncommitted changes (records would be stamped +dirty):" >&2
    git status --short --untracked-files=no >&2
    exit 1
fi
export CCEXP_DATA_DIR="${CCEXP_DATA_DIR:-$(cd .. && pwd)/shared/datasets}"
unset MLFLOW_TRACKING_URI || true
echo "code version: $(git describe --always --dirty)"

if [ "${1:-}" = "--no-dvc" ]; then
    for experiment in $(python -c "from ccexp.__main__ import list_experiments; print(' '.join(list_experiments()))"); do
        s=$SECONDS
        python -m ccexp +experiment="$experiment" experiment.scale=paper report=false tracking=off runner.progress=false
        echo "== $experiment (paper): $((SECONDS - s)) s"
    done
    python -m ccexp.report all --results results
else
    dvc repro
fi

python - <<'PY'
import json
from collections import Counter
m = json.load(open("results/metrics.json"))
keys = ("reproduced", "within_tolerance", "indistinguishable", "differs", "not_run")
print("paper | " + " | ".join(keys))
for paper, exps in m.items():
    c = Counter()
    for e in exps.values():
        c.update({k: e.get(k, 0) for k in keys})
    print(paper + " | " + " | ".join(str(c[k]) for k in keys))
PY
if [ -n "$(git status --porcelain --untracked-files=no | grep -v '^ M results/' || true)" ]; then
    echo "note: files outside results/ changed during the run:" >&2
    git status --short --untracked-files=no | grep -v ' results/' >&2 || true
fi
