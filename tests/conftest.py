"""Hypothesis profiles of the property-based tests (tests/test_properties.py).

- ``default`` (used unless told otherwise): a fixed budget of 40 examples per
  test, derandomized so that every CI run draws the same examples, no
  deadline (a fit's duration varies with the machine), no example database.
- ``thorough``: 600 examples per test, freshly random at every run, for a
  longer local search: ``python -m pytest tests/test_properties.py
  --hypothesis-profile=thorough``.
"""

from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)

settings.register_profile("default", max_examples=40, derandomize=True, **_COMMON)
settings.register_profile("thorough", max_examples=600, derandomize=False, **_COMMON)
settings.load_profile("default")
