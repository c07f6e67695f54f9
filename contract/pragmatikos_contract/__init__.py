"""The contribution contract's rules for one value, with no dependencies.

The service (`ingest.contract`) refuses what these rules refuse, and the recorder applies the
same rules before a value can enter a row, so neither can drift from the other.
"""
