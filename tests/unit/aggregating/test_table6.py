"""The WebCoderBench weight sets are the paper's Table 6 as printed: every persona
column and "ALL", per perspective, shared equally by the perspective's metrics."""

from __future__ import annotations

import math
import pathlib

import pytest

from iwcbench.pipeline.contracts import metrics, webcoder_metrics

# Table 6 of WebCoderBench (seed 002), percent, transcribed on its own here so that a slip
# in the metric table shows: rows Code, Vis., Con., Per., Acc., Mai., FA, VA, CA; columns
# Dev, QA, DS, PM, Ops, Le, Des, ALL.
PUBLISHED = {
    "code_quality":         {"Dev": 13.5, "QA": 13.3, "DS": 12.7, "PM": 12.7, "Ops": 10.3, "Le": 11.9, "Des": 5.6, "ALL": 12.0},
    "visual_quality":       {"Dev": 8.6, "QA": 7.4, "DS": 9.5, "PM": 7.5, "Ops": 9.9, "Le": 8.2, "Des": 20.8, "ALL": 9.0},
    "content_quality":      {"Dev": 10.6, "QA": 13.1, "DS": 12.4, "PM": 9.2, "Ops": 13.0, "Le": 13.3, "Des": 6.9, "ALL": 12.1},
    "performance":          {"Dev": 8.6, "QA": 11.7, "DS": 11.1, "PM": 9.5, "Ops": 13.1, "Le": 13.5, "Des": 5.6, "ALL": 11.5},
    "accessibility":        {"Dev": 8.7, "QA": 10.9, "DS": 10.6, "PM": 9.2, "Ops": 9.3, "Le": 10.5, "Des": 11.1, "ALL": 9.9},
    "maintainability":      {"Dev": 11.2, "QA": 10.0, "DS": 10.3, "PM": 11.7, "Ops": 9.0, "Le": 6.8, "Des": 5.6, "ALL": 9.6},
    "functional_alignment": {"Dev": 14.7, "QA": 13.0, "DS": 11.5, "PM": 17.3, "Ops": 13.8, "Le": 14.0, "Des": 16.7, "ALL": 13.8},
    "visual_alignment":     {"Dev": 9.2, "QA": 8.1, "DS": 9.1, "PM": 10.4, "Ops": 9.8, "Le": 8.7, "Des": 18.1, "ALL": 9.7},
    "content_alignment":    {"Dev": 14.9, "QA": 12.4, "DS": 12.7, "PM": 12.6, "Ops": 11.7, "Le": 13.1, "Des": 9.7, "ALL": 12.5},
}
# The seeds sit in shared/ beside the project's root (../shared/seeds/, as on every
# developer's machine and in CI), whatever the checkout's folder is called.
ROOT = pathlib.Path(__file__).resolve().parents[3]
SEED = ROOT.parent / "shared" / "seeds" / "002_df9f2c07f16ddaee.txt"
ROW_NAMES = {"Code": "code_quality", "Vis.": "visual_quality", "Con.": "content_quality", "Per.": "performance",
             "Acc.": "accessibility", "Mai.": "maintainability", "FA": "functional_alignment",
             "VA": "visual_alignment", "CA": "content_alignment"}


@pytest.mark.parametrize("weight_set", webcoder_metrics.WEBCODER_SETS)
def test_each_webcoder_set_is_its_table6_column(weight_set):
    column = webcoder_metrics.TABLE6_COLUMNS[weight_set]
    weights = metrics.weights(weight_set)
    assert len(weights) == 24
    for perspective, members in metrics.webcoder_groups().items():
        got = [weights[m] for m in members]
        assert got == pytest.approx([PUBLISHED[perspective][column] / 100 / len(members)] * len(members),
                                    abs=1e-12), (weight_set, perspective)
    # printed to 0.1 %, so a column sums to 100 % within the rounding of nine cells
    assert abs(100 * sum(weights.values()) - 100) <= 0.15, weight_set


def test_the_weight_sets_are_the_seven_personas_and_all():
    assert set(webcoder_metrics.WEBCODER_SETS) <= set(metrics.WEIGHT_SETS)
    assert sorted(webcoder_metrics.TABLE6_COLUMNS.values()) == sorted(["Dev", "QA", "DS", "PM", "Ops", "Le", "Des", "ALL"])
    # what §5.4 reads off the table: designers weigh visual quality most, PMs functional alignment
    design = {p: webcoder_metrics.perspective_weight("wcb_designer", p) for p in metrics.PERSPECTIVES}
    assert max(design, key=design.get) == "visual_quality"
    pm = {p: webcoder_metrics.perspective_weight("wcb_product_manager", p) for p in metrics.PERSPECTIVES}
    assert max(pm, key=pm.get) == "functional_alignment"


def test_the_transcription_matches_the_seed():
    # a missing seed fails: a skip here would leave the transcription unchecked unnoticed
    assert SEED.is_file(), f"the WebCoderBench seed is missing: expected {SEED} (../shared/seeds/ beside the project)"
    columns = ["Dev", "QA", "DS", "PM", "Ops", "Le", "Des", "ALL"]
    found = {}
    for line in SEED.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] in ROW_NAMES and len(cells) > 8 and cells[1].endswith("%"):
            found[ROW_NAMES[cells[0]]] = dict(zip(columns, (float(c[:-1]) for c in cells[1:9])))
    assert found == PUBLISHED
    assert all(math.isclose(webcoder_metrics.TABLE6[p][i], PUBLISHED[p][c]) for p in PUBLISHED for i, c in enumerate(columns))
