"""The public-label rule as this service applies it (the rule itself: scoring/public_labels.py).

Known names: models and providers the maintained price list (genai-prices) names, and the ids
the clients we take cycles from write for providers and harnesses. Counted contributors: those
seen on two occasions at least PUBLIC_LABEL_MIN_TENURE_HOURS apart (their first and latest
contribution), since random install ids cost nothing and time does. A counted contributor vouches
for a name once it sent the name on PUBLIC_LABEL_MIN_DAYS distinct days (the server's, UTC), each
a whole day after it had been seen that long: what a new install sends never counts, later or
retroactively, and two aged installs take that many days to put a name they made up on the pages.
An operator's allow and deny lists (NameDecision, `manage.py public_names`) come first.
"""

from collections.abc import Mapping
from datetime import timedelta
from functools import cache
from typing import Final

from django.conf import settings
from django.db import transaction
from django.db.models import BooleanField, Count, DateTimeField, Expression, ExpressionWrapper, F, Q, Value
from django.db.models.functions import TruncDate
from django.utils import timezone

from ingest.models import Contributor, NameSighting
from leaderboard.coordination import coordinator
from leaderboard.known_models import is_known_canonical_model
from leaderboard.models import NameDecision
from scoring.public_labels import (
    EFFORT_COLUMNS,
    HARNESS_COLUMNS,
    HARNESS_VERSION_COLUMNS,
    KNOWN_EFFORTS,
    MODEL_COLUMNS,
    PROVIDER_COLUMNS,
    NameKind,
    NameRule,
    is_release_number,
)

# Provider ids the clients write beside the price list's own: OpenCode's (models.dev) and the recorder's.
CLIENT_PROVIDERS: Final = frozenset(
    {
        "amazon-bedrock", "bedrock", "google-vertex", "google-vertex-anthropic", "vertex", "github-models",
        "xai", "opencode", "ollama", "lmstudio", "fireworks-ai", "togetherai", "alibaba", "deepinfra", "nvidia",
        "vercel", "zai-coding-plan", "moonshot", "gemini",
    }
)  # fmt: skip
# Harnesses whose cycles this service takes: the OpenCode plugin and the agents the recorder reads
# (Cline, Roo Code and Kilo Code by one reader, named by the extension's folder).
KNOWN_HARNESSES: Final = frozenset(
    {"opencode", "claude-code", "codex", "aider", "gemini-cli", "copilot-cli", "cline", "roo-code", "kilo-code"}
    | {"goose", "amp"}
)


@cache
def known_providers() -> frozenset[str]:
    # The price list is read on first use, not at import: it and its package take a fifth of a second to load.
    from genai_prices import data_snapshot

    return frozenset(provider.id for provider in data_snapshot.get_snapshot().providers) | CLIENT_PROVIDERS


def is_known_provider(name: str) -> bool:
    return name in known_providers()


PUBLISHED_NAMES: Final = (
    NameKind(MODEL_COLUMNS, is_known_canonical_model),
    NameKind(EFFORT_COLUMNS, KNOWN_EFFORTS.__contains__),
    NameKind(PROVIDER_COLUMNS, is_known_provider),
    NameKind(HARNESS_COLUMNS, KNOWN_HARNESSES.__contains__),
    NameKind(HARNESS_VERSION_COLUMNS, is_release_number),
)


# An operator's decisions on names: shown (True) or denied (False).
NameDecisions = Mapping[str, bool]


def name_decisions() -> dict[str, bool]:
    return dict(NameDecision.objects.values_list("name", "shown"))


def counted_contributor(path: str = "") -> Expression | Value:
    """Whether a contributor counts toward a name, as an expression on a query of contributors, or of rows
    that reach their contributor through `path` (e.g. "contributor__" on cycles)."""
    tenure = timedelta(hours=settings.PUBLIC_LABEL_MIN_TENURE_HOURS)
    if tenure <= timedelta(0):
        return Value(True)
    seasoned = Q(**{f"{path}last_seen__gte": F(f"{path}first_seen") + tenure})
    return ExpressionWrapper(seasoned, output_field=BooleanField())


def counted_contributors() -> frozenset[int]:
    """The ids of the contributors that count toward a name (one query)."""
    counted = Contributor.objects.alias(counted=counted_contributor()).filter(counted=True)
    return frozenset(counted.values_list("id", flat=True))


def vouched_pairs() -> frozenset[tuple[int, str]] | None:
    """The (contributor, name) pairs where the contributor sent the name on PUBLIC_LABEL_MIN_DAYS distinct days,
    each after the day it had been seen for the tenure (one query); None when no days are asked for."""
    days = settings.PUBLIC_LABEL_MIN_DAYS
    if days <= 0:
        return None
    tenure = timedelta(hours=settings.PUBLIC_LABEL_MIN_TENURE_HOURS)
    counted_from = ExpressionWrapper(F("contributor__first_seen") + tenure, output_field=DateTimeField())
    sightings = NameSighting.objects.filter(contributor__retracted_at__isnull=True, day__gt=TruncDate(counted_from))
    enough = sightings.values("contributor_id", "name").annotate(days=Count("day")).filter(days__gte=days)
    return frozenset(enough.values_list("contributor_id", "name"))


def public_name_rule(*, counted: frozenset[int], decisions: NameDecisions) -> NameRule:
    """The rule a recompute, a window or an export applies, given who counts and the operator's decisions."""
    return NameRule(
        kinds=PUBLISHED_NAMES,
        min_contributors=settings.PUBLIC_LABEL_MIN_CONTRIBUTORS,
        counted=counted,
        vouched=vouched_pairs(),
        allowed=frozenset(name for name, shown in decisions.items() if shown),
        denied=frozenset(name for name, shown in decisions.items() if not shown),
    )


# ---------------------------------------------------------------- the operator's decisions


def _owe_a_recompute() -> None:
    coordinator().mark_pending()


def decide(*, name: str, shown: bool) -> NameDecision:
    """An operator allows a published name at once or denies it for good; the next recompute applies it."""
    decision, _ = NameDecision.objects.update_or_create(
        name=name, defaults={"shown": shown, "decided_at": timezone.now()}
    )
    transaction.on_commit(_owe_a_recompute, robust=True)
    return decision


def forget(*, name: str) -> bool:
    """Drop the operator's decision on a name (the public-label rule decides again); whether there was one."""
    deleted, _ = NameDecision.objects.filter(name=name).delete()
    if deleted:
        transaction.on_commit(_owe_a_recompute, robust=True)
    return bool(deleted)
