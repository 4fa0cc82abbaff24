"""What the build's hooks recorded becomes the coverage map, the sources and the skips."""

from __future__ import annotations

import json

from iwcbench.pipeline.stages.instrumenting import building


def test_records_become_a_sorted_coverage_map_with_sources_and_skips(tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    (records / "a.json").write_text(json.dumps({"key": "src/b.js", "coverage": {"path": "src/b.js"}, "source": "b"}))
    (records / "b.json").write_text(json.dumps({"key": "src/a.jsx", "coverage": {"path": "src/a.jsx"}, "source": "a"}))
    (records / "c.json").write_text(json.dumps({"key": "src/flow.js", "skipped": "could not parse: Unexpected token"}))
    (records / ".x.json.123.tmp").write_text("{half")  # a writer killed mid-file
    (records / "d.json").write_text("{not json")
    coverage_map, sources, skipped = building.gather(records)
    assert list(coverage_map) == ["src/a.jsx", "src/b.js"]
    assert sources == {"src/a.jsx": "a", "src/b.js": "b"}
    assert [(s.path, s.reason) for s in skipped] == [("src/flow.js", "could not parse: Unexpected token")]


def test_no_records_folder_means_nothing_was_instrumented(tmp_path):
    assert building.gather(tmp_path / "missing") == ({}, {}, ())
