"""A float64 re-run of seed 003's Algorithm 7 (SGG privacy accounting) for Figure 3, beside certdp.

UNCERTIFIED. This script is a *reading* of the paper's description of Alg. 7 (Sec. 4.4, Prop. 4.2,
App. D: Alg. 7, Lemma D.1, Eq. (17)), re-implemented in plain float64 numpy/scipy. Nothing it prints
about Alg. 7 is a bound; it is what Alg. 7 (as we read it) would report. The certified numbers it
prints beside it come from certdp (docs/sgg_composition.json, and ``certdp.compose`` at Alg. 7's
scale), and only those decide anything.

Setting (Figure 3): (eps_tot, delta) = (1, 1e-5), T = 10, alpha = 9, p = 1 (the l2 mechanism =
``l2-laplace`` with beta = 1/theta), l2 sensitivity s = 1, k in {2, 4, 8, 16, 32}.
MSE = E||X||^2 = T (T + 1) theta^2.

Alg. 7 as implemented here:

1. Grid centres z_i = -L + i h (i = 0..M-1, M = 1 + 2L/h, odd), edges b_i = z_i - h/2.
2. Pr[Z <= b] by Lemma D.1, Pr[Z <= z] = int f_R(r) F_W(w*(r, -z)) dr, with the radial integral
   replaced by a K-node Gauss-Laguerre rule after t = beta r^p (Eq. (17)), F_W the CDF of the cosine
   W of a uniform direction on S^{T-1} (regularized incomplete beta), and the threshold w*(r_k, y)
   by a dense lookup table of w -> l(r_k, w) on N_w points of [-1, 1] plus linear interpolation
   (the paper's "table lookup followed by linear interpolation").
3. pmf pi_i = Pr[Z <= b_{i+1}] - Pr[Z <= b_i] (the mass of the bin goes to its CENTRE z_i).
4. k-fold convolution by numpy FFT, the single-step pmf multiplied in k - 1 times, cropping back to
   [-L, L] after each multiplication (mass pushed outside the window is dropped).
5. delta_k(eps) = sum_i pi^(*k)_i (1 - e^(eps - z_i))_+.
6. Calibration: bisection on log theta for delta_k(1) = 1e-5 (the paper's "smallest noise such that
   the computed composed delta meets delta_tar"); the returned theta is the bisection's upper end.

Choices the paper leaves open (ours are marked; change them with the flags):

* L, h, K, N_w and the precision are parameters of Alg. 7 without published values. Defaults here:
  L = 8 (the composed loss of Figure 3's mechanisms stays well inside it), h = 1e-3, K = 64,
  N_w = 2001, float64. ``--settings`` reruns Alg. 7 at 5 alternatives (h, K/N_w, L) to show its
  sensitivity to them; a scale that falls below the certified bracket is then certified by
  ``certdp.compose``.
* "Gauss-Laguerre" is read as the generalized rule with weight t^(a-1) e^(-t), a = (alpha+1)/p
  (t = beta R^p ~ Gamma(a, 1) exactly), weights normalised by Gamma(a) so they sum to 1. The plain
  rule (weight e^(-t), integrand t^(a-1)/Gamma(a) F_W) is available with ``--plain-laguerre``.
* Mass below b_0 and above b_{M-1} + h is dropped in step 3 (no mass at infinity), as in step 4.
* k-fold: repeated multiplication by the one-step pmf (k - 1 FFT products, zero-padded to avoid
  wrap-around), not binary powering; the paper says only "cropping after each multiplication".
* Both adjacency directions coincide for spherically symmetric noise, so one PRV is used.
* Bisection starts from [theta0 / 2, 2 theta0] around certdp's float candidate and runs 40 steps.

For each k it prints Alg. 7's theta and MSE, certdp's certified composed theta bracket (from
docs/sgg_composition.json), the relative difference of Alg. 7's theta to the bracket's SAFE end,
where Alg. 7's theta falls (inside / below = unsafe side / above), and -- unless ``--no-certify`` --
certdp's certified composed delta(1) at Alg. 7's theta (``certdp.compose``): an upper end > 1e-5
would PROVE that Alg. 7's scale violates the target; a lower end > 1e-5 likewise with the lower
end; a bracket straddling 1e-5 decides nothing.

Run: ``PYTHONPATH=. python3 benchmarks/sgg_alg7_float.py [--k 2,4,8,16,32] [--settings] [--no-certify]
[--grid-bits B --certify-rtol 1e-4]`` (the last two: a finer certified compose at Alg. 7's theta)
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time

import numpy as np
from scipy.special import betainc, gammaln, roots_genlaguerre, roots_laguerre

T, ALPHA, P, S = 10, 9.0, 1.0, 1.0
EPS_TOT, DELTA_TAR = 1.0, 1e-5
ROOT = pathlib.Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- Lemma D.1 pieces (float64)

def loss_l(r: np.ndarray, w: np.ndarray, beta: float, s: float = S, T: int = T, alpha: float = ALPHA,
           p: float = P) -> np.ndarray:
    """l(r, w) = log f_X(x + mu) / f_X(x) at ||x|| = r, cos angle(x, mu) = w (Lemma 4.1's Phi)."""
    q = r * r + 2.0 * s * w * r + s * s
    out = beta * (r ** p - q ** (p / 2.0))
    if alpha + 1.0 - T != 0.0:
        out = out + 0.5 * (alpha + 1.0 - T) * np.log(q / (r * r))
    return out


def F_W(w: np.ndarray, T: int = T) -> np.ndarray:
    """CDF of W = <mu/|mu|, U>, U uniform on S^{T-1}: density ~ (1 - w^2)^((T-3)/2)."""
    a = 0.5 * (T - 1)
    return betainc(a, a, np.clip((1.0 + w) / 2.0, 0.0, 1.0))


class Alg7CDF:
    """Pr[Z <= z] by Eq. (17): K Gauss-Laguerre radii, per-radius lookup tables of w -> l(r_k, w)."""

    def __init__(self, theta: float, K: int, Nw: int, plain: bool = False):
        beta = 1.0 / theta
        a = (ALPHA + 1.0) / P
        if plain:
            t, wt = roots_laguerre(K)
            wt = wt * np.exp((a - 1.0) * np.log(t) - gammaln(a))
        else:
            t, wt = roots_genlaguerre(K, a - 1.0)
            wt = wt / math.exp(gammaln(a))
        self.r = (t / beta) ** (1.0 / P)
        self.weights = wt
        self.wgrid = np.linspace(-1.0, 1.0, Nw)
        # l(r_k, .) is strictly decreasing in w; store increasing for np.interp
        self.tables = [loss_l(rk, self.wgrid, beta)[::-1] for rk in self.r]
        self.lmax = max(float(tb[-1]) for tb in self.tables)  # sup of l over the nodes
        self.lmin = min(float(tb[0]) for tb in self.tables)

    def cdf(self, z: np.ndarray) -> np.ndarray:
        y = -np.asarray(z, dtype=float)
        out = np.zeros_like(y)
        wrev = self.wgrid[::-1]
        for wk, tb in zip(self.weights, self.tables):
            # w*(r_k, y) = sup{w : l(r_k, w) >= y}: table lookup + linear interpolation, clamped to [-1, 1]
            wstar = np.interp(y, tb, wrev, left=1.0, right=-1.0)
            out += wk * F_W(wstar)
        return out


# ---------------------------------------------------------------- Alg. 7

def alg7_delta(theta: float, k: int, eps: float = EPS_TOT, L: float = 8.0, h: float = 1e-3, K: int = 64,
               Nw: int = 2001, plain: bool = False) -> float:
    """Alg. 7's delta_k(eps) in float64 (UNCERTIFIED; see the module docstring)."""
    c = int(round(L / h))
    M = 2 * c + 1
    z = (np.arange(M) - c) * h
    cdf = Alg7CDF(theta, K, Nw, plain)
    # the CDF is 0 below -lmax and 1 above -lmin: evaluate only where it moves (same numbers, cheaper)
    edges = np.concatenate([z - h / 2.0, [z[-1] + h / 2.0]])
    F = np.empty(M + 1)
    lo_z, hi_z = -cdf.lmax - h, -cdf.lmin + h
    inside = (edges >= lo_z) & (edges <= hi_z)
    F[edges < lo_z] = 0.0
    F[edges > hi_z] = 1.0
    F[inside] = cdf.cdf(edges[inside])
    pi = np.diff(F)
    nz = np.nonzero(pi)[0]
    i0, i1 = int(nz[0]), int(nz[-1]) + 1
    step = pi[i0:i1]  # one-step pmf on indices i0..i1-1 of the window
    law, off = step.copy(), i0  # law[j] sits at window index off + j
    for _ in range(k - 1):
        n = len(law) + len(step) - 1
        nfft = 1 << (n - 1).bit_length()
        prod = np.fft.irfft(np.fft.rfft(law, nfft) * np.fft.rfft(step, nfft), nfft)[:n]
        off = off + i0 - c  # index arithmetic: (off - c) + (i0 - c) + c
        lo, hi = max(0, -off), min(n, M - off)  # crop back to [-L, L]
        law, off = prod[lo:hi], off + lo
    zz = (np.arange(len(law)) + off - c) * h
    sel = zz > eps
    return float(np.sum(law[sel] * -np.expm1(eps - zz[sel])))


def alg7_calibrate(k: int, theta0: float, iters: int = 40, **kw) -> tuple[float, float]:
    """Bisection on log theta for alg7_delta = DELTA_TAR; returns (theta, Alg. 7's delta there)."""
    lo, hi = math.log(theta0 / 2.0), math.log(theta0 * 2.0)
    assert alg7_delta(math.exp(lo), k, **kw) > DELTA_TAR > alg7_delta(math.exp(hi), k, **kw)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if alg7_delta(math.exp(mid), k, **kw) > DELTA_TAR:
            lo = mid
        else:
            hi = mid
    return math.exp(hi), alg7_delta(math.exp(hi), k, **kw)


# ---------------------------------------------------------------- certified comparison

def certified_delta(theta: float, k: int, grid_bits: int | None = None,
                    rtol: str = "0.01") -> tuple[float, float, float]:
    import certdp

    t0 = time.perf_counter()
    plan = {"mechanisms": [{"mechanism": "l2-laplace", "theta": repr(theta), "dimension": T,
                            "sensitivity": "1", "count": k}]}
    cert = certdp.compose(plan, epsilon="1", grid_bits=grid_bits, rtol=rtol)
    lo, hi = (float(x) for x in cert.delta_enclosure)
    return lo, hi, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", default="2,4,8,16,32")
    ap.add_argument("--settings", action="store_true", help="also run Alg. 7 at 3 other discretizations")
    ap.add_argument("--no-certify", action="store_true", help="skip certdp.compose at Alg. 7's theta")
    ap.add_argument("--plain-laguerre", action="store_true")
    ap.add_argument("--grid-bits", type=int, default=None, help="lattice step 2^-B of the certified compose")
    ap.add_argument("--certify-rtol", default="0.01", help="rtol of the certified compose")
    ap.add_argument("--L", type=float, default=8.0)
    ap.add_argument("--h", type=float, default=1e-3)
    ap.add_argument("--K", type=int, default=64)
    ap.add_argument("--Nw", type=int, default=2001)
    args = ap.parse_args()
    ks = [int(x) for x in args.k.split(",")]
    rows = {r["k"]: r for r in json.loads((ROOT / "docs" / "sgg_composition.json").read_text())["rows"]}
    base = dict(L=args.L, h=args.h, K=args.K, Nw=args.Nw, plain=args.plain_laguerre)
    mse = lambda th: T * (T + 1) * th * th  # noqa: E731

    print("Seed 003 Alg. 7, float64 re-run (UNCERTIFIED) vs certdp's certified composed calibration")
    print(f"(eps_tot, delta) = (1, 1e-5), T = {T}, alpha = 9, p = 1, s = 1; Alg. 7 at L = {args.L}, "
          f"h = {args.h}, K = {args.K}, N_w = {args.Nw}, {'plain' if args.plain_laguerre else 'generalized'} "
          "Gauss-Laguerre")
    print(" k | Alg.7 theta | Alg.7 MSE | certified theta bracket | certified MSE bracket | "
          "Alg.7/safe-1 (theta) | Alg.7/safe-1 (MSE) | where | certified delta(1) at Alg.7 theta | verdict")
    results = []
    for k in ks:
        r = rows[k]
        tlo, thi = (float(x) for x in r["accountant_theta"])
        mlo, mhi = (float(x) for x in r["accountant_mse"])
        t0 = time.perf_counter()
        th, d = alg7_calibrate(k, float(r.get("float_theta") or thi), **base)
        ta = time.perf_counter() - t0
        where = "inside" if tlo <= th <= thi else ("BELOW (unsafe side)" if th < tlo else "above (safe side)")
        cert_s, verdict = "skipped", ""
        if not args.no_certify:
            dlo, dhi, tc = certified_delta(th, k, args.grid_bits, args.certify_rtol)
            cert_s = f"[{dlo:.6e}, {dhi:.6e}] ({tc:.0f} s)"
            if dlo > DELTA_TAR:
                verdict = "PROVEN VIOLATION: certified delta > 1e-5"
            elif dhi <= DELTA_TAR:
                verdict = "proven safe"
            else:
                verdict = "undecided (bracket straddles 1e-5)"
        print(f"{k:2d} | {th:.6f} | {mse(th):9.2f} | [{tlo:.5f}, {thi:.5f}] | [{mlo:.2f}, {mhi:.2f}] | "
              f"{th / thi - 1:+.3%} | {mse(th) / mhi - 1:+.3%} | {where} | {cert_s} | {verdict}  "
              f"[Alg.7 {ta:.0f} s, its delta {d:.4e}]", flush=True)
        results.append((k, th))

    if args.settings:
        print("\nAlg. 7's sensitivity to its own discretization: the theta it calibrates, relative to the "
              "default row, and where it falls in the certified bracket")
        alts = [("h = 1e-2", dict(base, h=1e-2)), ("h = 2.5e-4", dict(base, h=2.5e-4)),
                ("K = 8, N_w = 51", dict(base, K=8, Nw=51)),
                ("L = 1.5 (crop)", dict(base, L=1.5)), ("L = 1.2 (crop)", dict(base, L=1.2))]
        print(" k | " + " | ".join(name for name, _ in alts))
        proofs = []
        for k, th in results:
            tlo, thi = (float(x) for x in rows[k]["accountant_theta"])
            cells = []
            for name, kw in alts:
                try:
                    t2, _ = alg7_calibrate(k, th, iters=30, **kw)
                except AssertionError:
                    cells.append("bracket failed")
                    continue
                tag = "in" if tlo <= t2 <= thi else ("BELOW" if t2 < tlo else "above")
                cells.append(f"{t2:.6f} ({t2 / th - 1:+.3%}, {tag})")
                if tag == "BELOW" and not args.no_certify:
                    proofs.append((k, name, t2))
            print(f"{k:2d} | " + " | ".join(cells), flush=True)
        for k, name, t2 in proofs:
            dlo, dhi, tc = certified_delta(t2, k)
            v = "PROVEN VIOLATION" if dlo > DELTA_TAR else "not proven"
            print(f"k = {k}, Alg. 7 at {name}: theta {t2:.6f}, certified composed delta(1) in "
                  f"[{dlo:.6e}, {dhi:.6e}] ({tc:.0f} s): {v} of delta = 1e-5", flush=True)

if __name__ == "__main__":
    main()
