"""Node and our npm tools are found, or their absence is named."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.kits import processes


def test_the_tools_folder_can_be_moved_by_environment(tmp_path, monkeypatch):
    (tmp_path / "istanbul-lib-instrument").mkdir()
    monkeypatch.setenv(processes.NODE_TOOLS_ENV, str(tmp_path))
    assert processes.node_tools_dir() == tmp_path


def test_a_tools_folder_without_istanbul_is_a_missing_tool(tmp_path, monkeypatch):
    monkeypatch.setenv(processes.NODE_TOOLS_ENV, str(tmp_path))
    with pytest.raises(processes.ToolMissing, match="hack/setup"):
        processes.node_tools_dir()


def test_no_node_on_path_is_a_missing_tool(monkeypatch):
    monkeypatch.delenv(processes.NODE_ENV, raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(processes.ToolMissing, match="no node on PATH"):
        processes.node_binary()
