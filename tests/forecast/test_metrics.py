"""Metric table tests; the arithmetic is in the comments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aesp.forecast import metrics


def _arr(*rows: list[float]) -> np.ndarray:
    return np.array(rows, dtype=np.float64)


Y = _arr([10.0, 0.0, 4.0, 2.0])
Y_HAT = _arr([8.0, 1.0, 4.0, 5.0])
ALL = np.ones_like(Y, dtype=bool)


def test_mae_rmse() -> None:
    # errors: 2, 1, 0, 3 -> MAE = 6/4 = 1.5; RMSE = sqrt((4+1+0+9)/4) = sqrt(3.5)
    assert metrics.mae(Y, Y_HAT, ALL) == pytest.approx(1.5)
    assert metrics.rmse(Y, Y_HAT, ALL) == pytest.approx(math.sqrt(3.5))


def test_invalid_points_are_skipped() -> None:
    # only points 0 and 3 count: (2 + 3) / 2 = 2.5
    valid = np.array([[True, False, False, True]])
    assert metrics.mae(Y, Y_HAT, valid) == pytest.approx(2.5)
    assert math.isnan(metrics.mae(Y, Y_HAT, np.zeros_like(valid)))


def test_smape() -> None:
    # 200|e|/(|y|+|y_hat|): 200*2/18 = 22.222, 200*1/1 = 200, 200*0/8 = 0, 200*3/7 = 85.714
    # mean = (22.222 + 200 + 0 + 85.714) / 4 = 76.984
    assert metrics.smape(Y, Y_HAT, ALL) == pytest.approx((400 / 18 + 200 + 0 + 600 / 7) / 4)


def test_smape_skips_both_zero() -> None:
    # the (0, 0) point is skipped; the other is 200*1/3 = 66.667
    assert metrics.smape(_arr([0.0, 1.0]), _arr([0.0, 2.0]), np.ones((1, 2), bool)) == (
        pytest.approx(200 / 3)
    )


def test_mape_guards_near_zero() -> None:
    # eps = 1: y = 0 is skipped; 100*2/10 = 20, 100*0/4 = 0, 100*3/2 = 150 -> mean 56.667
    assert metrics.mape(Y, Y_HAT, ALL, np.array(1.0)) == pytest.approx(170 / 3)
    # eps = 3 also skips y = 2: (20 + 0) / 2 = 10
    assert metrics.mape(Y, Y_HAT, ALL, np.array(3.0)) == pytest.approx(10.0)


def test_mase() -> None:
    # scale 2: scaled errors 1, 0.5, 0, 1.5 -> mean 0.75
    assert metrics.mase(Y, Y_HAT, ALL, np.array(2.0)) == pytest.approx(0.75)


def test_naive_scale_uses_observed_pairs() -> None:
    # diffs of [1, 3, 2, 6]: 2, 1, 4; point 2 unobserved drops pairs (3,2) and (2,6) -> 2/1 = 2
    train = _arr([1.0, 3.0, 2.0, 6.0])
    observed = np.array([[True, True, False, True]])
    assert metrics.naive_scale(train, observed)[0] == pytest.approx(2.0)
    assert metrics.naive_scale(train, np.ones_like(observed))[0] == pytest.approx(7 / 3)


def test_change_sigma_is_mad_based() -> None:
    # 1-step changes of [0, 1, 3, 4, 10]: 1, 2, 1, 6; median 1.5; |dev| .5 .5 .5 4.5 -> MAD .5
    # sigma = 1.4826 * 0.5 = 0.7413
    sigma = metrics.change_sigma(_arr([0.0, 1.0, 3.0, 4.0, 10.0]), 1)
    assert sigma[0, 0] == pytest.approx(0.7413)


def test_burst_points() -> None:
    # last value 10, sigma 1, k 2: a change of more than 2 is a burst -> 13 yes, 11 no, 7 yes
    y = np.array([[[13.0, 11.0, 7.0]]])
    bursts = metrics.burst_points(y, np.array([[10.0]]), np.ones((1, 3)), k=2.0)
    assert bursts.tolist() == [[[True, False, True]]]


def test_mape_eps_is_fraction_of_p99() -> None:
    # p99 of |0..100| = 99; 1 % of that = 0.99
    assert metrics.mape_eps(np.arange(101.0)[None, :])[0] == pytest.approx(0.99)
