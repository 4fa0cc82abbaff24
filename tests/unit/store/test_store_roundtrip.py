"""The store behaves the same on a local folder and on S3 (moto on loopback)."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.kits import store as store_mod


@pytest.fixture(params=["local", "s3"])
def store(request, tmp_path):
    if request.param == "local":
        return store_mod.LocalStore(tmp_path / "store")
    bucket = request.getfixturevalue("s3_bucket")
    return store_mod.open_store(f"s3://{bucket}/runs/r1")


def test_put_get_list_delete(store):
    store.put_bytes("apps/m/t/trace.json", b'{"a": 1}')
    store.put_bytes("apps/m/t/shots/0001.png", b"\x89PNG")
    store.put_bytes("apps/m/u/result.json", b"{}")
    store.put_bytes("results.json", b"{}")
    assert store.get_bytes("apps/m/t/trace.json") == b'{"a": 1}'
    assert store.exists("apps/m/t/shots/0001.png")
    assert not store.exists("apps/m/t/missing.json")
    assert sorted(store.list("apps/m/t/")) == ["apps/m/t/shots/0001.png", "apps/m/t/trace.json"]
    assert sorted(store.list()) == [
        "apps/m/t/shots/0001.png", "apps/m/t/trace.json", "apps/m/u/result.json", "results.json",
    ]
    store.delete_prefix("apps/m/t/")
    assert sorted(store.list("apps/")) == ["apps/m/u/result.json"]


def test_missing_key_is_not_found(store):
    with pytest.raises(store_mod.NotFound):
        store.get_bytes("nope.json")


def test_json_helpers_roundtrip(store):
    store_mod.put_json(store, "x/data.json", {"k": [1, 2]})
    assert store_mod.get_json(store, "x/data.json") == {"k": [1, 2]}


@pytest.mark.parametrize("key", ["../escape", "/abs", "a//b", "a/./b", ""])
def test_bad_keys_rejected(store, key):
    with pytest.raises(ValueError):
        store.put_bytes(key, b"x")


def test_read_uri_names_one_object(s3_bucket, tmp_path):
    store_mod.open_store(f"s3://{s3_bucket}").put_bytes("in/tasks.jsonl", b"line\n")
    assert store_mod.read_uri(f"s3://{s3_bucket}/in/tasks.jsonl") == b"line\n"
    local = tmp_path / "t.jsonl"
    local.write_bytes(b"x")
    assert store_mod.read_uri(str(local)) == b"x"
    assert store_mod.read_uri(local.as_uri()) == b"x"


def test_local_writes_are_atomic_no_temp_left(tmp_path):
    s = store_mod.LocalStore(tmp_path)
    s.put_bytes("a/b.json", b"1")
    s.put_bytes("a/b.json", b"2")
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["b.json"]
    assert s.get_bytes("a/b.json") == b"2"


def test_get_or_none_answers_none_only_for_a_missing_key(store):
    store.put_bytes("apps/m/t/trace.json", b"{}")
    assert store.get_or_none("apps/m/t/trace.json") == b"{}"
    assert store.get_or_none("apps/m/t/graph.json") is None
    with pytest.raises(ValueError):
        store.get_or_none("../escape.json")  # a bad key is still an error, not "absent"


def test_a_prefixed_view_is_one_app_seen_from_inside(store):
    app = store_mod.Prefixed(store, "apps/m/t")
    app.put_bytes("trace.json", b"{}")
    app.put_bytes("shots/0001.png", b"\x89PNG")
    store.put_bytes("apps/m/u/trace.json", b"other")
    assert store.get_bytes("apps/m/t/trace.json") == b"{}"
    assert app.get_or_none("trace.json") == b"{}" and app.get_or_none("graph.json") is None
    assert app.exists("shots/0001.png") and not app.exists("result.json")
    assert sorted(app.list()) == ["shots/0001.png", "trace.json"]
    with pytest.raises(store_mod.NotFound) as missing:
        app.get_bytes("graph.json")
    assert missing.value.args == ("graph.json",)
    app.delete_prefix("shots/")
    assert sorted(store.list("apps/")) == ["apps/m/t/trace.json", "apps/m/u/trace.json"]
