"""The text rules: a name is refused for a control character (Unicode
category Cc) and for nothing else that str.isprintable() also refuses."""

from __future__ import annotations

import pytest

from peloton.core.errors import InvalidArgument
from peloton.spec.text import check_name


@pytest.mark.parametrize("name", ["lt-single-00001", "a b", "caf\u00e9", "a\u00a0b",
                                  "zero\u200bwidth", "\u2028", ""])
def test_names_without_a_control_character_pass(name: str) -> None:
    check_name(name, "name", "the job name")


@pytest.mark.parametrize("name,bad", [("a\0b", "\0"), ("tab\there", "\t"),
                                      ("\u00a0then\x1b", "\x1b"), ("\u200b\x7f", "\x7f"),
                                      ("c1\x85", "\x85")])
def test_a_control_character_is_named(name: str, bad: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        check_name(name, "name", "the job name")
    assert caught.value.field == "name"
    assert repr(bad) in str(caught.value)
