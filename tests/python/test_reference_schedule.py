"""The schedule-level reference values (computed by an independent implementation of the model),
reproduced exactly: structure counts, FLOPs by kind, tensor sizes, peak alive bytes,
and the two points that need no cache policy — capacity 0 / policy `none` (every access
streamed: traffic = Σ bytes accessed, time = Σ per-step roofline) and the byte totals of an
infinite cache (inputs + weights in once, dW out once)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dnnmem

BW = 616 * 10**9  # bytes/s
THR = 1345 * 10**10  # 13.45 TFLOP/s


@pytest.fixture(scope="module")
def resnet():
    return dnnmem.network("resnet50", batch=32)


@pytest.fixture(scope="module")
def transformer():
    return dnnmem.network("transformer", batch=128)


def _streamed(net, ops_per_mac=2):
    """Traffic and time with every access streamed (SPEC §8 P2), in exact arithmetic."""
    steps = net.steps
    flops = ops_per_mac * steps["macs"] + (steps["flops"] - 2 * steps["macs"])
    time = sum(
        Fraction(max(f * BW, (r + w) * THR), THR * BW)
        for f, r, w in zip(flops, steps["bytes_read"], steps["bytes_written"])
    )
    return int(steps["bytes_read"].sum()), int(steps["bytes_written"].sum()), time


def _ms(t: Fraction) -> float:
    return round(float(t * 1000), 6)


def _kinds(net):
    df = net.layers
    return df.loc[~df["folded"] & (df["kind"] != "input"), "kind"].value_counts().to_dict()


def _flops_by_kind(net, phase):
    s = net.steps
    return s.loc[s["phase"].isin(phase)].groupby("kind")["flops"].sum().to_dict()


class TestResNet50:
    def test_structure(self, resnet):
        assert len(resnet.layers) == 177
        assert _kinds(resnet) == {
            "conv2d": 53,
            "batchnorm": 53,
            "relu": 49,
            "add": 16,
            "maxpool": 1,
            "global_avgpool": 1,
            "dense": 1,
        }
        assert resnet.params == 25_636_712
        assert resnet.trainable_params == 25_583_592
        assert resnet.num_steps == 349
        assert resnet.steps["phase"].value_counts().to_dict() == {"fwd": 174, "bwd": 174, "loss": 1}
        roles = resnet.tensors["role"].value_counts().to_dict()
        assert roles == {
            "activation": 175,
            "weight": 107,
            "state": 53,
            "gradient": 142,
            "weight_grad": 107,
        }
        assert resnet.schedule.num_intervals() == 627

    def test_step_order(self, resnet):
        names = resnet.steps["name"].tolist()
        assert names[:7] == [
            "F:conv1_conv",
            "F:conv1_bn",
            "F:conv1_relu",
            "F:pool1_pool",
            "F:conv2_block1_0_conv",
            "F:conv2_block1_0_bn",
            "F:conv2_block1_1_conv",
        ]
        assert names[172:176] == [
            "F:avg_pool",
            "F:predictions",
            "loss:predictions",
            "B:predictions",
        ]
        assert names[348] == "B:conv1_conv"
        last = resnet.accesses[resnet.accesses["step"] == 348]
        # B(conv1_conv) reads dY and the input batch and writes only dW.
        assert last["tensor"].tolist() == ["dY:conv1_conv", "Y:input_1", "dW:conv1_conv"]

    def test_flops(self, resnet):
        assert resnet.flops.forward == 249_309_102_080
        assert resnet.flops.total == 738_974_463_744
        assert resnet.schedule.total_ops(1) == 372_385_478_400
        assert int(resnet.layers["fwd_macs"].sum()) == 249_309_102_080 - 125_853_958_144
        assert _ms(Fraction(resnet.flops.total, THR)) == 54.942339
        assert _flops_by_kind(resnet, ["fwd", "loss"]) == {
            "conv2d": 246_779_215_872,
            "batchnorm": 1_693_941_760,
            "relu": 290_619_392,
            "maxpool": 57_802_752,
            "add": 353_239_040,
            "global_avgpool": 3_211_264,
            "dense": 131_072_000,
            "loss": 96_000,
        }
        assert _flops_by_kind(resnet, ["bwd"]) == {
            "conv2d": 486_005_538_816,
            "batchnorm": 3_049_095_168,
            "relu": 290_619_392,
            "maxpool": 57_802_752,
            "add": 0,
            "global_avgpool": 65_536,
            "dense": 262_144_000,
        }

    def test_sizes(self, resnet):
        t = resnet.tensors
        big = t.loc[t["bytes"].idxmax()]
        assert (big["name"], big["bytes"]) == ("Y:conv1_conv", 102_760_448)
        assert resnet.peak_alive_bytes == 2_682_379_264

    def test_capacity_zero_and_none(self, resnet):
        traffic_in, traffic_out, time = _streamed(resnet)
        assert traffic_in == 14_084_968_768
        assert traffic_out == 8_619_386_784
        assert _ms(time) == 79.336040

    def test_infinite_capacity_bytes(self, resnet):
        t = resnet.tensors
        once_in = t.loc[t["starts_offchip"], "bytes"].sum()
        once_out = t.loc[t["must_end_offchip"], "bytes"].sum()
        assert once_in == 121_814_432
        assert once_out == 102_334_368


class TestTransformer:
    def test_structure(self, transformer):
        assert len(transformer.layers) == 259
        assert _kinds(transformer) == {
            "dense": 97,
            "matmul": 36,
            "dropout": 32,
            "add": 30,
            "layernorm": 30,
            "softmax": 18,
            "relu": 12,
            "embedding": 2,
        }
        assert transformer.params == 209_125_376
        assert transformer.trainable_params == 209_125_376
        assert transformer.num_steps == 515
        roles = transformer.tensors["role"].value_counts().to_dict()
        assert roles == {"activation": 259, "weight": 127, "gradient": 197, "weight_grad": 127}
        assert transformer.schedule.num_intervals() == 1004

    def test_step_order(self, transformer):
        s = transformer.steps["name"].tolist()
        assert s[0] == "F:src_embed"
        assert s[110] == "F:tgt_embed"
        assert all(n.startswith("F:dec") and ("cross_k" in n or "cross_v" in n) for n in s[98:110])
        assert s[256:259] == ["F:out_proj", "loss:out_proj", "B:out_proj"]
        assert s[404] == "B:tgt_embed"
        assert s[514] == "B:src_embed"
        a = transformer.accesses
        dw = a[a["tensor"] == "dW:shared_embedding"]
        # B(out_proj) writes dW in full first; the embeddings read-modify-write their rows.
        assert dw[["step", "read", "write", "partial"]].values.tolist() == [
            [258, False, True, False],
            [404, True, True, True],
            [514, True, True, True],
        ]

    def test_flops(self, transformer):
        assert transformer.flops.forward == 2_700_478_464_000
        assert transformer.flops.total == 8_099_530_752_000
        assert transformer.schedule.total_ops(1) == 4_052_708_966_400
        assert _ms(Fraction(transformer.flops.total, THR)) == 602.195595
        assert _flops_by_kind(transformer, ["fwd", "loss"]) == {
            "embedding": 26_214_400,
            "dropout": 419_430_400,
            "dense": 2_674_288_230_400,
            "matmul": 23_592_960_000,
            "softmax": 460_800_000,
            "add": 393_216_000,
            "layernorm": 983_040_000,
            "relu": 314_572_800,
            "loss": 614_400_000,
        }
        assert _flops_by_kind(transformer, ["bwd"]) == {
            "embedding": 13_107_200,
            "dropout": 209_715_200,
            "dense": 5_348_576_460_800,
            "matmul": 47_185_920_000,
            "softmax": 368_640_000,
            "add": 0,
            "layernorm": 1_769_472_000,
            "relu": 314_572_800,
        }

    def test_sizes(self, transformer):
        t = transformer.tensors
        big = t.loc[t["bytes"].idxmax()]
        assert (big["name"], big["bytes"]) == ("Y:out_proj", 819_200_000)
        assert transformer.peak_alive_bytes == 8_401_045_504
        a = transformer.accesses
        partial = a[a["partial"]]
        assert int((partial["bytes"] * partial["read"]).sum()) == 104_857_600
        assert int((partial["bytes"] * partial["write"]).sum()) == 52_428_800

    def test_capacity_zero_and_none(self, transformer):
        traffic_in, traffic_out, time = _streamed(transformer)
        assert traffic_in == 31_344_529_408
        assert traffic_out == 19_442_171_904
        assert _ms(time) == 641.228391

    def test_infinite_capacity_bytes(self, transformer):
        t = transformer.tensors
        a = transformer.accesses
        partial = a[a["partial"]]
        once_in = (
            t.loc[t["starts_offchip"], "bytes"].sum() + (partial["bytes"] * partial["read"]).sum()
        )
        once_out = (
            t.loc[t["must_end_offchip"], "bytes"].sum()
            + (partial["bytes"] * partial["write"]).sum()
        )
        assert once_in == 941_410_304
        assert once_out == 888_930_304
