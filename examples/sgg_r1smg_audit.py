"""Audit the Ji & Li (2024, Thm. 5) R1SMG calibration and calibrate a better SGG mechanism instead.

    python examples/sgg_r1smg_audit.py
"""

import certdp
from certdp.workflows.sgg_audit import table3_rows

# 1. the claim at (eps, delta) = (1, 1e-5), T = 128: certified VIOLATED
cert = certdp.audit("r1smg", dimension=128, epsilon=1, delta="1e-5", sensitivity=1)
print(cert.verdict, "true delta in", cert.delta_enclosure)

# 2. seed 003 Table 3, recomputed with certified enclosures
for row in table3_rows(eta=1e-9):
    print(row["epsilon"], row["sigma_star"].str(9, radius=False), row["delta_lower"].str(10, radius=False),
          row["delta_upper"].str(10, radius=False), "(paper:", row["delta_paper"] + ")")

# 3. what R1SMG noise would actually be needed, and the Gaussian member of the SGG family
r1 = certdp.calibrate("r1smg", dimension=10, epsilon=1, delta="1e-5", rtol="1e-6")
g = certdp.calibrate("sgg", dimension=10, alpha=9, power=2, epsilon=1, delta="1e-5", rtol="1e-6")
print("R1SMG sigma_star needed:", r1.value, " Gaussian-SGG rate:", g.value)
