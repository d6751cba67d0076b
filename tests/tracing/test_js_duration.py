"""go_duration: durations shown to JS tracers (ctx.time) the way Go prints them."""

import pytest

from chaind.gocompat import go_duration


@pytest.mark.parametrize("seconds,text", [(2.5e-7, "250ns"), (2.5e-5, "25µs"), (0.001234, "1.234ms"),
                                          (1.5, "1.5s"), (62.5, "1m2.5s"), (3600, "1h0m0s")])
def test_go_duration(seconds, text):
    assert go_duration(seconds) == text
