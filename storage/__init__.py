"""The review store: saved price reviews in SQLite (default) or PostgreSQL, on SQLAlchemy Core + Alembic.

``from storage import reviews as store`` gives the whole API (:mod:`storage.reviews`); the database is chosen
and migrated by :mod:`storage.engine`. Domain code in ``economics/`` never imports this package: the data a
review holds is modelled in :mod:`economics.review`.
"""
