"""What every app of the service shares and none owns: the API's error shape, time formatting.

Below ingest, leaderboard and lab: they import it, it imports none of them.
"""
