"""The production files hang together. Docker is not run here (no engine on CI): the
compose file is parsed and checked, not started; `docker compose config` would check more.
The Caddyfile itself runs in tests/deploy/test_proxy.py."""

import runpy
from pathlib import Path

import yaml
from django.conf import settings

REPO = Path(__file__).resolve().parents[2]


def compose() -> dict:  # type: ignore[type-arg]
    return dict(yaml.safe_load((REPO / "docker-compose.yml").read_text()))


def test_it_publishes_only_the_proxy() -> None:
    services = compose()["services"]

    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"caddy"}
    assert {"80:80", "443:443"} <= set(services["caddy"]["ports"])
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in services["caddy"]["volumes"]
    assert services["caddy"]["environment"]["DOMAIN"] == "${DOMAIN:-localhost}"


APP_SERVICES = ("migrate", "web", "worker", "beat")


def test_it_runs_the_app_behind_the_tls_proxy_with_threaded_gunicorn() -> None:
    services = compose()["services"]

    for name in APP_SERVICES:
        assert services[name]["environment"]["BEHIND_TLS_PROXY"] == "1", name
    assert services["web"]["command"] == ["gunicorn", "-c", "deploy/gunicorn.conf.py", "pragmatikos.wsgi"]
    assert services["web"]["expose"] == ["8000"]
    assert services["caddy"]["environment"]["UPSTREAM"] == "web:8000"


def test_it_runs_the_image_and_installs_nothing_at_start() -> None:
    services = compose()["services"]

    for name in APP_SERVICES:
        service = services[name]
        assert service["build"] == "." and service["image"] == "pragmatikos:local", name
        assert not any("pip" in str(part) or "install" in str(part) for part in service["command"]), name
        # No checkout mounted over the image: only the exports volume web and worker share.
        assert service["volumes"] == ["exports:/app/var/exports"], name
        assert service["environment"]["EXPORT_DIR"] == "/app/var/exports", name
    # Migrated once before the app starts; the proxy waits for the app's health check.
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}, name
    assert services["caddy"]["depends_on"] == {"web": {"condition": "service_healthy"}}
    assert "healthcheck" not in services["web"]  # the image's HEALTHCHECK on /healthz
    for name in ("migrate", "worker", "beat"):
        assert services[name]["healthcheck"] == {"disable": True}, name


def test_it_buffers_requests_at_the_proxy_and_keeps_no_access_log() -> None:
    caddyfile = (REPO / "deploy" / "Caddyfile").read_text()
    directives = [line.split("#")[0].strip() for line in caddyfile.splitlines()]

    assert "reverse_proxy {$UPSTREAM:web:8000} {" in directives
    assert "buffer_requests" in directives
    # Above the app's cap, so a body just over it gets the app's JSON 413 rather than the proxy's (MB: 10^6 bytes).
    (max_size,) = [line.split()[1] for line in directives if line.startswith("max_size ")]
    assert max_size.endswith("MB") and int(max_size[:-2]) * 10**6 > settings.INGEST_MAX_BODY_BYTES
    assert "read_header 10s" in directives
    assert not any(line.startswith("log") for line in directives)


def test_it_configures_gthread_workers_and_an_address_free_access_log() -> None:
    config = runpy.run_path(str(REPO / "deploy" / "gunicorn.conf.py"))

    assert config["worker_class"] == "gthread"
    assert config["threads"] >= 4
    assert "%(h)s" not in config["access_log_format"]
    assert "{x-forwarded-for}i" not in config["access_log_format"].lower()
