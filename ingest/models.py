import hashlib
import hmac
import uuid

from django.conf import settings
from django.db import models


def install_hash(install: uuid.UUID) -> str:
    """The keyed hash that stands for an install; the install itself is never stored."""
    key = settings.INSTALL_HASH_KEY.encode()
    return hmac.new(key, str(install).lower().encode(), hashlib.sha256).hexdigest()


class Contributor(models.Model):
    """One installation of a client, known only by a keyed hash of its install id.

    The id orders contributors by first contribution; exports call it c<id>.
    """

    install_hash = models.CharField(max_length=64, unique=True)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()
    retracted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.pseudonym

    @property
    def pseudonym(self) -> str:
        return f"c{self.id}"

    @property
    def is_retracted(self) -> bool:
        return self.retracted_at is not None


class Cycle(models.Model):
    """The work between a plan and the commit that followed (cycle-record.md)."""

    class Role(models.IntegerChoices):
        OTHER = 0
        PLAN = 1
        BUILD = 2

    class ShipStatus(models.IntegerChoices):
        JUDGED = 0
        PENDING = 1
        UNSHIPPABLE = 2

    contributor = models.ForeignKey(Contributor, on_delete=models.CASCADE, related_name="cycles")
    cycle_key = models.CharField(max_length=16)
    day = models.DateField()
    model = models.CharField(max_length=64)
    provider = models.CharField(max_length=64)
    role = models.SmallIntegerField(choices=Role.choices)
    planner_model = models.CharField(max_length=64, blank=True)
    planner_provider = models.CharField(max_length=64, blank=True)
    builder_model = models.CharField(max_length=64, blank=True)
    builder_provider = models.CharField(max_length=64, blank=True)
    human_turns = models.IntegerField()
    assistant_steps = models.IntegerField()
    edits = models.IntegerField()
    edit_paths = models.SmallIntegerField()
    edit_errors = models.IntegerField()
    cost_usd = models.FloatField()
    shipped = models.SmallIntegerField()
    active_hours = models.FloatField()
    verified = models.SmallIntegerField()
    intervened = models.SmallIntegerField()
    step_seconds_median = models.FloatField()
    ship_status = models.SmallIntegerField(choices=ShipStatus.choices)
    effort = models.CharField(max_length=32, blank=True)
    planner_effort = models.CharField(max_length=32, blank=True)
    builder_effort = models.CharField(max_length=32, blank=True)
    harness = models.CharField(max_length=64)
    harness_version = models.CharField(max_length=32, blank=True)
    # The client's extraction time of the stored copy: the never-regress rule compares it.
    generated = models.DateTimeField()
    received_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["contributor", "cycle_key"], name="cycle_unique_per_contributor"),
        ]
        indexes = [models.Index(fields=["day"], name="cycle_day")]

    def __str__(self) -> str:
        return f"{self.contributor_id}:{self.cycle_key}"

    @property
    def is_judged(self) -> bool:
        """Scoring spec A1: only judged cycles enter any view."""
        return self.assistant_steps > 0 and self.edits > 0 and self.edit_paths == 1


class Receipt(models.Model):
    """One accepted contribution request: when, which client, what it did. No address."""

    received_at = models.DateTimeField()
    schema = models.SmallIntegerField()
    extractor = models.CharField(max_length=32)
    accepted = models.IntegerField()
    inserted = models.IntegerField()
    updated = models.IntegerField()
    unchanged = models.IntegerField()

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"receipt {self.id}: {self.accepted} rows"
