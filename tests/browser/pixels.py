"""Screenshots as ink: decode Chromium's PNGs and compare the shapes drawn.

Two renderings of the same glyphs at the same size and weight give the same ink up to
anti-aliasing and a pixel of placement; different glyphs (an italic N for a script 𝒩)
do not. `ink_distance` measures that: 0 for identical ink, about 1 for unrelated ink.
"""
from __future__ import annotations

import struct
import zlib

import numpy as np


def decode_png(data: bytes) -> np.ndarray:
    """An 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) -> height x width x channels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, header = 8, [], None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        at += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and not interlace, header
    channels = 3 if color == 2 else 4
    stride = width * channels
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.int32)
    previous = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + previous) % 256
        else:  # sub, average, Paeth: each byte depends on the one to its left
            row = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                left = row[x - channels] if x >= channels else 0
                up = previous[x]
                if kind == 1:
                    predicted = left
                elif kind == 3:
                    predicted = (left + up) // 2
                else:
                    upper_left = previous[x - channels] if x >= channels else 0
                    p = left + up - upper_left
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                    predicted = left if pa <= pb and pa <= pc else up if pb <= pc else upper_left
                row[x] = (line[x] + predicted) % 256
        out[y] = row
        previous = row
    return out.reshape(height, width, channels)[:, :, :3].astype(np.uint8)


def ink(png: bytes) -> np.ndarray:
    """How dark each pixel is against the background (the lightest pixel), cropped to the ink."""
    gray = decode_png(png).astype(np.float64).mean(axis=2)
    dark = gray.max() - gray
    rows, cols = np.nonzero(dark > 48)
    if not len(rows):
        return np.zeros((0, 0))
    return dark[rows.min():rows.max() + 1, cols.min():cols.max() + 1]


def ink_distance(a: np.ndarray, b: np.ndarray) -> float:
    """The share of ink that differs, at the best alignment within a pixel or two."""
    if not a.size or not b.size:
        return 1.0
    if abs(a.shape[0] - b.shape[0]) > 2 or abs(a.shape[1] - b.shape[1]) > 2:
        return 1.0  # a different size is a different rendering
    height, width = max(a.shape[0], b.shape[0]) + 2, max(a.shape[1], b.shape[1]) + 2
    padded = np.zeros((height, width))
    padded[1:1 + a.shape[0], 1:1 + a.shape[1]] = a
    best = 1.0
    for dy in range(3):
        for dx in range(3):
            other = np.zeros((height, width))
            if dy + b.shape[0] <= height and dx + b.shape[1] <= width:
                other[dy:dy + b.shape[0], dx:dx + b.shape[1]] = b
                best = min(best, np.abs(padded - other).sum() / max(padded.sum(), other.sum()))
    return best


def luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG relative luminance of sRGB colours (the last axis: red, green, blue, 0 to 255)."""
    c = np.asarray(rgb, dtype=np.float64) / 255
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


def contrast(image: np.ndarray, colour) -> np.ndarray:
    """The WCAG contrast ratio of every pixel of an image with one colour: 1 (the same) to 21."""
    a, b = luminance(image), luminance(np.asarray(colour))
    return (np.maximum(a, b) + 0.05) / (np.minimum(a, b) + 0.05)
