# Model names are stored in their canonical form (pragmatikos_contract.names), so the name a page prints is
# the name the public-label rule checked. Rows stored before were kept as sent (lowercased): each distinct
# name is rewritten here to its canonical form. The cell triggers (0007, 0008) move each rewritten cycle's
# share to its new cell in the same statement. A name whose canonical form would break a privacy check or
# the token shape (joining `x-10-1-2-3` into an address) is left as it is: the rule shows it only as
# (other) unless contributors vouch for it.

from typing import Any

from django.db import migrations
from pragmatikos_contract.names import canonical_model
from pragmatikos_contract.values import TOKEN_RE, privacy_problem

MODEL_FIELDS = ("model", "planner_model", "builder_model")


def canonical_names(names: set[str]) -> dict[str, str]:
    """The stored names that have another canonical form, and that form, when it may be stored."""
    renamed = {}
    for name in names:
        canonical = canonical_model(name)
        if canonical != name and TOKEN_RE.fullmatch(canonical) and privacy_problem(canonical) is None:
            renamed[name] = canonical
    return renamed


def canonicalise(apps: Any, schema_editor: Any) -> None:
    cycles = apps.get_model("ingest", "Cycle").objects.using(schema_editor.connection.alias)
    for field in MODEL_FIELDS:
        stored = set(cycles.exclude(**{field: ""}).values_list(field, flat=True).distinct())
        for name, canonical in sorted(canonical_names(stored).items()):
            cycles.filter(**{field: name}).update(**{field: canonical})


class Migration(migrations.Migration):
    dependencies = [("ingest", "0008_cell_histogram_in_row")]

    operations = [migrations.RunPython(canonicalise, migrations.RunPython.noop, elidable=True)]
