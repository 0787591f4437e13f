"""The Python tests' fixtures: the modules they need (a skip where one is
missing, a failure in CI), and the devices a search runs on: the CPU
engine always, the GPU where there is one (required where the bundle's
runner sets BFS_REQUIRE_GPU), and the networkx backend set to search on
one."""

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


@pytest.fixture
def backend(nx, bfs_gpu, device):
    """The networkx backend, set to search on `device`; networkx's cache
    warnings off."""
    required("scipy")
    from bfs_gpu import networkx_backend

    nx.config.warnings_to_ignore.add("cache")
    nx.config.backends.bfs_gpu.device = device
    yield networkx_backend
    nx.config.backends.bfs_gpu.device = "auto"
