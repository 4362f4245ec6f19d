"""Records SCALE-Sim v2's compute report for every case that
``tests/python/test_systolic_scalesim.py`` compares with, into ``compute_v2.json`` beside this
file. The test reads only that file: SCALE-Sim is neither installed nor run at test time (a
cycle-level simulation of 48 layers costs more than the rest of the compute tests together).

Re-run after adding a case to the test's ``scalesim_cases()``:

    pip install 'scalesim==2.0.2'
    python tests/data/scalesim/record.py
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
from importlib import metadata

HERE = pathlib.Path(__file__).resolve().parent
TEST = HERE.parents[1] / "python" / "test_systolic_scalesim.py"


def run_scalesim(row: list[int], rows: int, cols: int, dataflow: str) -> dict:
    """SCALE-Sim's total cycles, overall utilisation (%) and operand shapes of one layer."""
    from scalesim.scale_config import scale_config
    from scalesim.single_layer_sim import single_layer_sim
    from scalesim.topology_utils import topologies

    cfg = scale_config()
    cfg.set_arr_dims(rows=rows, cols=cols)
    cfg.set_dataflow(dataflow)
    cfg.force_valid()
    cfg.set_bw_mode_to_calc()  # SCALE-Sim's default: bandwidth sized so memory never stalls
    topo = topologies()
    topo.load_layer_params_from_list("l", ["l", *row])
    sim = single_layer_sim()
    sim.set_params(layer_id=0, config_obj=cfg, topology_obj=topo, verbose=False)
    sim.run()
    sim.calc_report_data()
    total, stalls, overall_util, _, _ = sim.get_compute_report_items()
    return {
        "total_cycles": int(total),
        "stall_cycles": int(stalls),
        "overall_util_percent": float(overall_util),
        "ifmap_shape": list(sim.compute_system.ifmap_op_mat.shape),
        "filter_shape": list(sim.compute_system.filter_op_mat.shape),
    }


def main() -> None:
    spec = importlib.util.spec_from_file_location("scalesim_test", TEST)
    assert spec and spec.loader
    test = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(test)
    cases = {}
    for row, rows, cols, dataflow in test.scalesim_cases():
        key = test.case_key(row, rows, cols, dataflow)
        if key not in cases:
            print(key, file=sys.stderr)
            cases[key] = run_scalesim(row, rows, cols, dataflow)
    out = {
        "tool": "SCALE-Sim v2 (PyPI scalesim; https://github.com/scalesim-project/scale-sim-v2)",
        "version": f"scalesim {metadata.version('scalesim')}",
        "command": "python tests/data/scalesim/record.py (scale_config: set_arr_dims, "
        "set_dataflow, force_valid, set_bw_mode_to_calc; topologies.load_layer_params_from_list;"
        " single_layer_sim.run, calc_report_data, get_compute_report_items)",
        "key": "'<rows>x<cols> <dataflow> <topology row: ifmap h, w, filter h, w, channels, "
        "filters, stride h, w>'",
        "cases": dict(sorted(cases.items())),
    }
    (HERE / "compute_v2.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
