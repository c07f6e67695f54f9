"""Whether a field model's or pairing's page links to the lab: only where some lab source has runs of it.

The lab sits above this app, so the pages never import it: they ask the function the lab provides to
lab_presence (LabConfig.ready: lab.presence.in_the_lab), and the lab retires this app's pages whenever
its runs or aliases change. With none provided (the lab not installed), no page links to the lab.
"""

from core.hooks import Hook

# Whether the lab has runs of (view, label).
lab_presence: Hook[[str, str], bool] = Hook("whether the lab has runs of a field group")


def in_the_lab(view: str, label: str) -> bool:
    finder = lab_presence.provider()
    return finder is not None and finder(view, label)
