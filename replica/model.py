"""A tiny GPT-style decoder: token and position embeddings, pre-norm transformer blocks with
causal self-attention and a GELU MLP, a final layer norm and a head tied to the token embedding.

Size (the ReplicaConfig defaults): 1 layer, width 32, 2 heads, context 32, vocabulary 13,
14,208 parameters; a checkpoint with AdamW state is about 200 KiB. Measured on this project's
2-core development machine with one torch thread (torch 2.13, CPU): a training step with 4
ranks of 8 samples costs about 8 ms, so a 300-step night trains in about 2.5 seconds. Why this
size: at this scale every torch op costs about the same whatever the tensor size, so the step
cost follows depth, not width. A second layer cost about 40 percent more per step (3.3 to 4
seconds a night) and gave no visible gain in a 300-step night on this task; width 48 cost
about 15 percent more for a loss only slightly lower. What a learner notices is how long a
drill takes to start and to replay, so the cheapest size whose loss is still clearly falling
at the end of the night wins.

No dropout and no other randomness in forward: a step is a pure function of the weights, the
optimizer state and the batch, which is what makes resume bit-exact. Initialization draws from
a private torch.Generator seeded from the config, never from the global RNG.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from replica.config import ReplicaConfig
from replica.data import IGNORE_INDEX


class Block(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(width)
        # One fused projection for q, k and v: fewer ops, and per-op overhead dominates at
        # this size.
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.out = nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = (
            self.qkv(self.ln1(x)).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        )
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class TinyGPT(nn.Module):
    def __init__(self, config: ReplicaConfig) -> None:
        super().__init__()
        self.tok = nn.Embedding(config.vocab, config.width)
        self.pos = nn.Parameter(torch.zeros(config.context, config.width))
        self.blocks = nn.ModuleList(Block(config.width, config.heads) for _ in range(config.layers))
        self.ln_f = nn.LayerNorm(config.width)
        self._init_weights(config)

    @torch.no_grad()
    def _init_weights(self, config: ReplicaConfig) -> None:
        # GPT-2 style: normal(0, 0.02), residual output projections scaled down by depth.
        gen = torch.Generator().manual_seed(config.seed)
        resid_std = 0.02 / math.sqrt(2 * config.layers)
        for name, p in self.named_parameters():
            if name.endswith(("proj.weight", "out.weight")):
                p.normal_(0.0, resid_std, generator=gen)
            elif name.endswith(".weight") and p.dim() >= 2 or name == "pos":
                p.normal_(0.0, 0.02, generator=gen)
            elif "ln" in name and name.endswith(".weight"):
                p.fill_(1.0)
            else:
                p.zero_()

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Logits of shape (batch, time, vocab)."""
        x = self.tok(idx) + self.pos[: idx.shape[1]]
        for block in self.blocks:
            x = block(x)
        return F.linear(self.ln_f(x), self.tok.weight)

    def loss(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Next-token cross entropy summed over scored positions, divided by ALL positions.

        Dividing by the fixed count of positions (not by the count of scored ones, which varies
        by sample) makes the mean of equal-sized micro-batch losses equal the loss of the whole
        batch, so any grouping of samples into ranks and micro-batches is the same math.
        Scale: about 36 percent of positions are scored, so the untrained loss is about
        0.36 * ln(13), roughly 0.93, and 0.53 means about 1.5 nats per answer token.
        """
        logits = self(idx)
        total = F.cross_entropy(
            logits.reshape(-1, logits.shape[-1]),
            targets.reshape(-1),
            ignore_index=IGNORE_INDEX,
            reduction="sum",
        )
        return total / targets.numel()


def build_model(config: ReplicaConfig) -> TinyGPT:
    return TinyGPT(config)
