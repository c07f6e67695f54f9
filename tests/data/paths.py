"""Where the test data lives: inside the repository, so a clone needs nothing beside it."""

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
POOL_DIR = DATA_DIR / "pragmatikos-pool"
CLAUDE_CODE_DIR = DATA_DIR / "claude-code"
