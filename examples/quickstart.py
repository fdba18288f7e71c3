"""Quickstart: calibrate, inspect, save and re-verify a certified Gaussian sigma.

Run: python examples/quickstart.py
"""

import certdp

cert = certdp.calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1)
print("safe sigma            :", cert.value)
print("certified bracket     :", [str(x) for x in cert.interval])
print("delta at safe sigma in:", cert.delta_enclosure)
print("guarantee             :", cert.guarantee)

with open("gaussian_certificate.json", "w", encoding="utf-8") as fh:
    fh.write(cert.to_json())
print("re-verification       :", certdp.verify(cert.to_json()).status)

# Audits: a sigma somebody else chose, and the textbook formula at large epsilon.
print(certdp.audit("gaussian", value="3.5", epsilon=1, delta="1e-5").guarantee)
print(certdp.audit("classic-gaussian", epsilon=10, delta="1e-5").guarantee)
