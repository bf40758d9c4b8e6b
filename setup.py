"""Build the optional compiled reader and preference Tukey kernel; without a C compiler
rankscope installs pure Python (numpy does the kernel's work)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "rankscope.model._trecio",
            sources=["src/rankscope/model/_trecio.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "rankscope.stats._tukey",
            sources=["src/rankscope/stats/_tukey.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ]
)
