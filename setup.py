"""chaind: a proof-of-stake EVM node on Twisted.

`pip install .` compiles protos/ with grpcio-tools into chaind/pb/ before building.
"""

import pathlib
import re

from setuptools import Command, setup
from setuptools.command.build_py import build_py
from setuptools.command.develop import develop

HERE = pathlib.Path(__file__).parent
PROTOS = HERE / "protos"
OUT = HERE / "chaind" / "pb"
TOP_PACKAGES = ("cosmos", "tendermint", "ethermint", "evmos")


def compile_protos():
    """Generate chaind/pb/ from protos/, with imports rewritten under chaind.pb."""
    from grpc_tools import protoc

    sources = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    OUT.mkdir(exist_ok=True)
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    code = protoc.main(["protoc", f"-I{PROTOS}", f"-I{include}", f"--python_out={OUT}",
                        f"--grpc_python_out={OUT}", *sources])
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    pattern = re.compile(rf"^from ({'|'.join(TOP_PACKAGES)})((?:\.\w+)*) import", re.M)
    for path in OUT.rglob("*.py"):
        text = path.read_text()
        fixed = pattern.sub(lambda m: f"from chaind.pb.{m.group(1)}{m.group(2)} import", text)
        if fixed != text:
            path.write_text(fixed)
    for directory in [OUT, *[p for p in OUT.rglob("*") if p.is_dir()]]:
        (directory / "__init__.py").touch()


class BuildProtos(Command):
    description = "compile protos/ into chaind/pb/"
    user_options = []

    def initialize_options(self):
        pass

    def finalize_options(self):
        pass

    def run(self):
        compile_protos()


class BuildPy(build_py):
    def run(self):
        compile_protos()
        self.packages = sorted(set(self.packages) | set(_packages()))
        super().run()


class Develop(develop):
    def run(self):
        compile_protos()
        super().run()


def _packages():
    found = []
    for init in sorted(HERE.glob("chaind/**/__init__.py")):
        found.append(".".join(init.parent.relative_to(HERE).parts))
    return found


setup(
    name="chaind",
    version="0.1.0",
    description="A proof-of-stake EVM chain node (Evmos-style) on Twisted",
    long_description=(HERE / "README.rst").read_text(),
    python_requires=">=3.11",
    packages=_packages() + ["twisted.plugins"],
    data_files=[("share/chaind/etc", [str(p.relative_to(HERE)) for p in sorted((HERE / "etc").iterdir())])],
    install_requires=[
        "twisted==26.10.0",
        "autobahn==26.10.2",
        "grpcio==1.85.1",
        "grpcio-reflection==1.85.1",    # same release as grpcio, which it requires at least
        "protobuf>=6.31,<8",
        "py-evm==0.12.1b1",
        "plyvel==1.5.1",
        "klein==24.8.0",
        "attrs>=25",
        "coincurve==21.0.0",
        "eth-account==0.14.0",
        "eth-keys==0.8.0",
        "eth-utils>=6",
        "rlp>=4",
        "bech32==1.2.0",
        "click>=8.1",
        "orjson>=3.10",
        "cryptography>=42",
        "quickjs-ng==0.17.0.2",
        "tree-sitter==0.26.1",
        "tree-sitter-javascript==0.25.0",
    ],
    extras_require={
        "test": [
            "pytest>=8",
            "pytest-twisted==1.14.3",
            "web3==8.0.0",
            "websockets>=15",
            "hypothesis>=6.100",
            "grpcio-tools==1.85.1",
        ],
    },
    entry_points={"console_scripts": ["chaind = chaind.cli.main:main"]},
    cmdclass={"build_protos": BuildProtos, "build_py": BuildPy, "develop": Develop},
)
