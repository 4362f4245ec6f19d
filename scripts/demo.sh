#!/usr/bin/env bash
# The main job: set up everything, then estimate ResNet-50 at one design point and sweep a small
# grid of capacities and bandwidths, writing the results and a plot.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
make_venv "plot,parquet"
dnnmem=.venv/bin/dnnmem
$dnnmem summary resnet50 --batch 32
$dnnmem estimate --network resnet50 --batch 32 --hardware rtx2080ti --capacity 24MiB --by-kind
$dnnmem sweep sweeps/demo.yaml -o results/demo.parquet --plot figures/demo.png
