"""What the property-based tests (test_fuzz*.py in tests/engine/ingest/, integrations/ and
packs/) share: their settings (a fixed number of examples each, no example database,
derandomized: a run is the same run everywhere, CI included) and text as it arrives from
outside."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st


def fuzz(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


# Text as it arrives from outside: any code point, with the characters parsers split on made
# likely (digits of every script, separators, arrows, brackets, markup).
SPICE = "0123456789\u00b2\u00b3\u0661\u0663\uff11\u2167.:,-+eEinfa \n\r\t\x00=&%#?/\\[]{}\"'<>*`|_~"
text_like = st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from(SPICE)), max_size=200)

json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), text_like),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(text_like, inner, max_size=4)
    ),
    max_leaves=12,
)
