"""Component Style Consistency (7) and Icon Style Consistency (8) from computed styles
and icons the probe found in the rendered states."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.stages.quality import styles

BUTTON = {"fontFamily": "Arial", "fontSize": "16px", "color": "rgb(255, 255, 255)", "backgroundColor": "rgb(47, 111, 176)"}


def _button(path: str, **changes) -> dict:
    return {"role": "button", "path": path, "style": {**BUTTON, **changes}}


def test_same_role_elements_with_one_style_are_consistent():
    same = {"S0": {"components": [_button("b:1"), _button("b:2")]}, "S1": {"components": [_button("b:3")]}}
    assert styles.component_consistency(same).value == 100.0
    mixed = {"S0": {"components": [
        _button("b:1"), _button("b:2"), _button("b:3", backgroundColor="rgb(255, 0, 0)"),
        _button("b:4", fontSize="11px", fontFamily="Georgia"),
        {"role": "heading h2", "path": "h2:1", "style": {"fontFamily": "Arial"}},
        {"role": "heading h2", "path": "h2:2", "style": {"fontFamily": "Impact"}}]}}
    score = styles.component_consistency(mixed)
    # buttons: fontFamily 3/4, fontSize 3/4, color 4/4, backgroundColor 3/4 → 0.8125; h2: 1/2
    assert score.value == pytest.approx(100 * (0.8125 + 0.5) / 2, abs=0.01)
    assert "4 buttons 81 %" in score.reason and "2 h2 headings 50 %" in score.reason


def test_an_element_seen_in_several_states_counts_once():
    states = {f"S{i}": {"components": [_button("b:1"), _button("b:2", color="rgb(0, 0, 0)")]} for i in range(5)}
    assert styles.component_consistency(states).value == pytest.approx(100 * (1 + 1 + 0.5 + 1) / 4, abs=0.01)


def test_nothing_to_compare_is_unscored():
    assert styles.component_consistency({"S0": {"components": [_button("b:1")]}}).value is None


def _icon(path: str, kind: str, size: int, set_: str | None = None) -> dict:
    return {"path": path, "kind": kind, "set": set_ or kind, "size": size}


def test_one_icon_set_at_one_size_beats_a_mix():
    one = {"S0": {"icons": [_icon(f"i:{n}", "svg", 16) for n in range(4)]}}
    assert styles.icon_consistency(one).value == 100.0
    mix = {"S0": {"icons": [_icon("i:1", "svg", 16), _icon("i:2", "svg", 40), _icon("i:3", "emoji", 16),
                            _icon("i:4", "font", 14, "fa")]}}
    score = styles.icon_consistency(mix)
    # most used kind: svg 2/4; most common size band (≤16 px): 3/4
    assert score.value == pytest.approx(100 * (0.6 * 0.5 + 0.4 * 0.75), abs=0.01)
    assert styles.icon_consistency({"S0": {"icons": [_icon("i:1", "svg", 16)]}}).value is None
