"""A hook: one function a lower app asks for and an app above it provides, so that the lower app never imports it.

The providing app registers its function in its AppConfig.ready (once, whatever module is imported first); the
asking app calls what was provided, or does without when nothing was (the providing app not installed).
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class Hook(Generic[P, R]):
    """One slot for the function that answers `question`."""

    def __init__(self, question: str) -> None:
        self.question = question
        self._provider: Callable[P, R] | None = None

    def provide(self, provider: Callable[P, R]) -> None:
        """Answer the question with `provider` from now on (an AppConfig.ready's call)."""
        self._provider = provider

    def provider(self) -> Callable[P, R] | None:
        """The function that answers the question; None when no installed app provides one."""
        return self._provider

    @contextmanager
    def provided_by(self, provider: Callable[P, R] | None) -> Iterator[None]:
        """Another provider (None: none) while the block runs, the registered one again after it."""
        registered = self._provider
        self._provider = provider
        try:
            yield
        finally:
            self._provider = registered
