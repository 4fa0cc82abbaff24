"""Borda-count weights from a questionnaire (a user's own: ``iwc weights borda``):
hand-computed on a small one, and the bundled example questionnaire."""

from __future__ import annotations

import json
import math
import pathlib
import re

import pytest

from iwcbench.pipeline.contracts import webcoder_metrics
from iwcbench.pipeline.runs import weighting
from iwcbench.pipeline.stages.aggregating import borda

GROUPS = {"code": ("lint", "errors"), "look": ("style",), "fit": ("features", "content", "visual")}
QUESTIONNAIRE = """# three people rank three perspectives, then the metrics inside them
respondent,persona,perspectives,code,look,fit
ann,developer,code>fit>look,lint>errors,,features>content>visual
bob,designer,look>fit=code,errors>lint,,visual>features=content
cy,developer,fit>code>look,lint=errors,,features>visual>content
"""


def test_a_small_questionnaire_by_hand():
    found = borda.weights(borda.parse(QUESTIONNAIRE, GROUPS), GROUPS)
    # perspectives, 3 points for first place: ann code 3 fit 2 look 1; bob look 3, fit and
    # code tie for places 2-3: 1.5 each; cy fit 3 code 2 look 1 → code 6.5, look 5, fit 6.5 of 18
    assert found.perspectives == pytest.approx({"code": 6.5 / 18, "look": 5 / 18, "fit": 6.5 / 18})
    # inside code: lint 2+1+1.5, errors 1+2+1.5 → 4.5 / 4.5 of 9
    assert found.within["code"] == pytest.approx({"lint": 0.5, "errors": 0.5})
    # inside fit: features 3+1.5+3 = 7.5, content 2+1.5+1 = 4.5, visual 1+3+2 = 6 of 18
    assert found.within["fit"] == pytest.approx({"features": 7.5 / 18, "content": 4.5 / 18, "visual": 6 / 18})
    assert found.metrics["features"] == pytest.approx(6.5 / 18 * 7.5 / 18)
    assert found.metrics["style"] == pytest.approx(5 / 18)
    assert math.isclose(sum(found.metrics.values()), 1.0)
    assert found.responses == 3


def test_one_persona_and_counted_rows():
    developers = borda.weights(borda.parse(QUESTIONNAIRE, GROUPS), GROUPS, persona="developer")
    assert developers.perspectives == pytest.approx({"code": 5 / 12, "look": 2 / 12, "fit": 5 / 12})
    counted = QUESTIONNAIRE.replace("respondent,persona,", "respondent,persona,count,").replace(
        "ann,developer,", "ann,developer,2,").replace("bob,designer,", "bob,designer,1,").replace("cy,developer,", "cy,developer,,")
    twice = borda.weights(borda.parse(counted, GROUPS), GROUPS)
    assert twice.responses == 4 and twice.perspectives["code"] == pytest.approx((6.5 + 3) / 24)
    with pytest.raises(borda.QuestionnaireError, match="no response from persona 'tester'"):
        borda.weights(borda.parse(QUESTIONNAIRE, GROUPS), GROUPS, persona="tester")


@pytest.mark.parametrize("row, problem", [
    ("dan,,code>fit,,,", "not ranked: look"),
    ("dan,,code>fit>look>code,,,", "ranked more than once: code"),
    ("dan,,code>fit>looks,,,", "unknown or empty name(s) 'looks'"),
    ("dan,,code>fit>look,lint,,", "line 6, code: not ranked: errors"),
])
def test_a_bad_response_names_its_line_and_problem(row, problem):
    with pytest.raises(borda.QuestionnaireError, match=re.escape(problem)):
        borda.parse(QUESTIONNAIRE + row + "\n", GROUPS)


EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "questionnaire.csv"


def test_the_example_questionnaire_keeps_table6s_order_per_persona():
    document = weighting.borda_document(EXAMPLE)
    assert document["responses"] == 141  # WebCoderBench's valid responses, by persona (§4.3)
    assert math.isclose(sum(document["weights"].values()), 1.0)
    # the designers' published preference for visual quality survives the Borda count
    designers = weighting.borda_document(EXAMPLE, "designer")
    assert max(designers["perspectives"], key=designers["perspectives"].get) == "visual_quality"
    # a Borda count of rank orders is not Table 6: the shipped wcb set is the table itself
    assert document["perspectives"]["visual_quality"] < webcoder_metrics.perspective_weight("wcb", "visual_quality") - 0.03


def test_a_weights_file_reads_back_as_metric_weights(tmp_path):
    path = tmp_path / "w.json"
    document = weighting.borda_document(EXAMPLE)
    path.write_text(json.dumps(document))
    assert weighting.read_weights(path) == pytest.approx(document["weights"])
    path.write_text('{"wcb_linting": -1}')
    with pytest.raises(Exception, match="must be a number ≥ 0"):
        weighting.read_weights(path)
