"""Exact hockey-stick engine for equal-variance Gaussian mixtures (seed 000, made rigorous).

Setting
-------
``f(x) = sum_j w_j * N(x; m_j, s^2) * 1[x in S_j]`` with one common ``s`` (``sigma``),
weights ``w_j > 0`` and supports ``S_j`` that are the whole line or a half-line. The
density must be *continuous* (plain mixtures always are; the quasi-Gaussian's folded
component ``exp(-(|x| - Delta)^2 / 2 s^2)`` is continuous at 0). For the additive mechanism
``M(D) = q(D) + X``, ``X ~ f``, with sensitivity ``Delta`` the privacy profile is::

    delta(eps) = sup_{|phi| <= Delta} H(phi),   H(phi) = int (f(x + phi) - e^eps f(x))_+ dx.

The sup over ``phi in [-Delta, Delta]`` covers both orders of a neighbouring pair:
``int (f(x) - e^eps f(x + phi))_+ dx = H(-phi)`` (substitute ``y = x + phi``). Negative shifts
of ``f`` are positive shifts of the mirrored density ``f(-x)``, so the engine runs the search on
``phi in [0, Delta]`` for ``f`` and, unless the caller declares ``f`` symmetric
(``f(-x) = f(x)`` gives ``H(-phi) = H(phi)``: substitute ``x -> -x``), once more for the mirror.

Fixed shift: exact integral, no quadrature
-------------------------------------------
``D(x) = f(x + phi) - e^eps f(x)`` is ``exp(-x^2 / 2 s^2)`` times the exponential sum
``sum_j c_j exp(lambda_j x)`` (``lambda_j = (m_j - phi)/s^2`` with ``c_j > 0`` for the shifted
components, ``lambda_j = m_j / s^2`` with ``c_j < 0`` for the others), so by the
Descartes-Laguerre rule it has at most as many real roots as sign changes of the ``c_j``
ordered by ``lambda_j``. We do not rely on that count for correctness: we *certify* the sign
structure of ``D`` on a finite window ``[XL, XR]`` directly with Arb:

* the window is cut into pieces (float root estimates only choose the cut points);
* a piece is certified positive / negative if the Arb enclosure of ``D`` on the whole piece
  excludes 0, or if the enclosure of ``D'`` on the piece excludes 0 (``D`` monotone) and
  ``D`` has the same certified sign at both ends; a monotone piece whose ends have opposite
  certified signs holds exactly one simple root and is shrunk by certified bisection;
* what cannot be signed (a root piece of tiny width, a breakpoint of a truncated component
  under a ball of shifts) is an *uncertain* piece ``Q``.

The one place where the count *is* used: at a shift that moves components exactly onto others
(MG at ``phi = Delta``), ``D`` summed term by term cancels on long ranges and its pieces cannot be
signed, but the matched terms can be merged exactly; the merged sum has one sign change, so one
root, and ``H`` is a sum of Gaussian CDFs at it (:meth:`ShiftEngine.tied_value`).

The main sign test is on the log-ratio ``l = log f(x + phi) - log f(x)`` (``D > 0`` iff
``l > eps``), whose partials are enclosed from posterior means at box corners
(:meth:`MixtureDifference.logratio_sign`); for lattice mixtures (MG) the kernel sums and posterior
means are polynomial evaluations (:meth:`GaussianMixture.log_kernel_sum`). A float version of the
same test (:meth:`MixtureDifference.float_signability`) decides *where* to spend Arb evaluations:
pieces are split in floats while it predicts failure, and a piece it still predicts unsignable at
the depth limit is left uncertain without evaluation (uncertain is always sound).

Then, with ``P`` the certified-positive pieces,

    int_P D  <=  H(phi)  <=  int_P D + sum_Q |Q| * max(0, sup_Q D) + tail(XL, XR),

where ``int_P D`` is an exact sum of Gaussian-CDF differences (through ``erfc``, no
cancellation in the tails, no exponent limit) and the tail term is the mass of
``f(. + phi)`` outside the window, ``sum_j w_j [Phi((XL+phi-m_j)/s) + Phi((m_j-phi-XR)/s)]``
(``D <= f(. + phi)``). Lower end: ``P`` is contained in the positive set. Upper end: the
positive set is contained in ``P`` union the ``Q`` pieces union the tails.

Sup over the shift: branch and bound with derivative enclosures
---------------------------------------------------------------
*Lipschitz constant.* ``(a)_+ - (b)_+ <= (a - b)_+`` gives, for ``h = phi_1 - phi_2``,
``H(phi_1) - H(phi_2) <= int (f(x + phi_1) - f(x + phi_2))_+ dx = TV(f, f(. + h))`` and the
total variation of a mixture shift is at most the weighted sum of the components' ones
(convexity; truncation to a half-line keeps each ``<=``)::

    |H(phi_1) - H(phi_2)| <= sum_j w_j (2 Phi(|h| / 2s) - 1) <= |h| / (sqrt(2 pi) s)

since ``2 Phi(t) - 1 <= 2 t phi(0) = t sqrt(2/pi)`` and ``sum_j w_j = 1``. This is the
constant ``1 / (sqrt(2 pi) sigma)`` of seed 000 (proof of Thm 3.5). It is far too weak to
certify a sup to relative accuracy ``1e-12`` when ``delta`` is ``1e-7`` (it needs ``O(1/delta)``
shifts, which is the paper's grid), so we use the *local* derivative instead:

*Derivative.* Since ``{D = 0}`` is a null set (``D`` is real-analytic on each piece and not
identically 0 for ``eps > 0``) and ``|d/dphi D| = |f'(x + phi)|`` is integrable, dominated
convergence gives ``H'(phi) = int_{D > 0} f'(x + phi) dx``. On a run ``[a, b]`` of positive
pieces this is ``f(b + phi) - f(a + phi)`` (``f`` continuous); an uncertain piece contributes a
value in ``|Q| * [min(0, inf f'), max(0, sup f')]`` over ``Q + phi``; a tail contributes at most
``sum_j w_j N(XR + phi - m_j; 0, s^2)`` in absolute value (``f`` decreasing there). All these
are evaluated with ``phi`` a *ball* ``[phi_a, phi_b]``: the sign structure is certified for
every shift in the ball at once, so ``H'([phi_a, phi_b])`` is a certified enclosure.

*Second-order model on a ball of shifts* (:meth:`ShiftEngine.shift_expansion`). A ball enclosure of
``f(b + phi) - f(a + phi)`` for a narrow run loses the near-cancellation of its two ends: its
width grows like ``|f'| * w`` per run while the true ``H''`` is small (for MG with
``sigma << Delta``, ~35 runs and a sharp interior peak of ``phi -> H(phi)``). So ``H'`` is written
as boundary terms and each is expanded around the ball's centre ``m`` by the mean value theorem:
fixed piece ends ``c`` give ``f(c + m) + f'(c + phi) (t - m)``; a *clean* root piece (neighbours
of opposite certified signs, ``l_x = d/dx [log f(x + t) - log f(x)]`` bounded away from 0 on the
piece times the ball, from posterior means) holds one simple root ``r(t)`` for every shift, and
``f(r(t) + t)`` has derivative ``-f'(r + t) (log f)'(r) / l_x`` (implicit function theorem), its
value at ``m`` being enclosed by an interval Newton step. Hence
``H'(t) in A + B (t - m)`` with ``A`` tight (point values) and ``B`` an enclosure of ``H''``-like
terms, and ``H(m + u) - H(m) <= A u + B u^2 / 2``: the error is second order in the ball's width.
Every other uncertain piece ``Q`` (a root pair born or dying in the ball, a region where ``D`` is
too small to sign, the vanishing runs at the tied shift ``phi = Delta``) either enters ``A``
with the crude enclosure above or is split off as ``0 <= int_Q D_+ <= excess`` (``excess`` from
``|piece| * max(0, sup D)`` on adaptively bisected pieces), whichever bound is smaller.

*Bounds from the two end values alone* (no model of the interval; untruncated mixtures, and truncated
ones whose kinks are convex, :attr:`GaussianMixture.convex_kinks`: there ``f'`` only jumps up, so
``f + C x^2 / 2`` is still convex wherever the one-sided ``(-f'')_+ <= C``, and no mode sits at a
kink -- QG). For each ``x``, ``t -> f(x + t)`` on ``I = [a, b]`` (width ``w``) is a function of one variable:

* *envelope* (:meth:`ShiftEngine.envelope_bound`): where ``f`` has no local maximum inside ``x + I``,
  ``sup_t D(x, t)_+ <= D(x, a)_+ + D(x, b)_+``; at a maximum the ends are within
  ``(w^2 / 8) sup (-f'')_+`` of it. With the certified boxes holding the modes of ``f``
  (:attr:`GaussianMixture.mode_boxes`), ``H(t) <= H(a) + H(b) + O(w^3)``: it settles wide
  intervals whose end values are both well below the goal (including the tied region next to
  ``phi = Delta``, where the model's uncertain pieces are wide);
* *chord* (:meth:`ShiftEngine.chord_bound`): ``f(x + t)`` is at most its chord plus
  ``(w^2 / 8) sup (-f'')_+``, so ``H(t) <= max(H(a), H(b)) + (w^2 / 8) int_{X+} sup (-f'')_+``
  over the set ``X+`` where ``D`` can be positive (inside the ends' certified positive covers,
  or next to a mode of ``f``): it settles narrow intervals on the flanks of a sharp peak;
* *tie* (:meth:`ShiftEngine.tie_upper_bound`): at a shift that moves components exactly onto others
  (MG at ``phi = Delta``) the weights alone bound ``H`` (``H(Delta) <= w_{-K}``), used where that
  is far below the goal instead of the slow certified point value there.

*Branch and bound.* For a shift interval ``I``: the envelope and chord bounds are tried first
(from the end values, which every interval needs anyway); then the model: if its ``H'(I) > 0`` the
sup over ``I`` is ``H(phi_b)`` (a point evaluation), if ``H'(I) < 0`` it is ``H(phi_a)``; otherwise
``H(m) + rise`` bounds it (never worse than the Lipschitz bound from the ends), and ``I`` is
split while its upper bound exceeds the best certified lower bound by more than the tolerance
(or, in decision mode, until the comparison with the target is decided). Intervals are
sub-intervals of ``[0, Delta]`` with rational ends that cover the shift range exactly: quarters,
and around a float argmax hint an interval centred on it (``Delta / 16``, or a power of 2 near the
float width of the peak: 1/8 for a broad peak, 1/32 for a sharp one) with neighbours half as wide,
then doubling outwards up to the quarters; an interval holding a hint is split into three, the hint staying at the centre of the
middle one. The centre ``m`` is the midpoint, or a float argmax hint inside ``I``:
there ``A ~ 0``, so a model with a certified negative slope bounds the peak by ``H(m)`` plus a
negligible ``A^2 / (2 |B|)``. With a hint, intervals away from it wider than the peak's are
split without a model (their end values are below the goal by a margin that their halves'
end-value bounds will show). The model is also kept per sub-ball on a grid of 8 sub-balls through
``m`` (:meth:`ShiftExpansion.piecewise_sup`), integrated from the point values at both ends and
``m``: the same second-order bound with each sub-ball's own, much narrower, slope enclosure.

Guarantee of :func:`privacy_profile_sup`: the returned ``(lower, upper)`` arb balls satisfy
``lower <= delta(eps) <= upper`` for every point of the input balls (``sigma``, weights and
``eps`` may be balls). Floats are used only to choose cut points and candidate roots; a bad
float guess costs time, never correctness.

Package layout (imports point downwards in this list)
----------------------------------------------------
``settings``     :class:`MixtureSettings`, the engine's tuning constants (:data:`DEFAULT_SETTINGS`)
``balls``        small Arb ball helpers (``sqr``, ``ncdf``, ``interval_ball``, ...)
``model``        the mixture ``f``: :class:`Component`, :class:`GaussianMixture`
``signs``        certified signs of ``D`` on boxes: :class:`MixtureDifference`
``structure``    signed / uncertain pieces of the window for a ball of shifts: :class:`SignStructure`
``shift_value``  ``H`` at one shift, incl. the tied shift: :class:`ShiftResult`, ``ShiftValueMixin``
``ball_bounds``  Lipschitz / envelope / chord bounds over a ball of shifts: ``BallBoundsMixin``
``shift_model``  second-order model over a ball of shifts: :class:`ShiftExpansion`, ``ShiftModelMixin``
``engine``       :class:`ShiftEngine` (the three mixins), :func:`hockey_stick_at_shift`, :func:`hockey_stick_lower_bound`, :func:`witness_at_shift`
``search``       branch and bound over the shift: :func:`privacy_profile_sup`, :class:`SupResult`
``float_guide``  float64 guides (argmax hints, peak scales, float calibrations; never decide)
"""

