"""Build the optional compiled reader; without a C compiler rankscope installs pure Python."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "rankscope.model._trecio",
            sources=["src/rankscope/model/_trecio.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
