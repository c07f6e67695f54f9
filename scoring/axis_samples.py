"""The per-axis bootstrap samples kept for comparisons: each resample's adjusted axis values on a log scale.

A comparison of two groups on one axis is a factor on the axis's own scale (A5's log distance with B in the
pool's place): the ratio for costs and speeds, the odds ratio for rates, the ratio of error rates. On the log
scale that factor is a difference, so each group keeps one number per axis and resample:

    ratio and err: log2(adj)        odds: log2(adj / (100 - adj))

and A's advantage over B in a resample is the difference of the two, turned by the axis's direction.

Stored compactly (a snapshot keeps every ranked group of every view): each group's (resamples x axes) matrix as
little-endian int16 in steps of 1/1024 of a log2 unit (a factor resolved to 0.07%), base64. Values past +-32 log2
units (a factor of four billion) saturate; a null value is its own code.

Pure: numpy, no Django.
"""

import base64

import numpy as np
import numpy.typing as npt

from scoring.shapes import AXES, FloatArray

STEPS_PER_UNIT = 1024
NULL_CODE = -32768
_LARGEST = 32767
_ODDS = np.array([axis.kind == "odds" for axis in AXES])
# +1 where higher is better, -1 where lower is: turns a difference of log values into A's advantage.
DIRECTION = np.array([1.0 if axis.higher_is_better else -1.0 for axis in AXES])


def log_values(adj: FloatArray) -> FloatArray:
    """(..., A) adjusted values -> their log scale (NaN where null; +-inf at 0 and 100 on odds, -inf at 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = adj / (100.0 - adj)
        return np.log2(np.where(_ODDS, odds, adj))


def quantise(logs: FloatArray) -> npt.NDArray[np.int16]:
    """Log values as int16 codes: NaN to NULL_CODE, everything else rounded and saturated."""
    scaled = np.clip(np.nan_to_num(logs, nan=0.0, posinf=_LARGEST, neginf=-_LARGEST) * STEPS_PER_UNIT, -1e9, 1e9)
    codes = np.clip(np.rint(scaled), -_LARGEST, _LARGEST).astype(np.int16)
    codes[np.isnan(logs)] = NULL_CODE
    return codes


def encode(codes: npt.NDArray[np.int16]) -> str:
    """One group's (resamples, A) codes as the stored text."""
    return base64.b64encode(np.ascontiguousarray(codes, dtype="<i2").tobytes()).decode("ascii")


def decode(text: object) -> FloatArray | None:
    """The stored text back to (resamples, A) log values (NaN where null); None for anything else."""
    if not isinstance(text, str):
        return None
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except ValueError:
        return None
    if len(raw) % (2 * len(AXES)):
        return None
    codes = np.frombuffer(raw, dtype="<i2").reshape(-1, len(AXES))
    logs = codes.astype(np.float64) / STEPS_PER_UNIT
    logs[codes == NULL_CODE] = np.nan
    return logs
