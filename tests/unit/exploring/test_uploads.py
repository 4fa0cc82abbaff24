"""The files the explorer uploads: chosen by what an input accepts, each valid."""

from __future__ import annotations

import json
import struct
import zlib

from iwcbench.pipeline.stages.exploring import uploads


def test_an_input_gets_the_files_it_accepts_first_and_every_file_when_it_says_nothing():
    assert uploads.names_for("image/*") == ["photo.png"]
    assert uploads.names_for(".jpg, .jpeg") == ["photo.png"]  # (a picture is a picture to an app)
    assert uploads.names_for(".csv") == ["table.csv"]
    assert uploads.names_for("application/json") == ["items.json", "backup.json"]
    assert uploads.names_for("") == uploads.names_for(None) == list(uploads.FILES)
    assert uploads.names_for(".xyz") == list(uploads.FILES)  # (nothing fits: try them all)


def test_each_file_is_what_its_name_says():
    name, media, png = uploads.file("photo.png")
    assert media == "image/png" and png.startswith(b"\x89PNG\r\n\x1a\n")
    length = struct.unpack(">I", png[8:12])[0]
    assert png[12:16] == b"IHDR" and zlib.crc32(png[12:16 + length]) == struct.unpack(">I", png[16 + length:20 + length])[0]
    assert isinstance(json.loads(uploads.file("items.json")[2]), list)
    assert json.loads(uploads.file("backup.json")[2])["items"]
    assert uploads.file("nonsense")[0] == "photo.png"
