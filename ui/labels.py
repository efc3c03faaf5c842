"""Where a scatter point's name goes: beside its point, or a little farther with a leader line, wherever it covers
the fewest other points and names and stays inside the plot. Estimated in pixels; pure (no plotly).

A label is drawn as a plotly annotation offset from its point by a fixed number of pixels, so its distance from
its own point does not change with the chart's width; only the points spread apart on a wider chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 [px], y up

#: Directions a label may sit in around its point, in order of preference: (dx, dy), right and up positive.
DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))
#: How much farther than touching its marker a label may sit, nearest first [px]; beyond the first, a leader
#: line joins it to its point.
GAPS_PX = (0.0, 18.0, 36.0, 60.0)
#: A 13 px font's mean character width (measured in chromium: ~6.5 px; taken wider so a label is never
#: estimated too small) and line height [px].
CHAR_PX, LINE_PX = 7.0, 16.0


@dataclass(frozen=True)
class Label:
    """A point's label: its text (``<br>`` between lines) and the offset of its centre from the point [px, y up];
    ``leader`` when it sits away from its marker and needs a line to it."""

    text: str
    dx_px: float
    dy_px: float
    leader: bool


def two_lines(text: str) -> str:
    """``text`` broken at the space nearest its middle, as plotly writes a line break; unchanged without a space.

    >>> two_lines("Analyst research (frontier reasoning)")
    'Analyst research<br>(frontier reasoning)'
    """
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    if not spaces:
        return text
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return text[:cut] + "<br>" + text[cut + 1 :]


def _size(text: str) -> tuple[float, float]:
    lines = text.split("<br>")
    return CHAR_PX * max(len(line) for line in lines), LINE_PX * len(lines)


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(
    points_px: Sequence[tuple[float, float]],
    texts: Sequence[str],
    plot_px: tuple[float, float],
    marker_px: Sequence[float] | float = 9.0,
    obstacles: Sequence[Box] = (),
) -> list[Label]:
    """A :class:`Label` for each point at ``points_px`` (pixels from the plot's lower left corner, y up) in a plot
    of ``plot_px`` (width, height). Each label in turn (busiest points first) takes, among the places around its
    point (:data:`DIRECTIONS` × :data:`GAPS_PX`, on one line or two), the one that covers the fewest other points'
    markers (radius ``marker_px``, one per point or shared) and already placed labels and is not cut off by the
    plot's edge (or covers one of the ``obstacles``: other text already on the plot); ties go to the nearer place,
    then to one line, then to the earlier direction.

    >>> a, b = place_labels([(100.0, 100.0), (104.0, 100.0)], ["Alpha", "Beta"], (400.0, 400.0))
    >>> (a.dx_px, a.dy_px > 0), (b.dx_px, b.dy_px < 0)
    ((0.0, True), (0.0, True))
    >>> place_labels([(390.0, 200.0)], ["A long name"], (400.0, 400.0))[0].dx_px < 0
    True
    """
    radii = [float(marker_px)] * len(points_px) if isinstance(marker_px, int | float) else list(marker_px)
    markers = [(x - r, y - r, x + r, y + r) for (x, y), r in zip(points_px, radii, strict=True)]
    taken: list[Box] = list(obstacles)
    out = [Label(t, 0.0, 0.0, False) for t in texts]
    crowd = [sum(abs(x - u) < 150 and abs(y - v) < 40 for u, v in points_px) for x, y in points_px]
    for i in sorted(range(len(points_px)), key=lambda i: (-crowd[i], i)):
        if not texts[i]:
            continue
        x, y = points_px[i]
        best: tuple[tuple[int, int, int, int], Label, Box] | None = None
        for gap_rank, gap in enumerate(GAPS_PX):
            for lines, text in enumerate(dict.fromkeys((texts[i], two_lines(texts[i])))):
                w, h = _size(text)
                for rank, (dx, dy) in enumerate(DIRECTIONS):
                    cx = x + dx * (radii[i] + gap + w / 2)
                    cy = y + dy * (radii[i] + gap + h / 2)
                    box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
                    hits = sum(_overlap(box, b) for b in taken)
                    hits += sum(_overlap(box, m) for j, m in enumerate(markers) if j != i)
                    hits += 2 * (box[0] < 0 or box[1] < 0 or box[2] > plot_px[0] or box[3] > plot_px[1])  # cut off
                    key = (hits, gap_rank, lines, rank)
                    if best is None or key < best[0]:
                        best = (key, Label(text, cx - x, cy - y, gap_rank > 0), box)
        assert best is not None
        out[i] = best[1]
        taken.append(best[2])
    return out
