"""The ``gpu`` marker: a test marked ``@pytest.mark.gpu`` needs a CUDA device and is
skipped, with the reason, on machines without one (CI's); ``device`` gives it the
device of ordinal 0."""

import pytest

from xlapy.backends.gpu.runtime.driver import cuda_available, get_device, no_device_reason


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped without one)")


@pytest.fixture(autouse=True)
def _skip_without_gpu(request):
    if request.node.get_closest_marker("gpu") is not None and not cuda_available():
        pytest.skip(f"no CUDA device: {no_device_reason()}")


@pytest.fixture
def device():
    if not cuda_available():
        pytest.skip(f"no CUDA device: {no_device_reason()}")
    return get_device(0)
