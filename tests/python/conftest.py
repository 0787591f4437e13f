"""The Python tests' fixtures: the modules they need (a skip where one is
missing, a failure in CI), and the devices a search runs on: the CPU
engine always, the GPU where there is one (required where the bundle's
runner sets BFS_REQUIRE_GPU)."""

import pytest
from helpers import require_gpu, required


@pytest.fixture(scope="session")
def nx():
    return required("networkx")


@pytest.fixture(scope="session")
def np():
    return required("numpy")


@pytest.fixture(scope="session")
def scipy():
    required("scipy")
    import scipy.sparse
    import scipy.sparse.csgraph

    return scipy


@pytest.fixture(scope="session")
def bfs_gpu():
    return required("bfs_gpu")


@pytest.fixture(params=["cpu", "gpu"])
def device(request, bfs_gpu):
    """Each device in turn: 'cpu', then 'gpu' (skipped without one)."""
    if request.param == "gpu":
        require_gpu(bfs_gpu)
    return request.param
