from typing import Any

from django.db import models


class SnapshotQuerySet(models.QuerySet["Snapshot"]):
    def published(self) -> "SnapshotQuerySet":
        # The bootstrap samples are large and only the comparison page reads them, by key.
        return self.order_by("-id").defer("samples")


class Snapshot(models.Model):
    """One published ranking: the whole pool document of all six views, all-time scope.

    A snapshot is written in one transaction, so a recompute that fails or is killed
    leaves the previous one served. The newest SNAPSHOTS_KEPT are kept whole; of older ones only
    the last of each day stays, its document emptied, as the date of its score history points.
    """

    created_at = models.DateTimeField()
    # Newest day and cycle count in scope, to tell a reader what the ranking covers.
    cycles = models.IntegerField()
    judged = models.IntegerField()
    contributors = models.IntegerField()
    # A digest of the cycles that went in: an unchanged pool publishes no new snapshot.
    fingerprint = models.CharField(max_length=64)
    is_demo = models.BooleanField(default=False)
    document = models.JSONField()
    compute_seconds = models.FloatField(default=0.0)
    # {view: {label: [scoreAdj per bootstrap resample]}} of the ranked groups, so a comparison needs no bootstrap
    # of its own. Only the newest snapshot keeps them (publishing empties the older ones').
    samples = models.JSONField(default=dict)
    # The operator's decisions on names the snapshot was made with ({name: shown}): its day windows fold the
    # same names. Never published (a denied name is what it hides).
    name_decisions = models.JSONField(default=dict)

    objects = SnapshotQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        get_latest_by = "id"

    def __str__(self) -> str:
        return f"snapshot {self.id}"

    @property
    def views(self) -> dict[str, Any]:
        views: dict[str, Any] = self.document.get("views", {})
        return views


class GroupScore(models.Model):
    """A ranked group's headline in one snapshot, kept apart for the score history: only the
    newest snapshot of each UTC day keeps its rows, so the history holds one point per day."""

    snapshot = models.ForeignKey(Snapshot, on_delete=models.CASCADE, related_name="scores")
    view = models.CharField(max_length=32)
    label = models.CharField(max_length=300)
    score_adj = models.FloatField()
    ci_lo = models.FloatField(null=True)
    ci_hi = models.FloatField(null=True)
    rank = models.IntegerField(null=True)
    hjudged = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["snapshot", "view", "label"], name="groupscore_unique"),
        ]
        indexes = [models.Index(fields=["view", "label", "snapshot"], name="groupscore_history")]

    def __str__(self) -> str:
        return f"{self.view}/{self.label}@{self.snapshot_id}"


class NameDecision(models.Model):
    """An operator's decision on one published name (manage.py public_names): shown at once, or never.

    It applies to the name in every column that publishes names (models, efforts, providers,
    harnesses, versions); the next recompute and export follow it.
    """

    name = models.CharField(max_length=200, unique=True)
    shown = models.BooleanField()
    decided_at = models.DateTimeField()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name}: {'allowed' if self.shown else 'denied'}"
