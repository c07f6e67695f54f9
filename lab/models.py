from django.db import models


class LabSource(models.Model):
    """One published set of benchmark runs, shown in its own terms with its own caveats."""

    name = models.SlugField(max_length=64, unique=True)
    title = models.CharField(max_length=200)
    origin = models.CharField(max_length=300, help_text="where the runs were published")
    commit = models.CharField(max_length=64, blank=True)
    grade_words = models.CharField(max_length=200, blank=True, help_text="what a grade means in this source")
    caveats = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class LabTask(models.Model):
    source = models.ForeignKey(LabSource, on_delete=models.CASCADE, related_name="tasks")
    key = models.CharField(max_length=300)

    class Meta:
        ordering = ["source", "key"]
        constraints = [models.UniqueConstraint(fields=["source", "key"], name="lab_task_unique_key")]

    def __str__(self) -> str:
        return self.key


class LabRun(models.Model):
    """One run of one model (or one planner → builder pairing) on one task.

    Model names are stored normalised (lab.names); aliases apply when runs are read, so an
    alias added later needs no re-import. `key` names the run within its source and makes a
    re-import update in place rather than add.
    """

    source = models.ForeignKey(LabSource, on_delete=models.CASCADE, related_name="runs")
    task = models.ForeignKey(LabTask, on_delete=models.CASCADE, related_name="runs")
    key = models.CharField(max_length=300)
    model = models.CharField(max_length=100)
    planner = models.CharField(max_length=100, blank=True)
    builder = models.CharField(max_length=100, blank=True)
    harness = models.CharField(max_length=100, blank=True)
    effort = models.CharField(max_length=32, blank=True)
    grade = models.FloatField(null=True, blank=True)
    grade_max = models.FloatField(null=True, blank=True)
    resolved = models.BooleanField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True)
    tokens_in = models.BigIntegerField(null=True, blank=True)
    tokens_out = models.BigIntegerField(null=True, blank=True)
    cost_usd = models.FloatField(null=True, blank=True)
    day = models.DateField(null=True, blank=True)
    extras = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["source", "key"]
        constraints = [models.UniqueConstraint(fields=["source", "key"], name="lab_run_unique_key")]

    def __str__(self) -> str:
        return f"{self.source_id}:{self.key}"


class ModelAlias(models.Model):
    """An operator's mapping from a normalised lab name to the field's canonical name."""

    name = models.CharField(max_length=100, unique=True)
    canonical = models.CharField(max_length=100)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "model aliases"

    def __str__(self) -> str:
        return f"{self.name} → {self.canonical}"
