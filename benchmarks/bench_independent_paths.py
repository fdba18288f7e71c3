"""Independent verify paths vs profile_ball, side by side.  Run:
PYTHONPATH=. python3 benchmarks/bench_independent_paths.py

For each 1-D mechanism with an ``independent_profile_ball`` (certified acb.integral
quadrature of the hockey-stick integral), at the calibrated parameter of a grid of
(eps, delta), the median seconds per evaluation at 128 and 256 bits of both paths,
their ratio, and the worst relative width of the independent ball.  No asserts.
"""

from __future__ import annotations

import math
import statistics
import time
from fractions import Fraction

from certdp.mechanisms.gaussian import Gaussian
from certdp.mechanisms.generalized_gaussian import GeneralizedGaussian
from certdp.mechanisms.laplace import Laplace
from certdp.mechanisms.uniform import Uniform
from certdp.numbers import arb_of, working_precision

EPS = ("0.01", "0.1", "1", "10")
DELTAS = (1e-5, 1e-12)


def rows():
    yield "gaussian", Gaussian, {"sensitivity": Fraction(1)}
    yield "laplace", Laplace, {"sensitivity": Fraction(1)}
    yield "uniform", Uniform, {"sensitivity": Fraction(1)}
    for p in ("1", "1.05", "1.5", "2", "3", "10", "inf"):
        yield f"ggm p={p}", GeneralizedGaussian, GeneralizedGaussian.parse_fixed(shape=p)


def candidate(cls, eps, delta, fixed):
    if cls is Uniform:
        return Fraction(1, 2) / Fraction(repr(delta))
    value = cls.float_candidate(float(eps), math.log(delta), **fixed)
    return None if value is None else Fraction(repr(value))


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main() -> None:
    print(f"{'mechanism':12s} {'bits':>4s} {'indep med s':>11s} {'indep max s':>11s} {'profile med s':>13s} "
          f"{'ratio':>6s} {'worst rel width':>15s}")
    for label, cls, fixed in rows():
        for bits in (128, 256):
            t_ind, t_ref, widths = [], [], []
            for eps in EPS:
                for delta in DELTAS:
                    value = candidate(cls, eps, delta, fixed)
                    if value is None:
                        continue
                    with working_precision(bits):
                        v, e = arb_of(value), arb_of(eps)
                        ind, dt = timed(lambda: cls.independent_profile_ball(v, e, **fixed))
                        ref, dr = timed(lambda: cls.profile_ball(v, e, **fixed))
                        assert ind.overlaps(ref), (label, eps, delta, ind, ref)
                        t_ind.append(dt)
                        t_ref.append(dr)
                        if ind.mid() != 0:
                            widths.append(float((2 * ind.rad() / abs(ind.mid())).upper()))
            med_i, med_r = statistics.median(t_ind), statistics.median(t_ref)
            print(f"{label:12s} {bits:4d} {med_i:11.4f} {max(t_ind):11.4f} {med_r:13.5f} "
                  f"{med_i / med_r:6.1f} {max(widths, default=0.0):15.1e}")


if __name__ == "__main__":
    main()
