"""The seed pages (docs/seeds/<seed>.md) are what their scripts write, the results the pages
show (tests/data/seeds/<seed>/) are what the engine computes, and every seed figure keeps the
style rules (dnnmem.plots.style).

The pages' tables are rendered again from the cached full-mode tables (milliseconds); the
tables are recomputed where the full mode takes seconds, and spot-checked on one network where
it takes longer (the small modes' rows are compared in the seeds' own test files)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from plot_checks import legend_entries, legend_problems, style_problems, text_problems
from sweep_scripts import assert_matches_cache, import_script, pages, scripts

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

REPO = Path(__file__).resolve().parents[2]
SEEDS = ["cdma", "mbs", "onsram", "interleaved"]


def _with_markdown(seed: str) -> dict:
    return {n: m for n, m in scripts(seed).items() if hasattr(m, "markdown")}


@pytest.mark.parametrize("seed", SEEDS)
def test_page_is_what_its_scripts_write(seed: str) -> None:
    """Every generated block of the page equals its script's Markdown of the cached tables,
    every block a script writes is on the page, and every cached table belongs to a script."""
    p = pages()
    text = (REPO / "docs" / "seeds" / f"{seed}.md").read_text(encoding="utf-8")
    on_page = p.read_blocks(text)
    written: dict[str, str] = {}
    owner: dict[str, str] = {}
    tables = {t for mod in scripts(seed).values() for t in p.tables_of(mod)}
    every = p.load_tables(seed)
    for name, mod in _with_markdown(seed).items():
        for block, body in mod.markdown(every).items():
            assert block not in written, f"{name} and {owner[block]} both write block {block!r}"
            written[block], owner[block] = body, name
    assert sorted(on_page) == sorted(written), "blocks on the page vs blocks the scripts write"
    for block, body in written.items():
        assert on_page[block] == body, (
            f"docs/seeds/{seed}.md, block {block!r} differs from what "
            f"sweeps/{seed}/{owner[block]}.py writes: rerun it with --markdown (the engine "
            f"changed) or --markdown --cached (the page or the script's text changed)"
        )
    cached = {f.stem for f in (REPO / "tests" / "data" / "seeds" / seed).glob("*.csv")}
    assert cached == tables, "tables under tests/data/seeds/ that no script writes, or missing"


def test_blocks_are_replaced_and_quick_modes_write_nothing(tmp_path: Path, monkeypatch) -> None:
    """The page writer replaces only between its markers, refuses a block without markers, and
    ``--small --markdown`` prints without writing (a quick mode never writes into docs/)."""
    p = pages()
    text = "# T\n\nprose\n\n<!-- generated: a begin -->\nold\n<!-- generated: a end -->\n\nmore\n"
    new = p.replace_blocks(text, {"a": "| x |\n|---|\n| 1 |"})
    assert new == text.replace("old\n", "| x |\n|---|\n| 1 |\n")
    assert p.replace_blocks(new, {"a": "| x |\n|---|\n| 1 |\n"}) == new  # idempotent
    with pytest.raises(ValueError, match=r"no markers for the block\(s\) \['b'\]"):
        p.replace_blocks(text, {"b": "x"})
    writes = []
    monkeypatch.setattr(p, "_write_text", lambda path, body: writes.append(path))
    monkeypatch.setattr(p, "save_table", lambda df, path: writes.append(path))
    mod = import_script("cdma", "fig3b_generations")
    p.main("cdma", mod, ["--small", "--markdown", "--no-plot"])
    assert writes == []


def test_page_choices_reach_the_script_and_name_the_figure(tmp_path: Path, monkeypatch) -> None:
    """A script's ``--order``-like options: the callable gets the choice, a choice other than
    the page's names the figure, and the page and its data refuse it."""
    import types

    pd = pytest.importorskip("pandas")
    from matplotlib.figure import Figure

    p = pages()
    monkeypatch.setattr(p, "REPO", tmp_path)
    monkeypatch.setattr(p, "FIGURES_DIR", tmp_path / "figures")
    mod = types.ModuleType("fake_script")
    mod.__file__ = str(tmp_path / "fake_script.py")
    mod.NAME = "seed-fig0-fake"
    mod.compute = lambda small=False: pd.DataFrame({"x": [1]})
    mod.plot = lambda df: Figure()
    got: list[tuple[str, str]] = []
    setters = {
        o: (lambda v, o=o: got.append((o, v)))
        for o in ("fusion", "batchnorm", "order", "resnext", "googlenet")
    }
    argv = ["--small", "--order", "thesis", "--fusion", "pointwise", "--googlenet", "caffe"]
    p.main("cdma", mod, argv, **setters)
    assert got == [
        ("fusion", "pointwise"),
        ("batchnorm", "fold"),
        ("order", "thesis"),
        ("resnext", "keras"),
        ("googlenet", "caffe"),
    ]
    assert [f.name for f in (tmp_path / "figures").glob("*.png")] == [
        "seed-fig0-fake_fusion_pointwise_order_thesis_googlenet_caffe.png"
    ]
    got.clear()
    with pytest.raises(SystemExit):  # the page keeps breadth-first order
        p.main("cdma", mod, ["--order", "thesis", "--cached"], order=setters["order"])
    assert got == []  # refused before any choice reached the script
    with pytest.raises(SystemExit):  # an option the script does not offer
        p.main("cdma", mod, ["--small", "--resnext", "torchvision"], order=setters["order"])


