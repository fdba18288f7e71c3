"""Numbers layer: exact inputs, precision ladder, Arb ball helpers, certified comparisons and brackets."""

from certdp.numbers.balls import (
    arb_of,
    ball_endpoints,
    float_lower,
    float_upper,
    decimal_bounds,
    log_normal_cdf,
    normal_cdf,
    normal_sf,
    round_decimal,
    to_arb,
)
from certdp.numbers.bracket import Bracket, certified_monotone_bracket, classify_point
from certdp.numbers.compare import Decision, certify_le, certify_lt
from certdp.numbers.enclosure import Enclosure
from certdp.numbers.exact import (
    InputError,
    UndecidedError,
    exact_str,
    parse_exact,
    parse_int,
    parse_nonnegative,
    parse_positive,
    parse_positive_int,
    parse_probability,
    parse_real,
)
from certdp.numbers.precision import (
    PRECISION_LADDER,
    decide_on_ladder,
    escalate,
    run_on_ladder,
    working_precision,
)

__all__ = [
    "arb_of", "ball_endpoints", "decimal_bounds", "log_normal_cdf", "normal_cdf", "normal_sf",
    "round_decimal", "to_arb", "float_upper", "float_lower", "Bracket", "certified_monotone_bracket", "classify_point", "Decision",
    "certify_le", "certify_lt", "Enclosure", "InputError", "UndecidedError", "exact_str",
    "parse_exact", "parse_nonnegative", "parse_positive", "parse_positive_int", "parse_probability",
    "parse_int", "parse_real",
    "PRECISION_LADDER", "escalate", "run_on_ladder", "decide_on_ladder", "working_precision",
]
