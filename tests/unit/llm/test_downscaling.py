"""Screenshots scaled down for a model (kits/llm/images): the longest side as asked, the
aspect ratio kept, the format kept, the same bytes for the same picture, and what is
already small enough or not a picture left as it is."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from iwcbench.pipeline.kits.llm import images as llm_images


def _picture(width: int, height: int, fmt: str = "PNG") -> bytes:
    img = Image.new("RGB", (width, height), "white")
    ImageDraw.Draw(img).text((20, 20), "Add note", fill="black")
    out = io.BytesIO()
    img.save(out, format=fmt)
    return out.getvalue()


def _size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as img:
        return img.size


def test_the_longest_side_is_scaled_to_the_limit_and_the_aspect_is_kept():
    assert _size(llm_images.fitted(_picture(1280, 800), 1024)) == (1024, 640)
    assert _size(llm_images.fitted(_picture(800, 2000), 1000)) == (400, 1000)  # a tall page: its height


def test_a_jpeg_stays_a_jpeg_and_a_png_a_png():
    small = llm_images.fitted(_picture(1280, 800, "JPEG"), 640)
    assert llm_images.media_type(small) == "image/jpeg" and _size(small) == (640, 400)
    assert llm_images.media_type(llm_images.fitted(_picture(1280, 800), 640)) == "image/png"


def test_the_same_picture_gives_the_same_bytes_so_prompts_repeat():
    picture = _picture(1280, 800)
    assert llm_images.fitted(picture, 1024) == llm_images.fitted(picture, 1024)


def test_small_enough_unreadable_or_no_limit_comes_back_unchanged():
    picture = _picture(1024, 640)
    assert llm_images.fitted(picture, 1024) is picture
    assert llm_images.fitted(_picture(1280, 800), None) == _picture(1280, 800)
    junk = b"\x89PNG\r\n\x1a\n" + b"0" * 32
    assert llm_images.fitted(junk, 1024) == junk
