"""``python -m storage upgrade``: bring the review store (``LLMECON_DATABASE_URL``, else the SQLite file) to the
newest schema revision and print it. A team deployment runs this once before starting the app replicas; the
app also migrates on first use, under a lock, so running it is optional."""

from __future__ import annotations

import sys

from storage import reviews


def main(argv: list[str]) -> int:
    if argv != ["upgrade"]:
        print("usage: python -m storage upgrade", file=sys.stderr)
        return 2
    try:
        revision = reviews.store_schema_version()
    except reviews.StoreError as exc:
        print(f"python -m storage: error: {exc}", file=sys.stderr)
        return 2
    print(f"{reviews.store_location()}: schema revision {revision}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
