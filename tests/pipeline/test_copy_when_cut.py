"""Reads by COPY on a connection the server has cut raise Django's OperationalError, as every other query does.

The API maps django.db's OperationalError to its JSON 503 (core/errors.py); psycopg's own
would pass it by as a 500.
"""

import gzip
import io

import psycopg
import pytest
from django.db import OperationalError, connection

from leaderboard.cycles_file import _copy_rows
from leaderboard.selectors import cycles_frame
from tests.cycles.stored import make_contributor, make_cycles


def cut_own_connection() -> None:
    """Terminate this test's backend from another connection, waiting (up to 5 s) until it is gone."""
    pid = connection.cursor().connection.info.backend_pid
    db = connection.settings_dict
    admin = f"postgresql://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("read", ["cycles_frame", "export"])
def test_it_raises_djangos_operational_error_when_the_connection_is_cut_before_a_copy(read: str) -> None:
    make_cycles(make_contributor(), count=5, seed=3)
    cut_own_connection()

    try:
        with pytest.raises(OperationalError):
            if read == "cycles_frame":
                cycles_frame()
            else:
                _copy_rows(gzip.GzipFile(fileobj=io.BytesIO(), mode="wb"))
    finally:
        connection.close()
