"""Pragmatikos settings: one module, read from the environment with strict helpers.

Unset, everything falls back to the embedded default: a SQLite file under var/
and tasks run in-process, so a fresh checkout just runs.
"""

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
# In a checkout the templates and static files sit beside the code and the state (var/, staticfiles/)
# in it; installed from the wheel (`pip install .`, the image) the first two are inside this package
# and the state goes under the working directory.
CHECKOUT = (BASE_DIR / "manage.py").is_file()
SITE_FILES_DIR = BASE_DIR if CHECKOUT else Path(__file__).resolve().parent
STATE_DIR = BASE_DIR if CHECKOUT else Path.cwd()
DEVELOPMENT_SECRET_KEY = "development-only-key-never-use-in-production"  # noqa: S105


def envstr(name: str, default: str) -> str:
    return os.environ.get(name, default)


def envbool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {raw!r}")


def envint(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}") from exc


def envfloat(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < 3600:
        raise ImproperlyConfigured(f"{name} must be a positive number of seconds, not {raw!r}")
    return value


def database_from_url(url: str) -> dict[str, object]:
    parts = urlsplit(url)
    if parts.scheme in ("postgres", "postgresql"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parts.path.lstrip("/")) or "pragmatikos",
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    if parts.scheme == "sqlite":
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": unquote(parts.path) or ":memory:"}
    raise ImproperlyConfigured(f"DATABASE_URL must be postgresql://... or sqlite:///..., not {parts.scheme}://")


DEBUG = envbool("DEBUG", False)
DATABASE_URL = envstr("DATABASE_URL", "")
EMBEDDED = DATABASE_URL == ""
SECRET_KEY = envstr("SECRET_KEY", DEVELOPMENT_SECRET_KEY)
if SECRET_KEY == DEVELOPMENT_SECRET_KEY and not (DEBUG or EMBEDDED):
    raise ImproperlyConfigured("SECRET_KEY must be set: the development key is refused outside the embedded default")
# The key that turns install ids into contributor hashes. Required apart from SECRET_KEY
# outside the embedded default: were it to follow a rotated SECRET_KEY, every install would
# hash anew, retractions would find nothing and retracted installs could contribute again.
INSTALL_HASH_KEY = envstr("INSTALL_HASH_KEY", "")
if not INSTALL_HASH_KEY:
    if not (DEBUG or EMBEDDED):
        raise ImproperlyConfigured("INSTALL_HASH_KEY must be set outside the embedded default")
    INSTALL_HASH_KEY = SECRET_KEY

ALLOWED_HOSTS = [h.strip() for h in envstr("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in envstr("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "ingest",
    "leaderboard",
    "pages",
    "lab",
    "pragmatikos",  # the project's own commands (prepare_site)
]

MIDDLEWARE = [
    # /healthz, before host validation: a container's health check asks on the app's own address.
    "pragmatikos.health.HealthMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "pragmatikos.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.common.CommonMiddleware",
    # The retraction form on /contribute/; the JSON API's views are exempt (they take no cookies).
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "pragmatikos.urls"
WSGI_APPLICATION = "pragmatikos.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SITE_FILES_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]

if EMBEDDED:
    # core.sqlite makes var/ when it first connects: reading the settings writes nothing.
    DATABASES = {"default": {"ENGINE": "core.sqlite", "NAME": STATE_DIR / "var" / "pragmatikos.sqlite3"}}
else:
    DATABASES = {"default": database_from_url(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = envstr("REDIS_URL", "")
# Connect and read timeout of the web process's Redis clients, all made by core.redis_breaker.client (the
# cache's too, core.redis_cache): a Redis that hangs fails a call this soon, and the breaker then stops
# asking it for a few seconds.
REDIS_TIMEOUT = envfloat("REDIS_TIMEOUT", 1.0)
# What this process keeps of its own (core.page_cache.process_cache): copies of the pages it served, the
# snapshot it serves and its last look at the cache generation, so a page hit costs no trip to Redis.
PROCESS_CACHE: dict[str, Any] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "process",
    "OPTIONS": {"MAX_ENTRIES": 256},
}
CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            # Its client is core.redis_breaker's: no timeouts of its own here.
            "BACKEND": "core.redis_cache.FactoryRedisCache",
            "LOCATION": REDIS_URL,
        },
        "process": PROCESS_CACHE,
    }
else:
    # Without Redis the shared cache is a folder (core.folder_cache), so what one process computed (the lenses
    # `prepare_site` warms when it scores the demo pool) is there for the server process that runs after it.
    CACHES = {
        "default": {
            "BACKEND": "core.folder_cache.FolderCache",
            "LOCATION": envstr("CACHE_DIR", str(STATE_DIR / "var" / "cache")),
            "OPTIONS": {"MAX_ENTRIES": 2000},
        },
        "process": PROCESS_CACHE,
    }

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
# A task is acknowledged only once it has run, and put back when its worker process is
# killed (SIGKILL, OOM), so a killed recompute is redelivered rather than forgotten.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Redis hands an unacknowledged task to another worker after this long; longer than any
# task runs (a recompute at a million cycles takes about a minute), so none runs twice at once.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", 900)}
CELERY_BEAT_SCHEDULE = {
    # Cheap when nothing is owed (one Redis read); picks up a recompute left owed by one that failed or was killed.
    "recompute-if-owed": {"task": "leaderboard.tasks.recompute_if_owed", "schedule": 60.0},
    # Also covers contributions whose request for a recompute was lost; an unchanged pool publishes nothing.
    "recompute-rankings": {"task": "leaderboard.tasks.scheduled_recompute", "schedule": 600.0},
}
# The recompute lock's time to live; the holder renews it every third of that while it computes.
RECOMPUTE_LOCK_SECONDS = envint("RECOMPUTE_LOCK_SECONDS", 30)
# Seconds after a completed recompute before the next may start: contributions arriving meanwhile are
# published together in the next one, so a flood of them costs one recompute per interval, not one each.
RECOMPUTE_MIN_INTERVAL = envint("RECOMPUTE_MIN_INTERVAL", 5)
# Published snapshots kept whole; older ones keep only the last of each day, as the date of its score history.
SNAPSHOTS_KEPT = envint("SNAPSHOTS_KEPT", 10)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Pragmatikos API",
    "DESCRIPTION": "Contribute anonymized agent cycles and read the pooled planner → builder rankings.",
    "VERSION": "1",
    # 3.1: JSON Schema 2020-12, so a positional row can give each column its own rule (prefixItems).
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Redoc's script from our own static files: the docs page needs no CDN.
    "REDOC_DIST": "SIDECAR",
    "PREPROCESSING_HOOKS": ["pragmatikos.api_schema.canonical_paths"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "ingest.openapi.add_contract_components",
    ],
}

# Ingest limits (the contract's caps) and request rates per install and per client address.
# The client sends a whole history in one request and cannot split it: 100,000 rows must get in (cycle-record.md).
INGEST_MAX_BODY_BYTES = envint("INGEST_MAX_BODY_BYTES", 64 * 1024 * 1024)
INGEST_MAX_ROWS = envint("INGEST_MAX_ROWS", 100_000)
# Bytes of bodies (every one) one web process holds at once; beyond it, 503 with Retry-After. One body at
# the cap and 16 MiB of everyday sends beside it.
INGEST_BODY_BYTES_IN_FLIGHT = envint("INGEST_BODY_BYTES_IN_FLIGHT", 80 * 1024 * 1024)
# Bodies larger than the proxy buffers (deploy/Caddyfile max_buffer_size) stream to the app as they arrive:
# this many at once per process; more get 503 before they are read.
INGEST_PROXY_BUFFER_BYTES = envint("INGEST_PROXY_BUFFER_BYTES", 4 * 1024 * 1024)
INGEST_STREAMED_BODIES = envint("INGEST_STREAMED_BODIES", 2)
INGEST_RATE_PER_INSTALL = envstr("INGEST_RATE_PER_INSTALL", "60/hour")
INGEST_RATE_PER_ADDRESS = envstr("INGEST_RATE_PER_ADDRESS", "600/hour")
# A retraction of an install that never stored a cycle is forgotten after this many days: it deletes
# nothing, so remembering it is only a courtesy, and each one forever would let anyone fill the table.
RETRACTION_UNSEEN_DAYS = envint("RETRACTION_UNSEEN_DAYS", 30)
# Django's own cap would refuse our large bodies before the view can answer 413 in JSON.
DATA_UPLOAD_MAX_MEMORY_SIZE = INGEST_MAX_BODY_BYTES + 1024

# Scoring: bootstrap resamples and seed (spec B1); family patterns are data (spec A1).
SCORING_RESAMPLES = envint("SCORING_RESAMPLES", 200)
SCORING_SEED = envint("SCORING_SEED", 20260909)
SCORING_FAMILY_PATTERN = envstr("SCORING_FAMILY_PATTERN", "")
# A published name (model, effort, provider, harness, version) is shown only when this many counted
# contributors sent it, a maintained list knows it or an operator allowed it; others are pooled as
# "(other)" (scoring/public_labels.py, leaderboard/public_names.py). A contributor counts once seen on
# two occasions this many hours apart: install ids cost nothing, time does.
PUBLIC_LABEL_MIN_CONTRIBUTORS = envint("PUBLIC_LABEL_MIN_CONTRIBUTORS", 2)
PUBLIC_LABEL_MIN_TENURE_HOURS = envint("PUBLIC_LABEL_MIN_TENURE_HOURS", 24)
# Distinct days (UTC, after the tenure) on which each of those contributors must have sent a name.
PUBLIC_LABEL_MIN_DAYS = envint("PUBLIC_LABEL_MIN_DAYS", 3)
# Where this service's source code can be read and cloned (shown in every footer and on the contribute
# page, whose install commands run from a clone). Empty: no public address is known, so none is shown.
SOURCE_URL = envstr("SOURCE_URL", "")
# Day windows not yet computed: how many compute at once (each client one at a time), and how many
# new ones one client address may ask for.
WINDOW_SLOTS = envint("WINDOW_SLOTS", 2)
WINDOW_RATE_PER_ADDRESS = envstr("WINDOW_RATE_PER_ADDRESS", "30/hour")
try:
    re.compile(SCORING_FAMILY_PATTERN)
except re.error as exc:
    raise ImproperlyConfigured(f"SCORING_FAMILY_PATTERN is not a regular expression: {exc}") from exc

# Where the worker writes cycles.csv once per snapshot (leaderboard/cycles_file.py); the web process
# serves it from here, so both must see the same directory.
EXPORT_DIR = Path(envstr("EXPORT_DIR", str(STATE_DIR / "var" / "exports")))
# Whether a proxy in front sends the cycles downloads from EXPORT_DIR (deploy/Caddyfile, given
# X-Accel-Redirect), so a slow reader holds no app thread; off, the web process sends them itself.
EXPORTS_SERVED_BY_PROXY = envbool("EXPORTS_SERVED_BY_PROXY", False)

STATIC_URL = "static/"
STATIC_ROOT = Path(envstr("STATIC_ROOT", str(STATE_DIR / "staticfiles")))
STATICFILES_DIRS = [SITE_FILES_DIR / "static"]
# Serve straight from the source folders too, so a checkout needs no collectstatic step.
WHITENOISE_USE_FINDERS = True
# Files browsers ask for at the site's root (/favicon.ico), served by WhiteNoise as they are.
WHITENOISE_ROOT = SITE_FILES_DIR / "static" / "root"

USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en"

SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "pages.views.csrf_failure"
BEHIND_TLS_PROXY = envbool("BEHIND_TLS_PROXY", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_TLS_PROXY else None
if BEHIND_TLS_PROXY:
    # Browsers that have seen the site over HTTPS come back only over HTTPS. Django sends the
    # header on secure requests only, which behind the proxy are the ones it forwarded as https.
    SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
    CSRF_COOKIE_SECURE = True
    SESSION_COOKIE_SECURE = True

# pragmatikos.security sends these. The one hash is the inline <style> of templates/500.html,
# which must render with nothing else working; tests check every inline style is hashed here.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'sha256-IaKqdWlfvQwR6eVuUI2weKVu7WmR+4ndYCuwwI5V+eA='; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
CONTENT_SECURITY_POLICY_PATHS = {
    # Redoc (served from our static files) writes its styles into <style> elements at run
    # time and runs its search in a worker it builds from a blob: scripts stay ours only.
    "/api/docs/": (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; frame-ancestors 'none'"
    ),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
}
