"""The built-in networks' names and where their builders are (the zoo's index).

Read by :mod:`dnnmem.zoo`, which builds them, and by :func:`dnnmem.load_network`, which points
a missing file named like one of them to ``dnnmem.network(name)``. Kept apart from the zoo,
which loads its networks through :mod:`dnnmem.network`, so that neither imports the other back.
"""

from __future__ import annotations

__all__ = ["BUILDERS"]

# Built-in name -> (module of this package, builder function): a builder's module is imported
# when the network is first built, so that listing the names imports none of them.
BUILDERS: dict[str, tuple[str, str]] = {
    "resnet50": ("resnet", "resnet50"),
    # keras.applications CNNs (docs/networks.md)
    "mobilenet_v1": ("mobilenet", "mobilenet_v1"),
    "mobilenet_v2": ("mobilenet", "mobilenet_v2"),
    "efficientnet_b0": ("efficientnet", "efficientnet_b0"),
    "densenet121": ("densenet", "densenet121"),
    "inception_v3": ("inception", "inception_v3"),
    "resnet101": ("resnet", "resnet101"),
    "vgg16": ("vgg", "vgg16"),
    "transformer": ("transformer", "transformer"),
    "gnmt": ("gnmt", "gnmt"),
    # the thesis's reading of its Table 5.1 workloads (dnnmem.thesis_reading())
    "gnmt_thesis": ("gnmt", "gnmt_thesis"),
    "transformer_thesis": ("transformer", "transformer_thesis"),
    "bert_base": ("bert", "bert_base"),
    "gpt2": ("gpt2", "gpt2"),
    "vit_b16": ("vit", "vit_b16"),
    "resnet18": ("torchvision_nets", "resnet18"),
    "alexnet": ("torchvision_nets", "alexnet"),
    # networks of the seed papers (docs/networks.md, "Networks of the seed papers")
    "googlenet": ("googlenet", "googlenet"),
    "inception_v4": ("inception_v4", "inception_v4"),
    "squeezenet": ("squeezenet", "squeezenet"),
    "nin": ("classic", "nin"),
    "overfeat": ("classic", "overfeat"),
    "resnext50_32x4d": ("resnext", "resnext50_32x4d"),
    "resnext50c32": ("resnext", "resnext50c32"),
    "ssd300": ("ssd", "ssd300"),
    "ptb_lstm": ("lstm_lm", "ptb_lstm"),
    "mha_block": ("attention_block", "mha_block"),
    "bert_large": ("bert_sizes", "bert_large"),
    "bert_tiny": ("bert_sizes", "bert_tiny"),
    "t5_small": ("t5", "t5_small"),
    "t5_large": ("t5", "t5_large"),
    "ncf": ("recommenders", "ncf"),
    "dlrm": ("recommenders", "dlrm"),
    "faster_rcnn": ("faster_rcnn", "faster_rcnn"),
}
