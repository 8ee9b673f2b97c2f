"""The learned placement policy: Gymnasium environment, PPO, curriculum, and the ``rl`` scheduler.

Importing this package imports nothing heavy; torch loads with :mod:`aesp.policy.networks`,
:mod:`aesp.policy.ppo`, :mod:`aesp.policy.checkpoint` and :mod:`aesp.policy.scheduler`. See
``docs/policy.md``.
"""
