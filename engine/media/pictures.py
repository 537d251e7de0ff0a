"""Is it the same picture? A keyframe against earlier keyframes and against slide pages.

A picture's signature is a small grey thumbnail (240 x 135) and a difference hash of it
(dHash: one bit per neighbouring pair, brighter or not; 144 bits). The hash picks
candidates; the thumbnails decide: two pictures are the same when almost no thumbnail pixel
is darker or lighter by more than ink would be than all its neighbours in the other
(compression noise, a one-pixel shift and a page rendered by another program move pixels a
little; a changed word or an added line puts strokes where the other picture is blank).
A slide page is compared with the part of a frame where it would be shown full screen:
scaled to fit and centred, letterbox bars left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

THUMB_SIZE = (240, 135)  # (width, height) of the compared thumbnails
_HASH_SIZE = (16, 9)  # dHash grid: 16 x 9 = 144 bits
_INK = 48  # a thumbnail pixel that moved more than this has changed
MAX_HASH_BITS = 24  # candidates differ in at most this many hash bits
# The same picture has at most this share of changed thumbnail pixels. Measured by
# bench/picture_matching.py (MaViLS: 423 pages of 11 decks rendered by PDFium, and the 10.6-min
# generated lecture of bench/video_import.py): a keyframe and its own page 0.0005 at most; two
# different pages of one deck 0.0029 at least (a section title changed), most above 0.05.
# Below the threshold: a word of body text one letter longer (0.0003) at 320 px.
MAX_CHANGED = 0.0012

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Signature:
    bits: np.ndarray  # bool, the dHash
    thumb: np.ndarray  # int16 grey levels, THUMB_SIZE[1] x THUMB_SIZE[0]
    low: np.ndarray  # the darkest and lightest of each thumbnail pixel's 3 x 3 neighbours
    high: np.ndarray


def fit_box(height: int, width: int, aspect: float) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) of a picture of ``aspect`` (width / height) shown as large
    as it fits, centred, in a ``height`` x ``width`` frame (a slide shown full screen)."""
    if width / height > aspect:  # bars left and right
        inner = min(width, max(1, round(height * aspect)))
        left = (width - inner) // 2
        return 0, height, left, left + inner
    inner = min(height, max(1, round(width / aspect)))
    top = (height - inner) // 2
    return top, top + inner, 0, width


def signature(picture: np.ndarray, aspect: float | None = None) -> Signature:
    """The signature of a grey (H x W) or RGB (H x W x 3) uint8 picture; with ``aspect``,
    of the part of it where a page of that shape would be shown full screen."""
    import cv2

    grey = cv2.cvtColor(picture, cv2.COLOR_RGB2GRAY) if picture.ndim == 3 else picture
    if aspect is not None:
        top, bottom, left, right = fit_box(grey.shape[0], grey.shape[1], aspect)
        grey = np.ascontiguousarray(grey[top:bottom, left:right])
    thumb = cv2.resize(grey, THUMB_SIZE, interpolation=cv2.INTER_AREA)
    small = cv2.resize(thumb, (_HASH_SIZE[0] + 1, _HASH_SIZE[1]), interpolation=cv2.INTER_AREA)
    bits = (small[:, 1:] > small[:, :-1]).ravel()
    kernel = np.ones((3, 3), np.uint8)
    low = cv2.erode(thumb, kernel).astype(np.int16)
    high = cv2.dilate(thumb, kernel).astype(np.int16)
    return Signature(bits, thumb.astype(np.int16), low, high)


def changed_share(a: Signature, b: Signature) -> float:
    """The share of thumbnail pixels darker or lighter by more than ``_INK`` than every
    pixel around the same place in the other picture (a pixel's shift or a softer edge does
    not count; a stroke where the other is blank does)."""
    changed = (a.thumb > b.high + _INK) | (a.thumb < b.low - _INK)
    changed |= (b.thumb > a.high + _INK) | (b.thumb < a.low - _INK)
    return float(np.count_nonzero(changed)) / changed.size


class PictureIndex(Generic[T]):
    """Signatures each with a value (an earlier scene's text, a slide page); finds the value
    of the same picture."""

    def __init__(self) -> None:
        self._signatures: list[Signature] = []
        self._values: list[T] = []
        self._bits = np.zeros((0, _HASH_SIZE[0] * _HASH_SIZE[1]), dtype=bool)

    def __len__(self) -> int:
        return len(self._values)

    def add(self, sig: Signature, value: T) -> None:
        self._signatures.append(sig)
        self._values.append(value)
        self._bits = np.vstack([self._bits, sig.bits[None, :]])

    def extend(self, items: Sequence[tuple[Signature, T]]) -> None:
        for sig, value in items:
            self._signatures.append(sig)
            self._values.append(value)
        if items:
            self._bits = np.vstack([self._bits, *(s.bits[None, :] for s, _ in items)])

    def find(self, sig: Signature) -> T | None:
        """The value of the closest same picture, or None."""
        if not self._values:
            return None
        distances = np.count_nonzero(self._bits != sig.bits[None, :], axis=1)
        best: tuple[float, int] | None = None
        for i in np.flatnonzero(distances <= MAX_HASH_BITS):
            share = changed_share(sig, self._signatures[int(i)])
            if share <= MAX_CHANGED and (best is None or share < best[0]):
                best = (share, int(i))
        return None if best is None else self._values[best[1]]

    def nearest(self, sig: Signature) -> list[tuple[float, int, T]]:
        """(changed share, hash distance, value) of every picture, closest first (to tune
        the thresholds)."""
        distances = np.count_nonzero(self._bits != sig.bits[None, :], axis=1)
        out = [
            (changed_share(sig, s), int(d), v)
            for s, d, v in zip(self._signatures, distances, self._values, strict=True)
        ]
        return sorted(out, key=lambda t: t[0])
