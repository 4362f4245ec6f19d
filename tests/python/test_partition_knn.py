"""The KNN partition classifier (dnnmem.partition_knn; docs/model/interleaved.md, "Reading
(KNN)"): hand-computed neighbours and votes, the features, and its labels against the tile
model's partition=best."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_interleaved_policy import _chain, _row, _run

import dnnmem.partition_knn as pk

X = [[0.0], [1.0], [2.0], [10.0]]
Y = ["m", "m", "n", "n"]


@pytest.mark.parametrize(
    ("k", "query", "expected"),
    [
        (3, 1.2, "m"),  # neighbours 1 (0.2), 2 (0.8), 0 (1.2): m 2 votes, n 1
        (2, 1.6, "n"),  # 2 (0.4) n, 1 (0.6) m: a tie, the nearest (n) wins
        (1, 9.0, "n"),  # 10 alone
        (10, 0.1, "m"),  # k past the rows: all four vote, 2 - 2, the nearest (0: m) wins
        (1, 1.5, "m"),  # 1 and 2 both at 0.5: the earlier training row
        (3, 7.0, "n"),  # 10 (3), 2 (5), 1 (6): n 2 votes, m 1
    ],
)
def test_hand_computed_votes(k: int, query: float, expected: str) -> None:
    assert pk.KnnPartition(k).fit(X, Y).predict([[query]]) == [expected]


def test_euclidean_distance_over_every_feature() -> None:
    # (3, 0) is 3 from (0, 0) and sqrt(8) = 2.83 from (2, 2): the second is nearer.
    knn = pk.KnnPartition(1).fit([[0.0, 0.0], [2.0, 2.0]], ["k", "n"])
    assert knn.predict([[3.0, 0.0], [0.5, 0.0]]) == ["n", "k"]


def test_features_are_log2_of_dx_dw_dy_in_tiles() -> None:
    # M = 90, K = 45, N = 180 at tile 45: M 1, K 0, N 2 (log2 of tiles); dX (M, K), dW (K, N),
    # dY (M, N).
    f = pk.features([(90, 45, 180)], tile=45)
    assert f.tolist() == [[1.0, 0.0, 0.0, 2.0, 1.0, 2.0]]
    assert math.isclose(float(pk.features([(64, 8, 8)], tile=8)[0, 0]), 3.0)


def test_bad_input_is_an_error() -> None:
    with pytest.raises(ValueError, match="k must be"):
        pk.KnnPartition(0)
    with pytest.raises(ValueError, match="fit first"):
        pk.KnnPartition().predict([[1.0]])
    with pytest.raises(ValueError, match=">= 1"):
        pk.features([(0, 4, 4)], tile=4)


def test_random_shapes_stay_in_range_and_repeat_with_the_seed() -> None:
    a = pk.random_shapes(50, tile=16, seed=3, max_tiles=24, max_ops=1000)
    assert a == pk.random_shapes(50, tile=16, seed=3, max_tiles=24, max_ops=1000)
    assert all(8 <= d <= 16 * 24 for s in a for d in s)
    assert all(-(-m // 16) * -(-k // 16) * -(-n // 16) <= 1000 for m, k, n in a)
    assert np.asarray(a).shape == (50, 3)


def test_oracle_label_is_the_tile_models_best() -> None:
    # The chain's layer d: M = 16, K = 64, N = 96 at tile 8, 1 byte; two shares that hold little
    # (best: N) and one that holds everything (every partition ties: M, the first).
    doc = _chain(64, 96, first=8)
    for cap in (2048, 8192, 1 << 24):
        row = _row(_run(doc, "split-backward(order=alg1, tile=8, partition=best, parts=2) + none",
                        cap, 16), "d")  # fmt: skip
        label = pk.oracle_label((16, 64, 96), tile=8, c_eff=row["c_eff"], parts=2, elem_bytes=1)
        assert label == row["partition"]
    assert pk.oracle_label((16, 64, 96), tile=8, c_eff=1 << 24, parts=2, elem_bytes=1) == "m"
