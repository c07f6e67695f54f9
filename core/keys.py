"""The one keyed hash of the ingest: HMAC-SHA256 under INSTALL_HASH_KEY.

An install id is stored only as its keyed hash, and the throttles count under keyed hashes of
addresses: the database and the cache never hold the value itself. Changing the message format
of install_hash would split every contributor from their past, so it stays as first written.
"""

import hashlib
import hmac
import uuid

from django.conf import settings


def keyed_hash(message: str) -> str:
    return hmac.new(settings.INSTALL_HASH_KEY.encode(), message.encode(), hashlib.sha256).hexdigest()


def install_hash(install: uuid.UUID) -> str:
    """The keyed hash that stands for an install; the install itself is never stored."""
    return keyed_hash(str(install).lower())


def keyed_digest(purpose: str, value: str) -> str:
    """A keyed hash of a value for one purpose (a throttle's address), never equal to an install's."""
    return keyed_hash(f"{purpose}:{value}")
