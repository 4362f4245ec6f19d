"""Faster R-CNN with the VGG-16 conv body as a dnnmem network document (docs/network-format.md)."""

from __future__ import annotations

from ._builder import Layers
from ._caffe import ceil_pool_padding

__all__ = ["faster_rcnn"]


def faster_rcnn(
    head: str = "full",
    num_classes: int = 21,
    rois: int = 128,
    input_shape: tuple[int, int, int] = (600, 1000, 3),
) -> dict:
    """Faster R-CNN (Ren et al. 2015, "Faster R-CNN: Towards Real-Time Object Detection with
    Region Proposal Networks", §3) with the paper's VGG-16 conv body, laid out as the
    authors' end-to-end (approximate joint) training network in Caffe (py-faster-rcnn's
    VGG16 ``faster_rcnn_end2end`` prototxt; layer names with ``/`` as ``_``).

    Layers, channels last:

    - ``data`` (600×1000×3 by default: the paper rescales the shorter side to 600 pixels;
      1,000 is the longer side's cap, the largest image a training step sees);
    - the VGG-16 conv body ``conv1_1`` … ``conv5_3`` (3×3 pad 1, with bias) each with its
      ``relu<name>``, max pools ``pool1`` … ``pool4`` (2×2 / 2, Caffe's rounding up:
      600×1000 → 300×500 → 150×250 → 75×125 → 38×63); no pool5. ``conv1_x`` and ``conv2_x``
      are frozen (``trainable: false``), as the paper fine-tunes from conv3_1 up (following
      Fast R-CNN);
    - the RPN: ``rpn_conv_3x3`` (3×3 pad 1, 512) + ``rpn_relu_3x3``, ``rpn_cls_score``
      (1×1, 2·9 objectness scores for 9 anchors) and ``rpn_bbox_pred`` (1×1, 4·9), reshaped
      (folded) to ``rpn_cls_score_flat`` [H·W·9, 2] and ``rpn_bbox_pred_flat`` [H·W·9, 4]: two
      network outputs, the RPN's two losses;
    - ``head="full"`` (default) adds the Fast R-CNN detector: ``roi_pool5`` (RoI max pooling of
      ``rois`` proposals per image to 7×7×512 from relu5_3), ``roi_flat`` ([rois, 25088],
      folded), ``fc6`` (dense 4096) ``relu6`` ``drop6``, ``fc7`` (dense 4096) ``relu7``
      ``drop7``, ``cls_score`` ([rois, num_classes]) and ``bbox_pred`` ([rois,
      4·num_classes]): two more outputs. ``head="rpn"`` stops at the RPN (the backbone and
      region-proposal network only).

    Assumptions: RoI pooling has no kind: it is an ``opaque`` layer reading relu5_3 (output
    [rois, 7, 7, 512], 0 FLOPs, the gradient passing back to relu5_3 as RoI pooling's
    scatter does); the proposal layer (anchors, NMS) has no weights and no gradient and is
    not a layer, so the RoIs do not depend on the RPN in the graph (as in approximate joint
    training, where no gradient flows through the proposals). ``rois`` = 128 per image
    (py-faster-rcnn's ``TRAIN.BATCH_SIZE``, one image per batch; the paper's Fast R-CNN
    step samples 128 RoIs from 2 images). Losses: each output gets the format's loss step
    (softmax cross-entropy); smooth-L1 on the box outputs and anchor sampling are the loss's
    work. Dropout 0.5 as VGG-16's.

    Parameters: the conv body 14,714,688 (of which 260,160 frozen in conv1_x / conv2_x), the
    RPN 2,387,510; with the full head + 119,545,856 (fc6, fc7: VGG-16's fc6 / fc7, from which
    they are initialised) + 4097·num_classes·5: 137,078,239 with 21 classes (VOC). The paper
    states no parameter count; the test checks the conv body and fc6 / fc7 against the zoo's
    Keras VGG-16. For comparison only: the interleaved-gradient paper's Table 4 prints "19M"
    for FasterRCNN, which matches neither this network (137 M; 17.1 M without the detector
    head) nor ResNet-50-C4; torchvision's ``fasterrcnn_mobilenet_v3_large_fpn`` (19.4 M) is
    the nearest published model of that size.

    Parameters
    ----------
    head : str
        ``"full"`` or ``"rpn"`` (above).
    num_classes : int
        Detector classes including the background (21 for PASCAL VOC).
    rois : int
        RoIs per image fed to the detector head.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document ``{"name": "faster_rcnn", "layers": [...]}``.
    """
    if head not in ("full", "rpn"):
        raise ValueError(f"head: must be 'full' or 'rpn', got {head!r}")
    net = Layers()
    add = net.add
    x = net.input("data", input_shape)
    h, w = input_shape[0], input_shape[1]
    stages = [(1, 64, 2), (2, 128, 2), (3, 256, 3), (4, 512, 3), (5, 512, 3)]
    for stage, filters, convs in stages:
        for i in range(1, convs + 1):
            fields = {"trainable": False} if stage <= 2 else {}
            x = add(
                f"conv{stage}_{i}",
                "conv2d",
                [x],
                filters=filters,
                kernel_size=3,
                padding=1,
                **fields,
            )
            x = add(f"relu{stage}_{i}", "relu", [x])
        if stage < 5:
            pad = [ceil_pool_padding(h, 2, 2)[0], ceil_pool_padding(w, 2, 2)[1]]
            x = add(f"pool{stage}", "maxpool", [x], pool_size=2, strides=2, padding=pad)
            h, w = -(-h // 2), -(-w // 2)
    conv5 = x
    anchors = 9
    y = add("rpn_conv_3x3", "conv2d", [conv5], filters=512, kernel_size=3, padding=1)
    y = add("rpn_relu_3x3", "relu", [y])
    cls = add("rpn_cls_score", "conv2d", [y], filters=2 * anchors, kernel_size=1)
    box = add("rpn_bbox_pred", "conv2d", [y], filters=4 * anchors, kernel_size=1)
    add("rpn_cls_score_flat", "reshape", [cls], target_shape=[h * w * anchors, 2])
    add("rpn_bbox_pred_flat", "reshape", [box], target_shape=[h * w * anchors, 4])
    if head == "full":
        r = add("roi_pool5", "opaque", [conv5], shape=[rois, 7, 7, 512])
        r = add("roi_flat", "reshape", [r], target_shape=[rois, 7 * 7 * 512])
        for i in (6, 7):
            r = add(f"fc{i}", "dense", [r], units=4096)
            r = add(f"relu{i}", "relu", [r])
            r = add(f"drop{i}", "dropout", [r], rate=0.5)
        add("cls_score", "dense", [r], units=num_classes)
        add("bbox_pred", "dense", [r], units=4 * num_classes)
    return net.document("faster_rcnn")
