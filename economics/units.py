"""Unit constants used at the display edge and in catalog conversion.

Everything inside ``economics`` is decimal SI: bytes, seconds, FLOP/s, USD. These constants exist so that
no module writes an inline ``1e12``; they are the one place where a "TB/s" or a "Mtok" is defined.
"""

from __future__ import annotations

MB = 1e6  # bytes per decimal megabyte [B]
GB = 1e9  # bytes per decimal gigabyte [B]
GIB = 2.0**30  # bytes per binary gibibyte [B], only to reproduce sources that use GiB
TB = 1e12  # bytes per decimal terabyte [B]
TFLOPS = 1e12  # FLOP/s per TFLOP/s
PFLOPS = 1e15  # FLOP/s per PFLOP/s
MTOK = 1e6  # tokens per million tokens ("Mtok")
MS = 1e-3  # seconds per millisecond [s]
US = 1e-6  # seconds per microsecond [s]
SECONDS_PER_HOUR = 3600.0
HOURS_PER_YEAR = 8760.0
HOURS_PER_MONTH = 730.0  # 8760 / 12, the convention colocation quotes use
