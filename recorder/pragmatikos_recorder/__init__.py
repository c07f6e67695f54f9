"""Pragmatikos recorder: agent session logs + git history -> anonymous schema-3 cycle rows."""

__version__ = "0.1.0"