from certdp.engines.gaussian_mixture.ball_bounds import lipschitz_constant, shift_tv_bound
from certdp.engines.gaussian_mixture.balls import interval_ball, sqr
from certdp.engines.gaussian_mixture.engine import (ShiftEngine, ShiftWitness, hockey_stick_at_shift,
                                                    hockey_stick_lower_bound, witness_at_shift)
from certdp.engines.gaussian_mixture.model import Component, GaussianMixture
from certdp.engines.gaussian_mixture.search import SupResult, privacy_profile_sup
from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS, MixtureSettings
from certdp.engines.gaussian_mixture.shift_model import ShiftExpansion
from certdp.engines.gaussian_mixture.shift_value import ShiftResult
from certdp.engines.gaussian_mixture.signs import MixtureDifference, Piece
from certdp.engines.gaussian_mixture.structure import SignStructure

__all__ = [
    "Component",
    "GaussianMixture",
    "ShiftResult",
    "SupResult",
    "hockey_stick_at_shift",
    "hockey_stick_lower_bound",
    "privacy_profile_sup",
    "lipschitz_constant",
    "shift_tv_bound",
    # documented internals (tests, audit witnesses, benchmarks)
    "DEFAULT_SETTINGS",
    "MixtureSettings",
    "MixtureDifference",
    "Piece",
    "ShiftEngine",
    "ShiftExpansion",
    "ShiftWitness",
    "SignStructure",
    "interval_ball",
    "sqr",
    "witness_at_shift",
]
