"""``easse.utils.constants``: the test-set and metric names EASSE's command line accepts, as samsa knows them."""

from samsa.lexical.suite import METRICS
from samsa.testsets import available_test_sets

__all__ = ["VALID_METRICS", "VALID_TEST_SETS"]

#: every test-set name ``-t`` accepts
VALID_TEST_SETS: list[str] = available_test_sets()
#: every metric name ``-m`` accepts
VALID_METRICS: list[str] = [*METRICS, "samsa"]
