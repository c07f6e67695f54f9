"""Shapes of the API's bodies, for the OpenAPI schema only.

The request bodies are JSON Schema built from the contract itself (ingest.openapi: positional rows
do not fit a serializer); these classes exist so /api/schema/ and /api/docs/ describe every answer.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from core.errors import ContractErrorSerializer

# Inline, like ErrorSerializer: both answers carry a field named `errors`.
ContributionAcceptedSerializer = inline_serializer(
    name="ContributionAccepted",
    fields={
        "accepted": serializers.IntegerField(help_text="Rows that passed the checks."),
        "inserted": serializers.IntegerField(),
        "updated": serializers.IntegerField(),
        "unchanged": serializers.IntegerField(help_text="Same facts, or a stored copy from a later `generated`."),
        "snapshot": serializers.CharField(allow_null=True, help_text="Id of the newest published ranking snapshot."),
        "skipped": serializers.IntegerField(help_text="Rows left out: a value broke a column rule or privacy check."),
        "errors": ContractErrorSerializer(many=True, help_text="Why the skipped rows were left out (first 100)."),
    },
)


class CycleSerializer(serializers.Serializer[Any]):
    """A normalized row as it would be stored, with readable field names."""

    cycle_key = serializers.CharField()
    day = serializers.DateField()
    model = serializers.CharField()
    provider = serializers.CharField()
    role = serializers.IntegerField()
    planner_model = serializers.CharField()
    planner_provider = serializers.CharField()
    builder_model = serializers.CharField()
    builder_provider = serializers.CharField()
    human_turns = serializers.IntegerField()
    assistant_steps = serializers.IntegerField()
    edits = serializers.IntegerField()
    edit_paths = serializers.IntegerField()
    edit_errors = serializers.IntegerField()
    cost_usd = serializers.FloatField()
    shipped = serializers.IntegerField()
    active_hours = serializers.FloatField()
    verified = serializers.IntegerField()
    intervened = serializers.IntegerField()
    step_seconds_median = serializers.FloatField()
    ship_status = serializers.IntegerField()
    effort = serializers.CharField()
    planner_effort = serializers.CharField()
    builder_effort = serializers.CharField()
    harness = serializers.CharField()
    harness_version = serializers.CharField()


PreviewSerializer = inline_serializer(
    name="Preview",
    fields={
        "accepted": serializers.IntegerField(),
        "schema": serializers.IntegerField(),
        "extractor": serializers.CharField(),
        "generated": serializers.DateTimeField(),
        "rows": CycleSerializer(many=True),
        "skipped": serializers.IntegerField(help_text="Rows a contribution would leave out."),
        "errors": ContractErrorSerializer(many=True, help_text="Why those rows would be left out (first 100)."),
    },
)


class RetractedSerializer(serializers.Serializer[Any]):
    deleted = serializers.IntegerField(help_text="Cycles deleted by this request (0 when already retracted).")


class InstallCountsSerializer(serializers.Serializer[Any]):
    stored = serializers.IntegerField(help_text="Cycles of this install the service holds.")
    judged = serializers.IntegerField(help_text="Of those, cycles with a > 0, tedits > 0 and tpaths = 1.")
    pending = serializers.IntegerField(
        help_text="Of those, cycles sent while their ship window was open (tshipe 1); judged once sent again."
    )


class StatsSerializer(serializers.Serializer[Any]):
    cycles = serializers.IntegerField()
    judged = serializers.IntegerField(help_text="Cycles with a > 0, tedits > 0 and tpaths = 1 (scoring spec A1).")
    contributors = serializers.IntegerField(help_text="Installs with cycles that have not retracted.")
    snapshot = serializers.CharField(allow_null=True)
    generated = serializers.DateTimeField()
