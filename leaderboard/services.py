"""Writes of the leaderboard: recomputing and publishing ranking snapshots."""


def request_recompute() -> None:
    """Ask for a recompute after new data; queued by ingest with transaction.on_commit."""
