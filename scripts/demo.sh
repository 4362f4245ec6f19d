#!/usr/bin/env bash
# The main job: set up everything, then summarise a built-in network and its schedule.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
make_venv ""
.venv/bin/python -m dnnmem summary resnet50 --batch 32 --steps 12
.venv/bin/python -m dnnmem estimate --network resnet50 --batch 32 --capacity 24MiB --by-kind
.venv/bin/python -m dnnmem estimate --network resnet50 --batch 32 --capacity 128MiB
