"""The build's one dynamic part: the repository's top-level ``resources/`` and ``docs/`` ship
inside the package, as ``inspector.resources`` and ``inspector.docs`` (the app reads them
through ``importlib.resources``: inspector/core/base/resources.py). Everything else about the
package is in pyproject.toml.

Each folder (and each folder under it) is mapped with ``package_dir`` and its files are its
package data, so a wheel, an sdist and an editable install (``pip install -e .``: the
editable finder maps the two packages onto these very folders, new files included) all hold
them. The ``__init__.py`` in ``resources/`` and ``docs/`` is what lets the editable finder
import them.
"""

from pathlib import Path

from setuptools import find_packages, setup

DATA = {"inspector.resources": "resources", "inspector.docs": "docs"}


def data_packages() -> dict[str, str]:
    """Package name -> folder, for each data folder and every folder under it."""
    found = {}
    for package, folder in DATA.items():
        top = Path(folder)
        for d in [top, *sorted(p for p in top.rglob("*") if p.is_dir())]:
            if "__pycache__" not in d.parts:
                found[".".join((package, *d.relative_to(top).parts))] = d.as_posix()
    return found


DATA_PACKAGES = data_packages()

setup(
    packages=[*find_packages(include=["inspector", "inspector.*"]), *DATA_PACKAGES],
    package_dir=DATA_PACKAGES,
    package_data={"inspector": ["py.typed"], **{name: ["*"] for name in DATA_PACKAGES}},
    exclude_package_data={name: ["*.pyc"] for name in DATA_PACKAGES},
)