def test_cdma_tables_are_what_the_engine_computes(monkeypatch) -> None:
    """cDMA: the tables of the quick scripts recomputed whole; Fig. 11 and 13, reading M and
    rule C3a (tens of seconds) on NiN."""
    for name in ("fig12_offload_size", "fig3b_generations", "gain_vs_sparsity", "beyond_lookahead"):
        df = import_script("cdma", name).compute(small=False)
        assert assert_matches_cache("cdma", name, df, ["network", *_key("cdma", name)]) == len(df)
    import_script("cdma", "fig13_performance")
    C_POLICIES = sys.modules["_cdma"].POLICIES
    # The scripts read the networks through _cdma.networks(), which reads NETWORKS.
    monkeypatch.setattr(sys.modules["_cdma"], "NETWORKS", {"nin": 128})
    for name in ("fig13_performance", "fig11_ratio", "gain_vs_link"):
        df = import_script("cdma", name).compute(small=False)
        assert set(df["network"]) == {"nin"}
        assert assert_matches_cache("cdma", name, df, ["network", *_key("cdma", name)]) == len(df)
    # Readings M and C3a: only their own rows on the Titan Xp (their page-setup rows are Fig. 13's,
    # test_cdma.py::test_reading_table_page_rows_are_the_pages_fig13).
    for name, attr, reading in (("masks", "MASKS", ("off",)), ("pooled", "VALUES", ("pooled",))):
        script = import_script("cdma", name)
        monkeypatch.setattr(script, attr, reading)
        monkeypatch.setattr(script, "GPUS", ("titan-xp",))
        df = script.compute(small=False)
        assert len(df) == len(C_POLICIES) and set(df["network"]) == {"nin"}
        assert assert_matches_cache("cdma", name, df, ["network", *_key("cdma", name)]) == len(df)


def _key(seed: str, name: str) -> list[str]:
    """The columns besides ``network`` that identify a row of a seed script's table."""
    return {
        ("cdma", "fig13_performance"): ["gpu", "bar"],
        ("cdma", "fig11_ratio"): ["algorithm", "layout"],
        ("cdma", "fig12_offload_size"): ["bar"],
        ("cdma", "fig3b_generations"): ["gpu"],
        ("cdma", "gain_vs_link"): ["link"],
        ("cdma", "gain_vs_sparsity"): ["sparsity"],
        ("cdma", "beyond_lookahead"): ["memory", "policy"],
        ("cdma", "masks"): ["mask", "gpu", "bar"],
        ("cdma", "pooled"): ["values", "gpu", "bar"],
    }[seed, name]


def test_figure_names_follow_one_pattern() -> None:
    """``<seed>-<figure>-<what>``: every seed's scripts, the thesis's too."""
    from dnnmem.plots.style import FIGURE_NAME

    for seed in [*SEEDS, "thesis"]:
        for name, mod in scripts(seed).items():
            if not hasattr(mod, "plot"):
                continue
            assert FIGURE_NAME.match(mod.NAME), f"sweeps/{seed}/{name}.py: NAME {mod.NAME!r}"
            assert mod.NAME.startswith(f"{seed}-"), f"sweeps/{seed}/{name}.py: NAME {mod.NAME!r}"


