"""Pictures for a model: a screenshot scaled down to the size the model reads it at.

The Messages API bills an image by its pixels (about width × height / 750 tokens) and
scales anything whose longest side exceeds 1,568 pixels down itself; below that, every
pixel sent is paid for. ``fitted`` scales a picture so that its longest side is at most
``longest`` pixels, keeping its aspect ratio (Lanczos resampling, which keeps text
edges sharp), and returns it in its own format; a picture already small enough, or one
that cannot be read, comes back unchanged. The result depends only on the input bytes,
so a prompt holding it is the same on a re-run (the response cache and the prompt
cache see the same request).

It must not decide which pictures a caller sends, or how large: callers hold that.
"""

from __future__ import annotations

import io

from PIL import Image, UnidentifiedImageError

def media_type(data: bytes) -> str:
    return "image/jpeg" if data[:2] == b"\xff\xd8" else "image/png"


def fitted(data: bytes, longest: int | None) -> bytes:
    """``data`` with its longest side at most ``longest`` pixels (None: unchanged)."""
    if not longest:
        return data
    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
            if max(width, height) <= longest:
                return data
            scale = longest / max(width, height)
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            jpeg = media_type(data) == "image/jpeg"
            small = img.convert("RGB" if jpeg else "RGBA" if "A" in img.getbands() else "RGB").resize(
                size, Image.Resampling.LANCZOS)
    except (UnidentifiedImageError, OSError, ValueError):
        return data  # not a picture PIL reads: sent as it is, the API judges it
    out = io.BytesIO()
    if jpeg:
        small.save(out, format="JPEG", quality=90)
    else:
        small.save(out, format="PNG", optimize=False)
    return out.getvalue()

