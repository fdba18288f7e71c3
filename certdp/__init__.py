"""certdp: certified calibration of differential-privacy noise mechanisms.

>>> import certdp
>>> cert = certdp.calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1)
>>> cert.value            # safe sigma, proven (1, 1e-5)-DP   # doctest: +SKIP
Decimal('3.7306316348169')
>>> certdp.verify(cert.to_json()).status                      # doctest: +SKIP
'VALID'
"""

from certdp.api import Certificate, Verification, audit, calibrate, compose, profile, profile_curve, verify

__version__ = "0.1.0"
__all__ = ["calibrate", "audit", "profile", "profile_curve", "verify", "compose", "Certificate", "Verification"]
