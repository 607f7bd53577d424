"""The models of the model benchmark, built locally with random weights (nothing downloaded):
an SD-style VAE decoder (the diffusers AutoencoderKL decoder's architecture), EDSR-baseline
x2, and torchvision's VGG-16 and ResNet-34 (PyTorch)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


class ResnetBlock(nn.Module):
    """diffusers ResnetBlock2D: GroupNorm, SiLU, conv, GroupNorm, SiLU, conv, plus the input
    (through a 1x1 conv where the channels change)."""

    def __init__(self, cin: int, cout: int, groups: int = 32) -> None:
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(groups, cin, eps=1e-6), nn.Conv2d(cin, cout, 3, 1, 1)
        self.norm2 = nn.GroupNorm(groups, cout, eps=1e-6)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1)
        self.shortcut = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return self.shortcut(x) + h


class Attention(nn.Module):
    """diffusers' mid-block attention: one head over the H x W tokens, plus the input."""

    def __init__(self, c: int, groups: int = 32) -> None:
        super().__init__()
        self.norm = nn.GroupNorm(groups, c, eps=1e-6)
        self.q, self.k, self.v, self.out = (nn.Linear(c, c) for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, c, h, w = x.shape
        t = self.norm(x).flatten(2).transpose(1, 2)
        a = F.scaled_dot_product_attention(self.q(t)[:, None], self.k(t)[:, None],
                                           self.v(t)[:, None])[:, 0]
        return x + self.out(a).transpose(1, 2).reshape(n, c, h, w)


class Upsample(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(F.interpolate(x, scale_factor=2.0, mode="nearest"))


class VAEDecoder(nn.Module):
    """AutoencoderKL's decoder as Stable Diffusion configures it: latent 4 channels,
    block_out_channels (128, 256, 512, 512), 2 layers per block (3 resnets per up block),
    GroupNorm of 32 groups; the latent is 1/8 of the output's side."""

    def __init__(self, channels: tuple[int, ...] = (128, 256, 512, 512), latent: int = 4) -> None:
        super().__init__()
        top = channels[-1]
        self.conv_in = nn.Conv2d(latent, top, 3, 1, 1)
        self.mid = nn.Sequential(ResnetBlock(top, top), Attention(top), ResnetBlock(top, top))
        ups, cin = [], top
        for i, cout in enumerate(reversed(channels)):
            blocks = [ResnetBlock(cin if j == 0 else cout, cout) for j in range(3)]
            if i < len(channels) - 1:
                blocks.append(Upsample(cout))
            ups.append(nn.Sequential(*blocks))
            cin = cout
        self.up = nn.Sequential(*ups)
        self.norm_out = nn.GroupNorm(32, channels[0], eps=1e-6)
        self.conv_out = nn.Conv2d(channels[0], 3, 3, 1, 1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        h = self.up(self.mid(self.conv_in(z)))
        return self.conv_out(F.silu(self.norm_out(h)))


class EDSRBlock(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(c, c, 3, 1, 1), nn.Conv2d(c, c, 3, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2(F.relu(self.conv1(x))) + x


class EDSR(nn.Module):
    """EDSR-baseline (Lim et al. 2017): 16 residual blocks of 64 channels, x2 by one conv to
    4 x 64 channels and a pixel shuffle; the RGB mean shift as a subtraction and an addition."""

    def __init__(self, c: int = 64, blocks: int = 16, scale: int = 2) -> None:
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.4488, 0.4371, 0.4040]).view(1, 3, 1, 1))
        self.head = nn.Conv2d(3, c, 3, 1, 1)
        self.body = nn.Sequential(*(EDSRBlock(c) for _ in range(blocks)))
        self.body_out = nn.Conv2d(c, c, 3, 1, 1)
        self.up = nn.Sequential(nn.Conv2d(c, c * scale * scale, 3, 1, 1), nn.PixelShuffle(scale))
        self.tail = nn.Conv2d(c, 3, 3, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.head(x - self.mean)
        h = self.body_out(self.body(h)) + h
        return self.tail(self.up(h)) + self.mean


@dataclass(frozen=True)
class Case:
    """One model at one input: its name, how to build it, its input's shape, and whether its
    output is an image (PSNR reported)."""

    name: str
    build: object
    input_shape: tuple[int, int, int, int]
    image: bool


def _torchvision(name: str):
    def build() -> nn.Module:
        import torchvision

        return getattr(torchvision.models, name)(weights=None)
    return build


CASES = (
    Case("vae_decoder_512", VAEDecoder, (1, 4, 64, 64), True),
    Case("vae_decoder_1024", VAEDecoder, (1, 4, 128, 128), True),
    Case("vgg16_n1", _torchvision("vgg16"), (1, 3, 224, 224), False),
    Case("vgg16_n32", _torchvision("vgg16"), (32, 3, 224, 224), False),
    Case("resnet34_n1", _torchvision("resnet34"), (1, 3, 224, 224), False),
    Case("resnet34_n32", _torchvision("resnet34"), (32, 3, 224, 224), False),
    Case("edsr_x2_360p", EDSR, (1, 3, 360, 640), True),
)


# The last conv of a residual branch starts at this gain, as trained residual branches are small
# next to the path around them (EDSR's large model scales them by 0.1 too): unit gain would
# double the activations' variance per block, 2^16 after EDSR's 16.
RESIDUAL_GAIN = 0.1


def randomise(model: nn.Module, seed: int = 0) -> nn.Module:
    """Random weights that keep activations in fp16's range: each conv and linear scaled to
    unit gain (He init), residual branches' last conv to RESIDUAL_GAIN, BatchNorm statistics
    drawn around 0 and 1."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (nn.Conv2d, nn.Linear)):
                fan_in = module.weight[0].numel()
                module.weight.copy_(torch.randn(module.weight.shape, generator=gen)
                                    * (2.0 / fan_in) ** 0.5)
                if module.bias is not None:
                    module.bias.copy_(torch.randn(module.bias.shape, generator=gen) * 0.01)
            elif isinstance(module, nn.BatchNorm2d):
                module.running_mean.copy_(torch.randn(module.num_features, generator=gen) * 0.1)
                module.running_var.copy_(torch.rand(module.num_features, generator=gen) + 0.5)
                module.weight.copy_(torch.rand(module.num_features, generator=gen) + 0.5)
                module.bias.copy_(torch.randn(module.num_features, generator=gen) * 0.1)
        for module in model.modules():
            if isinstance(module, (EDSRBlock, ResnetBlock)):
                module.conv2.weight.mul_(RESIDUAL_GAIN)
    return model
