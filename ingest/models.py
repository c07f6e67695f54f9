from django.contrib.postgres.fields import ArrayField
from django.db import models, transaction
from django.db.models import Exists, Max, Q

from core.backend import advisory_lock
from core.keys import install_hash as install_hash  # re-exported: callers name it with the models
from scoring.shapes import CELL_KEY

# The key of the PostgreSQL advisory lock that serializes handing out contributor numbers.
NUMBERING_LOCK = 0x70726167  # "prag"
# The key of the one that orders retractions as they commit (ingest.services.retract).
RETRACTION_ORDER_LOCK = 0x72657472  # "retr"


def install_lock_key(digest: str) -> int:
    """A PostgreSQL advisory lock key for one install: 60 bits of its keyed hash (a positive bigint)."""
    return int(digest[:15], 16)


class ContributorQuerySet(models.QuerySet["Contributor"]):
    def assign_numbers(self) -> int:
        """Number the contributors here that have cycles but no number yet, in id order; returns how many.

        Each gets the highest number so far plus one, so numbers follow first contribution with no
        gaps: unlike ids, which rolled-back requests and retractions of unknown installs consume,
        they reveal nothing about how many requests came in. On PostgreSQL a transaction-level
        advisory lock makes concurrent first contributions take turns; it is taken only when there
        is a contributor to number, so later contributions never wait on it.
        """
        waiting = self.filter(number__isnull=True, cycles__isnull=False).distinct().order_by("id").values_list("id")
        with transaction.atomic(using=self.db):
            if not waiting.exists():
                return 0
            advisory_lock(NUMBERING_LOCK, using=self.db)
            # Read again under the lock: what was waiting may have been numbered meanwhile.
            ids = [pk for (pk,) in waiting]
            everyone = Contributor.objects.using(self.db)
            highest = everyone.aggregate(highest=Max("number"))["highest"] or 0
            for offset, pk in enumerate(ids, start=1):
                everyone.filter(id=pk, number__isnull=True).update(number=highest + offset)
        return len(ids)


class Contributor(models.Model):
    """One installation of a client, known only by a keyed hash of its install id.

    `number` is given when the contributor's first cycles are stored (see assign_numbers) and
    kept for good, through a retraction too: exports call the contributor c<number>, in order
    of first contribution and stable across exports. A contributor that never stored a cycle
    (one that only retracted) has none. Rows are never deleted in service, so no number is
    handed out twice.

    `retraction_order` is given by the retraction that deleted the contributor's cycles, in the order
    retractions commit (1, 2, ...): whatever read the highest one as it read the cycles (an export, a
    snapshot) holds nobody whose order is higher, and may hold anyone whose order is (ingest.selectors).
    """

    install_hash = models.CharField(max_length=64, unique=True)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()
    retracted_at = models.DateTimeField(null=True, blank=True)
    # Made up by `load_demo`: a ranking holding any of their cycles is labelled demo data.
    is_demo = models.BooleanField(default=False, db_default=False)
    number = models.PositiveIntegerField(null=True, blank=True, unique=True)
    retraction_order = models.PositiveBigIntegerField(null=True, blank=True, unique=True)

    objects = ContributorQuerySet.as_manager()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.pseudonym if self.number is not None else "a contributor without cycles"

    @property
    def pseudonym(self) -> str:
        return f"c{self.number}"

    @property
    def is_retracted(self) -> bool:
        return self.retracted_at is not None


# Scoring spec A1 as a filter (Cycle.is_judged says it of one row): a > 0, tedits > 0 and tpaths = 1.
JUDGED_RULE = Q(assistant_steps__gt=0, edits__gt=0, edit_paths=1)


class Retraction(models.Model):
    """An install that asked for its data to be deleted, by keyed hash: later contributions from it get 410.

    Kept apart from Contributor so that retracting an install never seen makes no contributor row. A
    retraction of an install with a contributor row is kept for good; one of an install never seen is
    forgotten after RETRACTION_UNSEEN_DAYS (ingest.services.retract).
    """

    install_hash = models.CharField(max_length=64, unique=True)
    retracted_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["retracted_at"], name="retraction_age")]

    def __str__(self) -> str:
        return f"retraction {self.id}"


def _in_pool(rows: type[models.Model]) -> Q:
    """The pool's rule on rows that name their contributor (cycles, cells): not retracted, and demo rows only
    while no real contributor has any."""
    real = rows._default_manager.filter(contributor__is_demo=False, contributor__retracted_at__isnull=True)
    return Q(Q(contributor__is_demo=False) | ~Exists(real), contributor__retracted_at__isnull=True)


