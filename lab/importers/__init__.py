"""Readers of published lab data: each turns one file (or one benchmark folder) into a ParsedSource.

Pure modules: they read files and return plain records; storing them is lab.services' job.
"""

from lab.importers.common import FORMATS, LabInputError, ParsedSource, RunRecord, SourceInfo, parse

__all__ = ["FORMATS", "LabInputError", "ParsedSource", "RunRecord", "SourceInfo", "parse"]
