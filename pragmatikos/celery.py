"""The Celery app. Without REDIS_URL the settings make every task run in-process."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pragmatikos.settings")
# One BLAS thread per process: on two cores, threaded BLAS in the scorer fights the web
# workers and the other fit for the same cores and runs many times slower.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

app = Celery("pragmatikos")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
