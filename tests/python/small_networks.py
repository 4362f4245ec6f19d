"""Small networks whose schedules the tests compute by hand, shared by several test files.

``CHAIN``: input x (4 features) -> dense fc1 (3 units) -> relu r -> dense fc2 (2 units). At
batch 2 and FP32: Y:x 32 B, W:fc1 60 B (weights and bias), Y:fc1 24 B, Y:r 24 B, W:fc2 32 B,
Y:fc2 16 B. Never mutate it: the test files of one worker share the dict.
"""

from __future__ import annotations

from typing import Any

CHAIN: dict[str, Any] = {
    "name": "chain",
    "layers": [
        {"name": "x", "kind": "input", "shape": [4]},
        {"name": "fc1", "kind": "dense", "inputs": ["x"], "units": 3},
        {"name": "r", "kind": "relu", "inputs": ["fc1"]},
        {"name": "fc2", "kind": "dense", "inputs": ["r"], "units": 2},
    ],
}
