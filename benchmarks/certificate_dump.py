#!/usr/bin/env python3
"""Certificate bodies of a fixed list of closed-form calibrations, one JSON line each, to compare checkouts.

    PYTHONPATH=/work/main python3 benchmarks/certificate_dump.py /tmp/old.jsonl
    PYTHONPATH=.          python3 benchmarks/certificate_dump.py /tmp/new.jsonl
    cmp /tmp/old.jsonl /tmp/new.jsonl     # byte-identical certificates (bodies, digests, precision_bits)

The list: gaussian, laplace and uniform on a 12 x 10 grid of eps x delta (delta down to 1e-300,
string / int / float / fraction inputs), plus ``N`` (default 300) random points each over
sensitivities and rtol, delta = 1e-5000, a spherical Gaussian. Each input is calibrated twice (the
second call must give the same certificate); ``created``, ``timing_seconds`` and ``versions`` are
left out, everything else (including ``digest`` and ``precision_bits``) is written. Errors are
written as text. Nothing is timed or asserted beyond the two calls agreeing.
"""
import json, sys, random, math
import certdp
out = open(sys.argv[1], "w")
rng = random.Random(1234)
cases = []
for mech in ("gaussian", "laplace", "uniform"):
    for e in (0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, "1/3", "0.7", 3):
        for d in (1e-300, "1e-100", 1e-12, 1e-9, 1e-6, 1e-5, 1e-3, 0.01, 0.1, "0.3"):
            cases.append((mech, e, d, 1, None))
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 300):
        e = 10 ** rng.uniform(-2, math.log10(50)); d = 10 ** -rng.uniform(0.5, 15); s = rng.choice([1, 2, 0.5, "1/3", 10 ** rng.uniform(-2, 2)])
        cases.append((mech, e, d, s, rng.choice([None, None, "1e-6", 1e-9, "1/1000"])))
cases.append(("gaussian", 1, "1e-5000", 1, None))
cases.append(("gaussian", 1, 1e-5, 1, "0.5"))
cases.append(("spherical-gaussian", 1, "1e-5", 1, None))
for mech, e, d, s, rtol in cases:
    kw = {} if rtol is None else {"rtol": rtol}
    try:
        if mech == "spherical-gaussian": kw["dimension"] = 3
        c = certdp.calibrate(mech, epsilon=e, delta=d, sensitivity=s, **kw)
        c2 = certdp.calibrate(mech, epsilon=e, delta=d, sensitivity=s, **kw)
        assert c2.digest == c.digest and c2.body() == c.body(), (mech, e, d)
        data = json.loads(c.to_json())
        for k in ("created", "timing_seconds", "versions"):
            data.pop(k, None)
        line = json.dumps(data, sort_keys=True)
    except Exception as exc:
        line = f"ERROR {type(exc).__name__}: {exc}"
    out.write(json.dumps([mech, repr(e), repr(d), repr(s), repr(rtol)]) + " " + line + "\n")
