"""Build the optional compiled modules (the TREC reader; the judge's passes over a run's rows;
team-draft offline interleaving; the preference Tukey kernel); without a C compiler rankscope
installs pure Python (numpy)."""

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
            "rankscope.interleaving._offline",
            sources=["src/rankscope/interleaving/_offline.c"],
            # no fused multiply-adds: the values are the numpy programme's to the last bit
            extra_compile_args=["-O2", "-ffp-contract=off"],
            optional=True,
        ),
        Extension(
            "rankscope.judge._join",
            sources=["src/rankscope/judge/_join.c"],
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
