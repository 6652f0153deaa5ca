"""numpy, loaded with one BLAS thread: as fast for the related lists' and the map's small
products, never oversubscribed on a busy machine, safe in a build's forked workers, and
the same sums in the same order in every process, so the map is byte-identical whichever
stage loads numpy first. Import numpy from here, never directly."""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402  (after the thread count, which OpenBLAS reads as it loads)

__all__ = ["np"]
