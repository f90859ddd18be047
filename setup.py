"""The package build (configured in pyproject.toml), with one step of its own: the gettext
catalogs `cfnet/locale/<code>/LC_MESSAGES/cfnet.po` are compiled into `.mo` files in the build,
so a wheel carries them and the repository keeps only the `.po` sources. An editable install
needs no `.mo`: cfnet compiles a `.po` in memory when no `.mo` is beside it (lang/catalog.py)."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogs(build_py):
    """build_py, then `pybabel compile` of every catalog into the build directory."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        from babel.messages.frontend import CommandLineInterface

        for po in sorted(Path("cfnet/locale").glob("*/LC_MESSAGES/cfnet.po")):
            mo = Path(self.build_lib) / po.with_suffix(".mo")
            mo.parent.mkdir(parents=True, exist_ok=True)
            code = po.parent.parent.name
            CommandLineInterface().run(
                ["pybabel", "-q", "compile", "-l", code, "-i", str(po), "-o", str(mo)]
            )


setup(cmdclass={"build_py": BuildWithCatalogs})
