"""The install's identity, kept in the user's config directory and made once.

`install.json` holds the random install id (the contributor's only identity, sent with each
submission, never printed unless asked) and a random local secret that keys cycle_key, so cycle
keys are stable across runs and cannot be linked to sessions by anyone else. Mode 0600.

`config.toml`, written by the person if they want it, holds settings: `allow_names`, the model
and provider names no public list knows that they allow to be sent (a model of their own that
they want ranked), e.g. `allow_names = ["my-public-model"]`.
"""

from __future__ import annotations

import json
import os
import secrets
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from platformdirs import user_config_path

APP_NAME: Final = "pragmatikos-recorder"
FILE_NAME: Final = "install.json"
SETTINGS_NAME: Final = "config.toml"


def config_dir() -> Path:
    override = os.environ.get("PRAGMATIKOS_RECORDER_CONFIG")
    return Path(override) if override else user_config_path(APP_NAME, appauthor=False)


@dataclass(frozen=True, slots=True)
class Identity:
    install: str
    secret: bytes
    path: Path


def _new_identity_data() -> dict[str, str]:
    return {"install": str(uuid.uuid4()), "secret": secrets.token_hex(32)}


def load_identity(directory: Path | None = None) -> Identity:
    """The install's identity, created on first use with file mode 0600."""
    directory = directory or config_dir()
    path = directory / FILE_NAME
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        # O_EXCL: two runs starting at once must not make two identities.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(_new_identity_data(), handle)
    data = json.loads(path.read_text(encoding="utf-8"))
    return Identity(install=str(uuid.UUID(data["install"])), secret=bytes.fromhex(data["secret"]), path=path)


def replace_identity(directory: Path | None = None) -> Identity:
    """A new install id and secret in place of the old ones (after a retraction: the service refuses the old id
    for good). The old file is overwritten in one rename, so a run never reads half of either."""
    directory = directory or config_dir()
    directory.mkdir(parents=True, exist_ok=True)
    fresh = directory / (FILE_NAME + ".new")
    fresh.unlink(missing_ok=True)
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(_new_identity_data(), handle)
    fresh.replace(directory / FILE_NAME)
    return load_identity(directory)


class ConfigError(ValueError):
    """The settings file cannot be read as written; the message says where and why."""


def load_allowed_names(directory: Path | None = None) -> frozenset[str]:
    """The names `config.toml` allows to be sent; none when there is no such file."""
    path = (directory or config_dir()) / SETTINGS_NAME
    try:
        settings = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return frozenset()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot be read ({error})") from error
    names = settings.get("allow_names", [])
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise ConfigError(f"{path}: allow_names must be a list of strings")
    return frozenset(name.strip() for name in names if name.strip())
