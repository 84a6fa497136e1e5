"""`java_double`'s fast path (Python repr in Java's plain range) must equal Java 17's legacy digits."""
from __future__ import annotations

import random

from connector.java.text import _legacy_double, java_double


def test_fast_path_equals_legacy_algorithm():
    rng = random.Random(20261121)
    values = []
    for _ in range(20000):
        values.append(round(rng.uniform(-10 ** rng.randint(0, 7), 10 ** rng.randint(0, 7)), rng.randint(0, 15)))
        values.append(float(f"{rng.random():.{rng.randint(1, 15)}e}") * 10 ** rng.randint(-3, 6))
        values.append(rng.random())
    values += [0.001, 0.1, 0.2, 0.3, 1.1, 2.25, 9999999.0, 1234567.875, -0.001, 100.0, 3.14159, 1e-3 * 7]
    checked = 0
    for v in values:
        if v != 0.0:
            assert java_double(v) == _legacy_double(v), v
            checked += 1
    assert checked > 50000
