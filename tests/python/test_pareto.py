"""dnnmem.pareto: the non-dominated rows of a DataFrame, checked by hand and against a plain
O(n²) reading of the definition on random data (ties, integers, mixed directions, 1-4
objectives)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import dnnmem
from dnnmem.pareto import pareto_mask


def brute_force(df: pd.DataFrame, minimize: list[str], maximize: list[str]) -> list:
    """Index labels of the rows no other row dominates: the definition, row against row."""
    v = np.column_stack(
        [df[c].to_numpy(float) for c in minimize] + [-df[c].to_numpy(float) for c in maximize]
    )
    keep = []
    for i in range(len(v)):
        dominated = any(
            np.all(v[j] <= v[i]) and np.any(v[j] < v[i]) for j in range(len(v)) if j != i
        )
        if not dominated:
            keep.append(df.index[i])
    return keep


# --------------------------------------------------------------------------------------------
# hand examples
# --------------------------------------------------------------------------------------------
def test_two_objectives_by_hand():
    # (area, time): (3,4) is dominated by (2,3); (4,1) is the fastest; (1,5) the smallest.
    df = pd.DataFrame({"area": [1, 2, 3, 4, 5], "time": [5, 3, 4, 1, 1]}, index=list("abcde"))
    front = dnnmem.pareto(df, minimize=["area", "time"])
    assert front.index.tolist() == ["a", "b", "d"]  # e: same time as d, more area
    pd.testing.assert_frame_equal(front, df.loc[["a", "b", "d"]])  # all columns, original order


def test_identical_rows_both_kept_or_first_only():
    df = pd.DataFrame({"area": [1, 2, 3, 2], "time": [5, 3, 4, 3]})
    assert dnnmem.pareto(df, minimize=["area", "time"]).index.tolist() == [0, 1, 3]
    assert dnnmem.pareto(df, minimize=["area", "time"], keep_ties=False).index.tolist() == [0, 1]


def test_equal_on_one_objective_only():
    # Same x, different y: the larger y is dominated. Same y, larger x: dominated.
    df = pd.DataFrame({"x": [1, 1, 2, 0], "y": [2, 3, 1, 3]})
    assert dnnmem.pareto(df, minimize=["x", "y"]).index.tolist() == [0, 2, 3]


def test_maximize_and_mixed():
    df = pd.DataFrame(
        {"area_mm2": [10.0, 20.0, 30.0, 25.0], "samples_per_s": [100.0, 300.0, 250.0, 300.0]}
    )
    front = dnnmem.pareto(df, minimize="area_mm2", maximize="samples_per_s")
    assert front.index.tolist() == [0, 1]  # 2: slower and bigger than 1; 3: bigger, as fast
    both_max = dnnmem.pareto(df, maximize=["area_mm2", "samples_per_s"])
    assert both_max.index.tolist() == [2, 3]  # 3 (25, 300) beats 1 (20, 300); 2 has most area


def test_one_and_three_objectives():
    df = pd.DataFrame({"t": [3, 1, 1, 2], "a": [1, 2, 3, 0], "e": [5, 5, 4, 9]})
    assert dnnmem.pareto(df, minimize="t").index.tolist() == [1, 2]  # both minimal: ties kept
    # 0: (3,1,5) vs 3: (2,0,9): neither dominates; 1 and 2 incomparable (a vs e).
    assert dnnmem.pareto(df, minimize=["t", "a", "e"]).index.tolist() == [0, 1, 2, 3]
    df.loc[4] = [3, 1, 6]  # dominated by row 0 only
    assert dnnmem.pareto(df, minimize=["t", "a", "e"]).index.tolist() == [0, 1, 2, 3]


def test_empty_frame_and_non_default_index():
    empty = pd.DataFrame({"x": pd.Series([], dtype=float), "y": pd.Series([], dtype=float)})
    assert dnnmem.pareto(empty, minimize=["x", "y"]).empty
    df = pd.DataFrame({"x": [2.0, 1.0], "y": [1.0, 2.0]}, index=[10, 10])  # duplicate labels
    assert len(dnnmem.pareto(df, minimize=["x", "y"])) == 2


def test_on_a_real_sweep_front_of_area_and_time():
    rows = [
        dnnmem.estimate("resnet50", capacity=c * 2**20, bandwidth="616GB/s", throughput=t).to_dict()
        for c in (2, 8, 32)
        for t in ("13.45TFLOPS", "23.04TFLOPS")
    ]
    df = dnnmem.with_area(pd.DataFrame(rows))
    front = dnnmem.pareto(df, minimize=["area_mm2", "time"])
    assert front.index.tolist() == brute_force(df, ["area_mm2", "time"], [])
    # At every capacity the faster throughput wins, so the front holds only 23.04 TFLOPS rows.
    assert set(front["throughput"]) == {23.04e12}


def test_on_a_real_sweep_any_two_or_three_of_time_energy_area_cost():
    # Capacity x bandwidth x throughput in the A100's technology: every column of the joule and
    # area models on each row, so each pair and triple of the four objectives has its front.
    import itertools

    df = dnnmem.sweep(
        "resnet18",
        capacity=["1MiB", "8MiB", "40MiB"],
        bandwidth=["0.46TB/s", "1.84TB/s"],
        throughput=["78TFLOPS", "312TFLOPS"],
        hardware=dnnmem.hardware("a100", precision="bf16"),
        progress=False,
    )
    objectives = ["time", "energy_j", "area_mm2", "cost_usd"]
    sizes = {}
    for k in (2, 3):
        for cols in itertools.combinations(objectives, k):
            front = dnnmem.pareto(df, minimize=list(cols))
            assert front.index.tolist() == brute_force(df, list(cols), []), cols
            sizes[cols] = len(front)
            # The fastest, the most frugal and the smallest design of the grid are on every
            # front that minimizes their objective.
            for c in cols:
                assert df[c].idxmin() in front.index, (cols, c)
    # A third objective only adds points to a front (a point on the two-way front is on the
    # three-way one); energy keeps points time and area alone would drop.
    assert sizes[("time", "energy_j", "area_mm2")] >= sizes[("time", "area_mm2")]
    assert sizes[("time", "energy_j", "area_mm2")] < len(df)  # the front prunes


# --------------------------------------------------------------------------------------------
# against the definition on random data
# --------------------------------------------------------------------------------------------
@st.composite
def frames(draw):
    k = draw(st.integers(1, 4))
    n = draw(st.integers(0, 40))
    # Small integer ranges make ties (equal values and identical rows) common.
    hi = draw(st.sampled_from([2, 5, 100]))
    cols = {f"c{j}": draw(st.lists(st.integers(0, hi), min_size=n, max_size=n)) for j in range(k)}
    df = pd.DataFrame(cols, dtype=float)
    names = list(cols)
    directions = draw(st.lists(st.booleans(), min_size=k, max_size=k))
    return (
        df,
        [c for c, d in zip(names, directions) if d],
        [c for c, d in zip(names, directions) if not d],
    )


@settings(max_examples=examples(100), deadline=None)
@given(frames())
def test_matches_brute_force(case):
    df, lo, hi = case
    assert dnnmem.pareto(df, minimize=lo, maximize=hi).index.tolist() == brute_force(df, lo, hi)


@settings(max_examples=examples(50), deadline=None)
@given(frames())
def test_keep_ties_false_keeps_one_of_each_tied_group(case):
    df, lo, hi = case
    all_ties = dnnmem.pareto(df, minimize=lo, maximize=hi)
    first = dnnmem.pareto(df, minimize=lo, maximize=hi, keep_ties=False)
    objectives = lo + hi
    assert first.index.tolist() == all_ties.drop_duplicates(objectives).index.tolist()


def test_two_objective_sweep_on_many_rows_matches_general_version():
    rng = np.random.default_rng(7)
    v = rng.integers(0, 50, size=(2000, 2)).astype(float)
    df = pd.DataFrame(v, columns=["a", "b"])
    from dnnmem.pareto import _front_general

    np.testing.assert_array_equal(pareto_mask(df, minimize=["a", "b"]), _front_general(v))


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------
@pytest.fixture
def small():
    return pd.DataFrame(
        {"time": [1.0, 2.0], "area": [2.0, 1.0], "name": ["a", "b"], "ok": [True, False]}
    )


def test_errors(small):
    with pytest.raises(ValueError, match="at least one column"):
        dnnmem.pareto(small)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['speed'\]"):
        dnnmem.pareto(small, minimize="time", maximize="speed")
    with pytest.raises(ValueError, match=r"\['time'\] are in both"):
        dnnmem.pareto(small, minimize="time", maximize=["time"])
    with pytest.raises(ValueError, match="'name' is not numeric"):
        dnnmem.pareto(small, minimize="name")
    with pytest.raises(ValueError, match="'ok' is not numeric"):
        dnnmem.pareto(small, minimize="ok")
    with pytest.raises(ValueError, match="named twice"):
        dnnmem.pareto(small, minimize=["time", "time"])
    with pytest.raises(TypeError, match="df: expected a pandas DataFrame"):
        dnnmem.pareto([[1, 2]], minimize="time")
    with pytest.raises(TypeError, match="minimize: expected column names"):
        dnnmem.pareto(small, minimize=[1])
    nan = small.assign(time=[1.0, float("nan")])
    with pytest.raises(ValueError, match=r"'time' has NaN at row\(s\) \[1\]"):
        dnnmem.pareto(nan, minimize=["time", "area"])
