"""Proximal Policy Optimisation with masked node choice, in one readable module (CleanRL-style).

PPO (Schulman et al., 2017, "Proximal Policy Optimization Algorithms") with the choices listed
in "The 37 Implementation Details of PPO" (Huang et al., ICLR blog track 2022), numbered as
there:

* (2) orthogonal initialisation (:mod:`aesp.policy.networks`);
* (3) Adam with ``eps=1e-5``; (4) learning rate annealed linearly to 0;
* (5) generalised advantage estimation (``gamma=0.95``, ``lambda=0.9``), bootstrapping from the
  value of the next state; (6) mini-batch updates over shuffled indices, 8 epochs, ``lr=1e-3``;
* (7) advantage normalisation per mini-batch; (8) clipped surrogate objective, ``clip=0.2``;
* (9) value loss **not** clipped (the blog finds value clipping does not help, or hurts);
* (10) entropy bonus ``0.003`` (lower than 0.01: near-uniform choices over 30-80 feasible nodes
  were slow to sharpen); (11) global gradient-norm clipping at ``0.5``;
* invalid-action masking (Huang and Ontañón, 2022): infeasible nodes get a ``-1e8`` logit, so
  their probability and gradient are zero.

One environment, one rollout buffer of ``rollout_steps`` transitions, typed as
:class:`RolloutBatch`. Training runs over a *schedule* of ``(env, steps)`` stages, which is how
the curriculum (:mod:`aesp.policy.curriculum`) plugs in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from torch.distributions import Categorical

from aesp.policy.env import SchedulingEnv
from aesp.policy.networks import NodeScorer
from aesp.policy.observation import CONTEXT_DIM, NODE_DIM


@dataclass(frozen=True)
class PPOConfig:
    """Hyper-parameters (CleanRL reference values, tuned where noted)."""

    rollout_steps: int = 1024
    epochs: int = 8
    minibatch: int = 256
    lr: float = 1e-3
    anneal_lr: bool = True
    gamma: float = 0.95
    """Shorter than the usual 0.99: a placement's reward is mostly immediate, and a long horizon
    adds the variance of unrelated future tasks."""
    gae_lambda: float = 0.9
    clip_coef: float = 0.2
    ent_coef: float = 0.003
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    norm_adv: bool = True
    hidden: int = 64
    threads: int = 1
    """``torch.set_num_threads`` during training. One thread: the per-step forward passes are
    tiny, and a second thread competing for a busy CPU made them 500x slower in our runs."""
    eval_every: int = 4096
    """Environment steps between evaluations."""
    eval_episodes: int = 4


@dataclass
class RolloutBatch:
    """One rollout, flattened over time.

    Shapes: nodes ``(T, M, NODE_DIM)``, context ``(T, CONTEXT_DIM)``, mask ``(T, M)`` bool;
    actions, logprobs, values, rewards, dones, advantages, returns ``(T,)``.
    """

    nodes: torch.Tensor
    context: torch.Tensor
    mask: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor
    advantages: torch.Tensor = field(default_factory=lambda: torch.zeros(0))
    returns: torch.Tensor = field(default_factory=lambda: torch.zeros(0))

    @classmethod
    def empty(cls, steps: int, max_nodes: int) -> RolloutBatch:
        z = torch.zeros
        return cls(z(steps, max_nodes, NODE_DIM), z(steps, CONTEXT_DIM),
                   z(steps, max_nodes, dtype=torch.bool), z(steps, dtype=torch.long),
                   z(steps), z(steps), z(steps), z(steps))


@dataclass(frozen=True)
class UpdateStats:
    """What one PPO update reports to callbacks."""

    step: int
    total_steps: int
    episodes: int
    mean_episode_return: float
    policy_loss: float
    value_loss: float
    entropy: float
    approx_kl: float
    clip_fraction: float
    eval_return: float | None
    wall_s: float


Callback = Callable[[UpdateStats], None]


@dataclass
class TrainResult:
    model: NodeScorer
    curve: list[list[float]]
    """``[step, eval_return]`` pairs."""
    config: PPOConfig
    wall_s: float


def obs_tensors(obs: dict[str, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:  # type: ignore[type-arg]
    """A single observation as a batch of one."""
    return (torch.as_tensor(obs["nodes"]).unsqueeze(0), torch.as_tensor(obs["context"]).unsqueeze(0),
            torch.as_tensor(obs["action_mask"] > 0.5).unsqueeze(0))


def greedy_return(model: NodeScorer, env: SchedulingEnv, seeds: Sequence[int]) -> float:
    """Mean undiscounted return of the argmax policy over episodes reset with ``seeds``."""
    total = 0.0
    with torch.no_grad():
        for s in seeds:
            obs, _ = env.reset(seed=s)
            done = False
            while not done:
                action = int(model.logits(*obs_tensors(obs)).argmax())
                obs, r, term, trunc, _ = env.step(action)
                total += float(r)
                done = term or trunc
    return total / max(len(seeds), 1)


def gae(batch: RolloutBatch, next_value: float, next_done: bool, gamma: float, lam: float) -> None:
    """Fill ``advantages`` and ``returns`` (Schulman et al. 2016, GAE; detail 5)."""
    t_max = len(batch.rewards)
    adv = torch.zeros(t_max)
    last = 0.0
    for t in reversed(range(t_max)):
        if t == t_max - 1:
            nonterminal, nv = 1.0 - float(next_done), next_value
        else:
            nonterminal, nv = 1.0 - float(batch.dones[t + 1]), float(batch.values[t + 1])
        delta = float(batch.rewards[t]) + gamma * nv * nonterminal - float(batch.values[t])
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    batch.advantages, batch.returns = adv, adv + batch.values


def ppo_update(model: NodeScorer, opt: torch.optim.Optimizer, batch: RolloutBatch,
               cfg: PPOConfig, rng: np.random.Generator) -> dict[str, float]:
    """Several epochs of clipped-surrogate mini-batch updates on one rollout."""
    stats: dict[str, list[float]] = {"pg": [], "v": [], "ent": [], "kl": [], "clip": []}
    t_max = len(batch.rewards)
    for _ in range(cfg.epochs):
        order = rng.permutation(t_max)
        for start in range(0, t_max, cfg.minibatch):
            mb = torch.as_tensor(order[start : start + cfg.minibatch])
            logits = model.logits(batch.nodes[mb], batch.context[mb], batch.mask[mb])
            dist = Categorical(logits=logits)
            logratio = dist.log_prob(batch.actions[mb]) - batch.logprobs[mb]  # type: ignore[no-untyped-call]
            ratio = logratio.exp()
            adv = batch.advantages[mb]
            if cfg.norm_adv and len(mb) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio,
                                -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            value = model.value(batch.nodes[mb], batch.context[mb], batch.mask[mb])
            v_loss = 0.5 * ((value - batch.returns[mb]) ** 2).mean()
            entropy = _masked_entropy(dist, batch.mask[mb])
            loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["pg"].append(float(pg_loss))
                stats["v"].append(float(v_loss))
                stats["ent"].append(float(entropy))
                stats["kl"].append(float(((ratio - 1) - logratio).mean()))
                stats["clip"].append(float(((ratio - 1).abs() > cfg.clip_coef).float().mean()))
    return {k: float(np.mean(v)) for k, v in stats.items()}


def _masked_entropy(dist: Categorical, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over feasible nodes only (masked logits would give ``0 * -1e8`` terms)."""
    p = dist.probs
    logp = torch.where(mask, dist.logits, torch.zeros_like(dist.logits))
    return -(p * logp).sum(-1).mean()