class CycleQuerySet(models.QuerySet["Cycle"]):
    def in_pool(self) -> "CycleQuerySet":
        """The cycles that count: of contributors who have not retracted, and demo cycles only while no
        real contributor has any, so generated data never mixes with real data."""
        return self.filter(_in_pool(Cycle))

    def judged(self) -> "CycleQuerySet":
        return self.filter(JUDGED_RULE)


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

    objects = CycleQuerySet.as_manager()

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


class NameSighting(models.Model):
    """A name (a model, effort, provider, harness or harness version) a contributor sent on a day, by the server's
    clock (UTC): the public-label rule counts on how many days each contributor sent a name after it had been
    seen long enough (leaderboard.public_names), which a client cannot date back as it can a cycle's `day`.

    Of the names only, never which cycles: a request adds at most a row per distinct name it holds. Deleted
    with the contributor's cycles when it retracts.
    """

    contributor = models.ForeignKey(Contributor, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=64)
    day = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["contributor", "name", "day"], name="name_sighting_once_a_day"),
        ]

    def __str__(self) -> str:
        return f"{self.contributor_id}:{self.name}@{self.day}"


class Receipt(models.Model):
    """One accepted contribution request: when, which client, what it did. No address."""

    received_at = models.DateTimeField()
    schema = models.SmallIntegerField()
    extractor = models.CharField(max_length=32)
    accepted = models.IntegerField()
    inserted = models.IntegerField()
    updated = models.IntegerField()
    unchanged = models.IntegerField()
    # Rows that broke a column rule or a privacy check and were left out (reported in the 202).
    skipped = models.IntegerField(default=0)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"receipt {self.id}: {self.accepted} rows"


class CellQuerySet(models.QuerySet["Cell"]):
    def in_pool(self) -> "CellQuerySet":
        """The cells that count, by Cycle.objects.in_pool()'s rule on their contributors."""
        return self.filter(_in_pool(Cell))


class Cell(models.Model):
    """The stored cycles of one contributor that share a day, a harness, their names and whether they are judged
    (scoring.shapes.CELL_KEY), summed: a recompute reads these instead of the cycles.

    On PostgreSQL the database keeps this table equal to the cycles: triggers on ingest_cycle (migrations 0007
    and 0008) add every inserted, updated or deleted cycle's share in the same statement, and drop a cell once
    no cycle is left in it. Django never writes the table (hence no constraint that a cascade would act on).
    The embedded SQLite default sums cells from the cycles when it scores, and leaves it empty. The sums are
    named as scoring.shapes.SUMS and CELL_TALLIES name them; the two sums of fractions are exact decimals, so
    adding and taking away cycles never leaves a residue.

    The latency histogram (A3's bag) is the pairs of `latencies` and `latency_weights`: the steps (a) of the
    judged cycles at each latmed. Every weight is positive; a latency may appear more than once (cycles added
    are appended, and only taking cycles away sums each latency's weights), which no weighted median minds.
    """

    # No index of its own: the cell key's unique index starts with the contributor.
    contributor = models.ForeignKey(
        Contributor, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    day = models.DateField()
    harness = models.CharField(max_length=64)
    model = models.CharField(max_length=64)
    effort = models.CharField(max_length=32)
    planner_model = models.CharField(max_length=64)
    planner_effort = models.CharField(max_length=32)
    builder_model = models.CharField(max_length=64)
    builder_effort = models.CharField(max_length=32)
    judged = models.BooleanField()
    hjudged = models.BigIntegerField()  # the cell's cycles, judged or not
    hshipJudged = models.BigIntegerField()
    hshipped = models.BigIntegerField()
    hshippedCosted = models.BigIntegerField()
    huShip = models.BigIntegerField()
    hhrsShip = models.DecimalField(max_digits=40, decimal_places=20)
    hcostShip = models.DecimalField(max_digits=40, decimal_places=20)
    hone = models.BigIntegerField()
    hedits = models.BigIntegerField()
    hteerr = models.BigIntegerField()
    hver = models.BigIntegerField()
    habort = models.BigIntegerField()
    hu = models.BigIntegerField()
    pending = models.BigIntegerField()
    unshippable = models.BigIntegerField()
    shipJudgedShipped = models.BigIntegerField()
    latencies = ArrayField(models.FloatField())
    latency_weights = ArrayField(models.BigIntegerField())

    objects = CellQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=list(CELL_KEY),
                name="cell_key",
            ),
        ]
        indexes = [
            models.Index(fields=["day"], name="cell_day"),
            # The triggers drop emptied cells by these: never a scan of the table.
            models.Index(fields=["id"], condition=Q(hjudged=0), name="cell_emptied"),
        ]

    def __str__(self) -> str:
        return f"cell {self.id}: {self.hjudged} cycles"
