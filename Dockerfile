# The service's image. Stage one builds the wheels of everything the server runs from uv.lock
# (deploy/wheels.sh); stage two installs them offline into a virtualenv (deploy/install.sh),
# collects the static files and runs as a user without privileges. tests/deploy/test_install.py
# runs the same two scripts and starts the result; tests/deploy/test_image.py reads this file.
FROM python:3.11-slim AS wheels
ARG UV_VERSION=0.13.9
RUN pip install --no-cache-dir uv==${UV_VERSION}
WORKDIR /src
COPY . .
RUN deploy/wheels.sh /wheels

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home-dir /app --create-home app
COPY --from=wheels /wheels /wheels
COPY deploy/install.sh deploy/gunicorn.conf.py /app/deploy/
RUN /app/deploy/install.sh /wheels /venv && rm -rf /wheels
ENV PATH=/venv/bin:$PATH DJANGO_SETTINGS_MODULE=pragmatikos.settings PYTHONUNBUFFERED=1
WORKDIR /app
# The embedded settings are enough to collect; var/ (the exports, shared by web and worker) belongs to the app user.
RUN django-admin collectstatic --no-input -v 0 && rm -rf /app/var && mkdir -p /app/var/exports && chown -R app:app /app/var
USER app
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
CMD ["gunicorn", "-c", "deploy/gunicorn.conf.py", "pragmatikos.wsgi"]