def train(schedule: Sequence[tuple[SchedulingEnv, int]], eval_env: SchedulingEnv,
          eval_seeds: Sequence[int], cfg: PPOConfig = PPOConfig(), seed: int = 0,
          callback: Callback | None = None) -> TrainResult:
    """Train a fresh :class:`NodeScorer` over ``(env, steps)`` stages.

    Every stage's environment must use the same ``max_nodes``. Evaluation (greedy policy on
    ``eval_env`` with ``eval_seeds``) runs every ``cfg.eval_every`` steps and at the end.
    """
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = NodeScorer(NODE_DIM, CONTEXT_DIM, cfg.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=1e-5)
    total = sum(steps for _, steps in schedule)
    wall0, step, next_eval = time.perf_counter(), 0, 0
    curve: list[list[float]] = []
    episode_returns: list[float] = []
    for env, steps in schedule:
        runner = _Runner(env, int(rng.integers(2**31)))
        stage_end = step + steps
        while step < stage_end:
            n = min(cfg.rollout_steps, stage_end - step)
            batch, next_value, next_done = runner.collect(model, n)
            step += n
            gae(batch, next_value, next_done, cfg.gamma, cfg.gae_lambda)
            if cfg.anneal_lr:
                opt.param_groups[0]["lr"] = cfg.lr * max(1.0 - step / total, 0.0)
            stats = ppo_update(model, opt, batch, cfg, rng)
            episode_returns += runner.take_returns()
            eval_ret = None
            if step >= next_eval or step >= total:
                eval_ret = greedy_return(model, eval_env, eval_seeds)
                curve.append([float(step), eval_ret])
                next_eval = step + cfg.eval_every
            if callback is not None:
                recent = episode_returns[-10:]
                callback(UpdateStats(step, total, len(episode_returns),
                                     float(np.mean(recent)) if recent else float("nan"),
                                     stats["pg"], stats["v"], stats["ent"], stats["kl"],
                                     stats["clip"], eval_ret, time.perf_counter() - wall0))
    model.eval()
    return TrainResult(model, curve, cfg, time.perf_counter() - wall0)


class _Runner:
    """Steps one environment with the current policy and records transitions."""

    def __init__(self, env: SchedulingEnv, seed: int) -> None:
        self.env = env
        self.obs, _ = env.reset(seed=seed)
        self.done = False
        self.ep_return = 0.0
        self.returns: list[float] = []

    def collect(self, model: NodeScorer, steps: int) -> tuple[RolloutBatch, float, bool]:
        b = RolloutBatch.empty(steps, self.env.config.max_nodes)
        with torch.no_grad():
            for t in range(steps):
                nodes, context, mask = obs_tensors(self.obs)
                logits = model.logits(nodes, context, mask)
                dist = Categorical(logits=logits)
                action = dist.sample()  # type: ignore[no-untyped-call]
                b.nodes[t], b.context[t], b.mask[t] = nodes[0], context[0], mask[0]
                b.actions[t], b.logprobs[t] = action[0], dist.log_prob(action)[0]  # type: ignore[no-untyped-call]
                b.values[t] = model.value(nodes, context, mask)[0]
                b.dones[t] = float(self.done)
                self.obs, r, term, trunc, _ = self.env.step(int(action[0]))
                b.rewards[t] = float(r)
                self.ep_return += float(r)
                self.done = term or trunc
                if self.done:
                    self.returns.append(self.ep_return)
                    self.ep_return = 0.0
                    self.obs, _ = self.env.reset()
            next_value = float(model.value(*obs_tensors(self.obs))[0])
        return b, next_value, self.done

    def take_returns(self) -> list[float]:
        out, self.returns = self.returns, []
        return out


def config_dict(cfg: PPOConfig) -> dict[str, float | int | bool]:
    """The config as plain values (for checkpoints)."""
    return dict(asdict(cfg))
