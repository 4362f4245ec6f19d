"""Small torch.nn models the importer tests share (torch imported lazily; torchvision absent).

``resnet50_torch()`` is torchvision's ``resnet50()`` architecture written out with torch.nn
(torchvision/models/resnet.py, ``Bottleneck`` with ``expansion = 4``): ResNet v1.5, i.e. the
stride-2 of a stage's first block sits on the 3×3 convolution (Keras / Caffe v1: on the 1×1),
convolutions have no bias (Keras: bias on every convolution), and the downsample shortcut is a
1×1 convolution + batchnorm. torchvision documents 25,557,032 parameters for it
(https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet50.html).
"""

from __future__ import annotations

from typing import Any


def _nn() -> Any:
    import torch.nn as nn

    return nn


def tiny_cnn(num_classes: int = 10) -> Any:
    """conv-bn-relu-maxpool ×2, global average pool, linear: a 32×32×3 classifier."""
    nn = _nn()
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, stride=1, padding=1, bias=False),
        nn.BatchNorm2d(32),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(32, num_classes),
    )


def resnet50_torch(num_classes: int = 1000, keras_v1: bool = False) -> Any:
    """torchvision's ``resnet50()`` (v1.5) written with torch.nn; 25,557,032 parameters.

    ``keras_v1=True`` gives instead Keras' ``ResNet50`` (the zoo's ``resnet50``): stride on the
    1×1 convolutions and a bias on every convolution (25,583,592 trainable parameters).
    """
    import torch.nn as nn

    bias = keras_v1

    class Bottleneck(nn.Module):
        def __init__(self, cin: int, width: int, stride: int) -> None:
            super().__init__()
            s1, s3 = (stride, 1) if keras_v1 else (1, stride)
            self.conv1 = nn.Conv2d(cin, width, 1, stride=s1, bias=bias)
            self.bn1 = nn.BatchNorm2d(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride=s3, padding=1, bias=bias)
            self.bn2 = nn.BatchNorm2d(width)
            self.conv3 = nn.Conv2d(width, 4 * width, 1, bias=bias)
            self.bn3 = nn.BatchNorm2d(4 * width)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = None
            if stride != 1 or cin != 4 * width:
                self.downsample = nn.Sequential(
                    nn.Conv2d(cin, 4 * width, 1, stride=stride, bias=bias),
                    nn.BatchNorm2d(4 * width),
                )

        def forward(self, x: Any) -> Any:
            identity = x if self.downsample is None else self.downsample(x)
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.relu(self.bn2(self.conv2(y)))
            y = self.bn3(self.conv3(y))
            return self.relu(y + identity)

    class ResNet50(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=bias)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
            layers, cin = [], 64
            for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
                stage = []
                for b in range(blocks):
                    stage.append(Bottleneck(cin, width, stride if b == 0 else 1))
                    cin = 4 * width
                layers.append(nn.Sequential(*stage))
            self.layer1, self.layer2, self.layer3, self.layer4 = layers
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(2048, num_classes)

        def forward(self, x: Any) -> Any:
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(self.avgpool(x).flatten(1))

    return ResNet50()


def encoder_block(
    d_model: int = 64, heads: int = 4, ff: int = 256, vocab: int = 100, seq_len: int = 16
) -> Any:
    """Token embedding + one post-norm transformer encoder block (explicit attention) + head.

    Attention is written out (q, k, v linears, matmuls, softmax) rather than with
    ``nn.MultiheadAttention``, whose ONNX export fuses differently across torch versions.
    Input: int64 token ids [batch, seq_len]; output: logits [batch, seq_len, vocab].
    """
    import torch
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, d_model)
            self.q = nn.Linear(d_model, d_model)
            self.k = nn.Linear(d_model, d_model)
            self.v = nn.Linear(d_model, d_model)
            self.proj = nn.Linear(d_model, d_model)
            self.norm1 = nn.LayerNorm(d_model)
            self.fc1 = nn.Linear(d_model, ff)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(ff, d_model)
            self.norm2 = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab)

        def forward(self, ids: Any) -> Any:
            x = self.embed(ids)
            n, t, d = x.shape[0], seq_len, d_model
            split = lambda z: z.reshape(n, t, heads, d // heads).transpose(1, 2)  # noqa: E731
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            att = torch.softmax(q @ k.transpose(-2, -1) / (d // heads) ** 0.5, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(n, t, d)
            x = self.norm1(x + self.proj(y))
            x = self.norm2(x + self.fc2(self.act(self.fc1(x))))
            return self.head(x)

    return Block()