@pytest.mark.parametrize("seed", SEEDS)
def test_seed_figures_keep_the_style(seed: str) -> None:
    """Every figure of the seed, drawn from the page's tables: no legend over data or cut off,
    no overlapping or minor tick labels, no text cut off, no two legend entries alike, no raw
    column or zoo names; and a policy has one colour in every figure of every seed."""
    from dnnmem.plots.style import SERIES_COLORS, series_style

    p = pages()
    for name, mod in scripts(seed).items():
        tables = p.load_tables(seed, mod)
        fig = mod.plot(tables.get(name, next(iter(tables.values()))))
        fig.draw_without_rendering()
        problems = (
            legend_problems(fig, draw=False)
            + text_problems(fig, draw=False)
            + style_problems(fig, draw=False)
        )
        assert problems == [], f"sweeps/{seed}/{name}.py: {problems}"
        for label, look in legend_entries(fig).items():
            if label in SERIES_COLORS:
                want = series_style(label)
                want = want.get("fill", want["color"]) if look[1] is None else want["color"]
                assert look[0] == want, f"{name}: {label!r} drawn in {look[0]}, not {want}"


def test_cdma_hypotheses_are_what_the_engine_computes(monkeypatch) -> None:
    """cDMA's issue-28 readings (sweeps/cdma/hypotheses.py) on NiN: the page's reading and one
    uniform sparsity equal the saved rows."""
    script = import_script("cdma", "hypotheses")
    monkeypatch.setattr(sys.modules["_cdma"], "NETWORKS", {"nin": 128})
    readings = ("per-network", "dram-roofline", "in-place-relu", "effective-pcie", "0.9")
    readings += ("measured-rate-xp",)
    monkeypatch.setattr(script, "READINGS", readings)
    df = script.compute(small=False)
    assert len(df) == 6 and set(df["network"]) == {"nin"}
    assert assert_matches_cache("cdma", "hypotheses", df, ["network", "reading"]) == 6
    # The slower link (12.8 GB/s effective) costs vDNN more and so raises ZVC's gain (the
    # direction away from the paper: docs/seeds/cdma.md).
    by = df.set_index("reading")
    assert by.loc["effective-pcie", "vdnn_performance"] < by.loc["per-network", "vdnn_performance"]
    assert by.loc["effective-pcie", "gain"] > by.loc["per-network", "gain"]
    # Rule G1 at 100 GB/s on the Titan Xp itself slows NiN's compute (138 GB/s at peak), which
    # then hides more of vDNN's transfers: less loss, less for ZVC to gain.
    assert (
        by.loc["measured-rate-xp", "vdnn_performance"] > by.loc["per-network", "vdnn_performance"]
    )
    assert by.loc["measured-rate-xp", "gain"] < by.loc["per-network", "gain"]


def test_cdma_execution_readings_policies() -> None:
    """The readings of how the paper's GPU ran the networks add one part to every policy, the
    oracle's included: the Titan Xp's own memory bandwidth (its preset: 548 GB/s) as a roofline,
    or the accelerator fusion level (Caffe's in-place ReLU)."""
    script = import_script("cdma", "hypotheses")
    target = sys.modules["_cdma"].target("nin")
    assert script._execution("dram-roofline") == " + peak(spm_bandwidth=548GB/s)"
    assert script._execution("in-place-relu") == " + fusion=accelerator"
    assert script._execution("per-network") == script._execution("0.9") == ""
    assert script._policies("effective-pcie", "nin") == [
        "vdnn-all + ratio(efficiency=0.8)",
        f"vdnn-all + zvc(target={target}, efficiency=0.8, cap=200GB/s)",
        f"vdnn-all + zvc(target={target}, efficiency=0.8, cap=48GB/s)",
    ]
    assert script._policies("in-place-relu", "nin") == [
        "vdnn-all + fusion=accelerator",
        f"vdnn-all + zvc(target={target}, cap=200GB/s) + fusion=accelerator",
        f"vdnn-all + zvc(target={target}, cap=48GB/s) + fusion=accelerator",
    ]
