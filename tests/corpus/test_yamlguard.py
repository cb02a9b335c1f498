"""The depth guard says the same whatever the YAML library does first.

PyYAML 6.0.4's libyaml refuses a text nested past 1,000 levels on its own
while it scans ahead, before the parser's events reach the 101st level
that recordkit counts; 6.0.0-6.0.3 give the events.  These tests make a
parser that stops early (as the newer libyaml does) whatever PyYAML is
installed, so the guard's answer is checked against both behaviours."""
from __future__ import annotations

import pytest
import yaml

from recordkit.markdown import yamlguard
from recordkit.markdown.yamlguard import MAX_DEPTH, AliasBomb, check_depth, compose


def _stops_early(after: int):
    """A loader whose parser gives ``after`` events, then a syntax error of
    its own words (the way a nesting limit inside libyaml stops)."""

    class Early(yaml.SafeLoader):
        given = 0

        def get_event(self):
            if self.given >= after:
                raise yaml.scanner.ScannerError("while scanning", None, "a limit of the library's own", None)
            self.given += 1
            return super().get_event()

        def check_event(self, *choices):
            if self.given >= after:
                raise yaml.scanner.ScannerError("while scanning", None, "a limit of the library's own", None)
            return super().check_event(*choices)

    return Early


DEEP = "x: " + "[" * 5_000 + "]" * 5_000


def _where(text, loader=None):
    with pytest.raises(AliasBomb) as err:
        check_depth(text, loader=loader)
    mark = err.value.node.start_mark
    return str(err.value), mark.line, mark.column


def test_a_parser_that_stops_first_gives_recordkit_s_diagnostic_at_the_same_place():
    plain = _where(DEEP, yaml.SafeLoader)
    assert plain == (f"front matter is nested more than {MAX_DEPTH} levels deep here", 0, 3 + MAX_DEPTH)
    assert _where(DEEP, _stops_early(5)) == plain
    assert _where(DEEP) == plain        # the C loader where present, whatever its version


def test_a_true_syntax_error_stays_the_library_s_error():
    text = "x: [a, b\n" + "- " * 1_200 + "\ny: ]]"
    with pytest.raises(yaml.YAMLError) as err:
        check_depth(text, loader=_stops_early(3))
    assert "a limit of the library's own" in str(err.value)      # the first parser's error, unchanged


def test_compose_refuses_by_depth_when_the_composer_stops_first(monkeypatch):
    """Below the composer's safe size the text is composed at once; a library
    that refuses it there (its own nesting limit) still gives RK102's words."""
    text = "x: " + "[" * 900 + "]" * 900
    assert yamlguard._opens(text) <= yamlguard.COMPOSE_SAFE
    with pytest.raises(AliasBomb, match="nested more than"):
        compose(text, _stops_early(10))
