"""Python's cyclic garbage collector paused around bulk work that allocates much and frees it all.

A day's batch of coups builds some 200,000 short-lived objects (the parsed body, the rows, the
answer); each allocation threshold crossed started a collection, and every third generation-2 one
scanned every object of the process (Django, the URLconf, the engine's tables): a third of the
batch's CPU. Reference counting still frees everything at once; the collector runs again after.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """Pause the cyclic collector inside (it stays paused in nested blocks); usable as a decorator."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
