"""Fit the polynomial coefficients of ``xlapy.backends.cpu.math`` (weighted minimax,
by the Remez exchange algorithm), and print them as Python literals.

Each approximation in those modules keeps the leading terms of its series exact (``1 + r``
for exp, ``x`` for sin...) and approximates only the *tail* with a polynomial, so the
tail's reference values must be accurate to well beyond double precision relative to the
tail itself: they come from series summed in ``np.longdouble`` (x87 extended, 64-bit
mantissa) or from closed forms in ``np.longdouble`` where no cancellation occurs. The fit
itself is in double precision on a scaled variable, which is plenty: the tail is a small
fraction of the result, so its relative error of ~1e-16 costs far less than an ULP.

Usage: ``.venv/bin/python tools/fit_math_approx.py [name ...]`` (names: see ``FITS``).
"""

from __future__ import annotations

import decimal
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

LD = np.longdouble
Fn = Callable[[np.ndarray], np.ndarray]


def remez(
    f: Fn,
    a: float,
    b: float,
    degree: int,
    weight: Fn | None = None,
    iterations: int = 40,
    grid_size: int = 20001,
    round_to: type = np.float64,
) -> tuple[np.ndarray, float]:
    """Coefficients c_0..c_degree (lowest first) of the polynomial p minimizing
    max |w(t) (f(t) - p(t))| over [a, b], rounded to ``round_to``, and that max for the
    rounded coefficients. Errors are evaluated in long double; the reference systems are
    solved in double and refined once in long double."""
    raw_weight = weight or (lambda t: np.ones_like(t))
    # A weight vanishing at an end (relative error of a tail at 0) would make the
    # reference system singular there: floor it far below its maximum.
    top = float(np.max(np.asarray(raw_weight(np.linspace(a, b, 101)), dtype=np.float64)))

    def w(t: np.ndarray) -> np.ndarray:
        return np.maximum(np.asarray(raw_weight(t), dtype=LD), LD(1e-6 * top))

    scale = max(abs(a), abs(b))
    n = degree + 2
    grid = np.linspace(a, b, grid_size)
    cheb = (a + b) / 2 + (b - a) / 2 * np.cos(np.linspace(0, np.pi, grid_size // 5))
    grid = np.unique(np.concatenate([grid, cheb]))
    f_grid = np.asarray(f(grid), dtype=LD)
    w_grid = w(grid)
    u_grid = np.asarray(grid, LD) / LD(scale)

    def error_of(c_scaled: np.ndarray) -> np.ndarray:
        p = np.zeros_like(u_grid)
        for c in c_scaled[::-1]:
            p = p * u_grid + c
        return w_grid * (f_grid - p)

    ref_idx = np.searchsorted(
        grid, (a + b) / 2 - (b - a) / 2 * np.cos(np.pi * np.arange(n) / (n - 1))
    )
    ref_idx = np.clip(ref_idx, 0, grid.size - 1)
    best: tuple[np.ndarray | None, float] = (None, math.inf)
    for _ in range(iterations):
        u = u_grid[ref_idx]
        matrix = np.empty((n, n), dtype=LD)
        matrix[:, : degree + 1] = u[:, None] ** np.arange(degree + 1)
        matrix[:, -1] = (-1.0) ** np.arange(n) / w_grid[ref_idx]
        rhs = f_grid[ref_idx]
        solution = np.linalg.solve(matrix.astype(np.float64), rhs.astype(np.float64)).astype(LD)
        residual = rhs - matrix @ solution
        solution += np.linalg.solve(matrix.astype(np.float64), residual.astype(np.float64))
        coefficients = (solution[:-1] / LD(scale) ** np.arange(degree + 1)).astype(round_to)
        err = error_of(np.asarray(coefficients, LD) * LD(scale) ** np.arange(degree + 1))
        max_err = float(np.max(np.abs(err)))
        if max_err < best[1]:
            best = (coefficients, max_err)
        err = error_of(solution[:-1])
        # New reference: the extremum of each run of equal sign, then thin to n points
        # keeping alternation and the largest errors.
        sign = np.sign(err)
        sign[sign == 0] = 1
        breaks = np.flatnonzero(np.diff(sign)) + 1
        runs = np.split(np.arange(grid.size), breaks)
        points = [r[np.argmax(np.abs(err[r]))] for r in runs]
        while len(points) > n:
            values = np.abs(err[points])
            if values[0] < values[-1]:
                points.pop(0)
            else:
                points.pop()
        if len(points) < n or np.array_equal(points, ref_idx):
            break
        ref_idx = np.array(points)
    return best[0], best[1]


def series(coefficient: Callable[[int], float], terms: int) -> Fn:
    """t -> sum_k coefficient(k) t^k in long double (for small t)."""

    def run(t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, LD)
        total = np.zeros_like(t)
        for k in reversed(range(terms)):
            total = total * t + LD(coefficient(k))
        return total

    return run


def _fact(k: int) -> LD:
    return LD(math.factorial(k))


@dataclass(frozen=True)
class Fit:
    f: Fn
    a: float
    b: float
    degree: int
    weight: Fn | None
    doc: str


def _tanh_tail(z: np.ndarray) -> np.ndarray:
    """(tanh x - x) / x^3 with x = sqrt(z); series below 0.05 (cancellation), tanh above."""
    z = np.asarray(z, LD)
    x = np.sqrt(z)  # long double sqrt and tanh: numpy has both
    small = series(lambda k: [-1 / 3, 2 / 15, -17 / 315, 62 / 2835, -1382 / 155925][k], 5)(z)
    with np.errstate(all="ignore"):
        big = (np.tanh(x) - x) / (x * z)
    return np.where(x < 0.05, small, big)


def _erf_small(z: np.ndarray) -> np.ndarray:
    """erf(x) / x with x = sqrt(z), by its series (converges fast for x <= 1)."""
    return series(
        lambda k: 2 / math.sqrt(math.pi) * (-1) ** k / (math.factorial(k) * (2 * k + 1)), 40
    )(z)


def _erfc_decimal(x: decimal.Decimal) -> decimal.Decimal:
    """erfc x to ~40 digits: the Taylor series of erf in 80-digit decimal arithmetic (its
    terms grow to e^(x^2) before they shrink, so digits are lost to cancellation)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        d = +x
        z = d * d
        term, total, k = d, d, 0
        while True:
            k += 1
            term *= -z / k
            add = term / (2 * k + 1)
            total += add
            if abs(add) < decimal.Decimal(10) ** -60:
                break
        pi = decimal.Decimal(_PI_50)
        return 1 - 2 * total / pi.sqrt()


_PI_50 = "3.14159265358979323846264338327950288419716939937510"


def _erfcx(t: np.ndarray, centre: float) -> np.ndarray:
    """exp(x^2) erfc(x) at x = t + centre (summed exactly), from ``_erfc_decimal`` (f32
    fits use scipy's, plenty there)."""
    flat = np.asarray(t, np.float64).ravel()
    out = np.empty(flat.size, LD)
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        for i, v in enumerate(flat):
            d = decimal.Decimal(float(v)) + decimal.Decimal(centre)
            out[i] = LD(str(_erfc_decimal(d) * (d * d).exp()))
    return out.reshape(np.shape(t))


def _erfcx_scipy(x: np.ndarray) -> np.ndarray:
    import scipy.special

    return scipy.special.erfcx(np.asarray(x, np.float64))


# (low, high, degree) of the f64 erfcx pieces.
_ERFCX_PIECES = [
    (0.875, 1.5, 14),
    (1.5, 2.25, 14),
    (2.25, 3.25, 14),
    (3.25, 4.5, 14),
    (4.5, 6.0, 13),
]


FITS: dict[str, Fit] = {
    # exp(r) = 1 + r + r^2 Q(r); expm1(r) = r + r^2 Q(r) (weight r: relative to expm1).
    "exp_f32": Fit(series(lambda k: 1 / _fact(k + 2), 30), -0.3466, 0.3466, 4, np.abs, "Q"),
    "exp_f64": Fit(series(lambda k: 1 / _fact(k + 2), 30), -0.3466, 0.3466, 9, np.abs, "Q"),
    # log1p(f) = f - (h - s (h + z P(z))), h = f^2/2, s = f/(2+f), z = s^2 <= 0.0295.
    "log_f32": Fit(series(lambda k: 2 / (2 * k + 3), 40), 0.0, 0.0295, 2, lambda z: z, "P"),
    "log_f64": Fit(series(lambda k: 2 / (2 * k + 3), 40), 0.0, 0.0295, 7, lambda z: z, "P"),
    # tanh x = x + x^3 T(x^2) for |x| <= 0.56 (f32).
    "tanh_f32": Fit(_tanh_tail, 0.0, 0.56**2, 4, lambda z: z, "T"),
    # sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4.
    "sin_lp": Fit(
        series(lambda k: (-1) ** (k + 1) / _fact(2 * k + 3), 20), 0.0, 0.6169, 3, lambda z: z, "S"
    ),
    "cos_lp": Fit(
        series(lambda k: (-1) ** k / _fact(2 * k + 4), 20), 0.0, 0.6169, 3, lambda z: z * z, "C"
    ),
    "sin_f64": Fit(
        series(lambda k: (-1) ** (k + 1) / _fact(2 * k + 3), 20), 0.0, 0.6169, 6, lambda z: z, "S"
    ),
    "cos_f64": Fit(
        series(lambda k: (-1) ** k / _fact(2 * k + 4), 20), 0.0, 0.6169, 6, lambda z: z * z, "C"
    ),
    # Names ending in _lp: for f32 results but evaluated in double (coefficients kept).
    # erf x = x E(x^2) for |x| <= 1; erfc x = exp(-x^2) erfcx(x) above, erfcx as a
    # polynomial in t = x - 2.5 on [1, 4] (past 4, erf rounds to 1 in f32).
    "erf_small_lp": Fit(_erf_small, 0.0, 1.0, 6, None, "E"),
    "erfcx_lp": Fit(
        lambda t: _erfcx_scipy(t + 2.5), -1.5, 1.5, 12, lambda t: 1 / _erfcx_scipy(t + 2.5), "R"
    ),
    # f64: erf x = x + x (E(x^2) - 1) for |x| <= 0.875, erfcx in pieces (t = x - centre).
    "erf_small_f64": Fit(lambda z: _erf_small(z) - LD(1), 0.0, 0.875**2, 12, None, "E - 1"),
    **{
        f"erfcx_{i}_f64": Fit(
            (lambda c: lambda t: _erfcx(t, c))((lo + hi) / 2),
            (lo - hi) / 2,
            (hi - lo) / 2,
            degree,
            (lambda c: lambda t: 1 / _erfcx_scipy(t + c))((lo + hi) / 2),
            f"R on [{lo}, {hi}]",
        )
        for i, (lo, hi, degree) in enumerate(_ERFCX_PIECES)
    },
    # atan u = u + u^3 A(u^2), |u| <= tan(pi/8).
    "atan_lp": Fit(
        series(lambda k: (-1) ** (k + 1) / (2 * k + 3), 60), 0.0, 0.1716, 6, lambda z: z, "A"
    ),
    "atan_f64": Fit(
        series(lambda k: (-1) ** (k + 1) / (2 * k + 3), 60), 0.0, 0.1716, 11, lambda z: z, "A"
    ),
}


def main(names: list[str]) -> None:
    for name in names or list(FITS):
        fit = FITS[name]
        grid = 3001 if name.startswith("erfcx") and name.endswith("f64") else 20001
        round_to = np.float32 if name.endswith("f32") else np.float64
        coefficients, error = remez(
            fit.f, fit.a, fit.b, fit.degree, fit.weight, grid_size=grid, round_to=round_to
        )
        print(
            f"# {name}: {fit.doc} on [{fit.a}, {fit.b}], degree {fit.degree}, max weighted error {error:.3g}"
        )
        print(f"_{name.upper()} = [" + ", ".join(repr(float(c)) for c in coefficients) + "]")


if __name__ == "__main__":
    main(sys.argv[1:])
